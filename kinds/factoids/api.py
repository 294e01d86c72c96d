"""The factoids kind's own endpoint: starting Phase 2 (``POST /api/campaigns/{id}/phase/``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import selectors
from annotate.api import serializers as s
from annotate.api.views import ERRORS, body
from concord.errors import InvalidInput
from kinds.factoids import services


class PhaseSerializer(serializers.Serializer):
    phase = serializers.IntegerField(
        help_text="2: start Phase 2 (factoid analysis); 1: back to Phase 1, refused (400) once a judgment "
        "was saved in Phase 2"
    )


class Phase(APIView):
    @extend_schema(request=PhaseSerializer, responses={200: s.CampaignSerializer, **ERRORS})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
        data = body(request, allowed={"phase"}, required={"phase"})
        if data["phase"] == 2:
            campaign = services.start_phase_two(campaign=campaign)
        elif data["phase"] == 1:  # back to Phase 1: only while nothing was saved in Phase 2
            campaign = services.revert_phase_two(campaign=campaign)
        else:
            raise InvalidInput("phase", "expected 2 (start Phase 2) or 1 (back to Phase 1)")
        return Response(s.CampaignSerializer(campaign, context={"roles": {campaign.pk: role}}).data)
