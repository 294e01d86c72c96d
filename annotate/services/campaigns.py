"""Campaigns: creating one (its creator its first organiser, its params checked against the
kind's schema and the adaptive design's, defaults filled in), and checking params alone."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate import adaptive, study
from annotate.models import (
    Campaign,
    Membership,
)
from concord.errors import InvalidInput
from kinds.base import require_text
from kinds.registry import get_kind


@transaction.atomic
def create_campaign(
    *,
    creator: AbstractBaseUser,
    kind: str,
    name: str,
    guidelines: str = "",
    overlap: int = 2,
    params: dict[str, Any] | None = None,
) -> Campaign:
    get_kind(kind)
    require_text(name, "name", max_length=200)
    require_text(guidelines, "guidelines", allow_empty=True)
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= 100:
        raise InvalidInput("overlap", "expected a whole number of assessors per topic, from 1 to 100")
    params = clean_campaign_params(kind, params)
    campaign = Campaign.objects.create(
        kind=kind, name=name, guidelines=guidelines, overlap=overlap, params=params, created_by=creator
    )
    if not creator.is_staff:
        Membership.objects.create(campaign=campaign, user=creator, role=Membership.Role.ORGANISER)
    return campaign


def clean_campaign_params(
    kind: str, params: Any, *, current: dict[str, Any] | None = None, internal: bool = False
) -> dict[str, Any]:
    """A campaign's params checked against its kind's ``params_schema``, with
    defaults filled: every creation or change of params passes here before
    anything is stored. ``current``: the stored params being replaced (what
    Concord set itself, such as factoids' ``phase``, stays); ``internal``:
    Concord itself writes (restoring a backup, starting Phase 2)."""
    cleaned = get_kind(kind).params.clean(params, "params", current=current, internal=internal)
    adaptive.check_params(cleaned)
    study.check_params(kind, cleaned)
    return cleaned
