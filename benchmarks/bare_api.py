"""The reference of ``benchmarks.submit_cost``: a bare DRF endpoint doing one read
and one write on the same database, behind the same authentication, middleware
and renderer as the real API. It lives here, not in the app: the benchmark
serves it with ``override_settings(ROOT_URLCONF="benchmarks.bare_api")``.

``PUT /bare/<judgment id>/`` reads the judgment (one SELECT) and adds one to its
``active_ms`` (one UPDATE, in a transaction as a save is), answering a small
JSON object.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.http import Http404
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.models import Judgment
from concord.urls import urlpatterns as concord_urlpatterns


class Bare(APIView):
    def put(self, request: Request, judgment_id: int) -> Response:
        row = Judgment.objects.filter(pk=judgment_id, assessor=request.user).values("id", "version").first()
        if row is None:
            raise Http404
        with transaction.atomic():
            Judgment.objects.filter(pk=judgment_id).update(active_ms=F("active_ms") + 1)
        return Response({"id": row["id"], "version": row["version"], "saved": True})


urlpatterns = [*concord_urlpatterns, path("bare/<int:judgment_id>/", Bare.as_view(), name="bare")]
