"""The organiser's workbench pages beyond the campaign page: members, control items.

Thin, like every view: permission (annotate.selectors.campaign_for with
need="organise"), one service call, then a redirect (303) to the page, which
shows the links the POST made once (kept in the session until then). Bad input
re-renders the page with the message at its field (400) and changes nothing.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotate import selectors
from annotate.imports.read import decode
from annotate.judges import counts_model_judges
from annotate.models import Membership
from annotate.selectors import member_accounts
from annotate.services import accounts
from annotate.services import controls as control_items
from annotate.services.members import add_member, add_members, remove_member, set_model_judge
from concord import paramforms, reading
from concord.errors import InvalidInput
from kinds.registry import get_kind


@login_required
def campaign_members(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Add members (one or a pasted list), change roles, mark model judges, remove, and
    make one-time set-password links for new accounts."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    error, link, link_for, links = None, None, "", []
    if request.method == "POST":
        action = request.POST.get("action", "")
        username = request.POST.get("username", "").strip()
        try:
            if action == "add":
                names = parse_usernames(request.POST.get("usernames", ""))
                added = add_members(campaign=campaign, usernames=names, role=request.POST.get("role", ""))
                messages.success(request, added_message(added, request.user))
                # The new accounts' links at once, to copy in one go (no second step per person).
                links = _links(request, campaign, [m.user.get_username() for m in added])
            elif action == "role":
                add_member(campaign=campaign, username=username, role=request.POST.get("role", ""))
                messages.success(request, f"{username} is now {request.POST.get('role')}.")
            elif action == "model_judge":
                judge = model_judge_value(request.POST.get("model_judge"))
                set_model_judge(campaign=campaign, username=username, model_judge=judge)
                messages.success(
                    request,
                    f"{username} is now a model judge: their judgments are kept out of the people's figures."
                    if judge
                    else f"{username} is now counted as a person.",
                )
            elif action == "remove":
                remove_member(campaign=campaign, username=username)
                messages.success(request, f"{username} was removed; their judgments stay.")
            elif action == "link":
                link = request.build_absolute_uri(
                    accounts.set_password_link(campaign=campaign, username=username, organiser=request.user)
                )
            elif action == "links":
                links = _links(request, campaign, [a.username for a in member_accounts(campaign, request.user)])
                if not links:
                    raise InvalidInput("action", "no member has a new account without a password")
            else:
                raise InvalidInput("action", "expected add, role, model_judge, remove, link or links")
        except InvalidInput as invalid:
            error = invalid
        else:
            return _shown_once(request, campaign, link=link, link_for=username if link else "", links=links)
    else:
        link, link_for, links = _take_shown(request, campaign)
    listed = member_accounts(campaign, request.user)
    return render(
        request,
        "annotate/members.html",
        {
            "campaign": campaign,
            "accounts": listed,
            "counts_model_judges": counts_model_judges(campaign),
            "new_accounts": sum(1 for a in listed if a.link_allowed),
            "roles": Membership.Role.choices,
            "error": error,
            "link": link,
            "links": links,
            "links_text": "\n".join(f"{name}\t{url}" for name, url in links),
            "link_for": link_for if link else "",
            "pasted": request.POST.get("usernames", "") if error else "",
            "link_days": settings.CONCORD_SET_PASSWORD_LINK_DAYS,
        },
        status=400 if error else 200,
    )


def model_judge_value(raw: str | None) -> bool:
    """The members page's model-judge switch: ``true`` or ``false``, else InvalidInput naming ``model_judge``.

    >>> model_judge_value("true"), model_judge_value("false")
    (True, False)
    """
    if raw not in ("true", "false"):
        raise InvalidInput("model_judge", "expected true or false")
    return raw == "true"


#: Where the links a POST made wait for the page that follows it (per campaign).
_SHOWN_ONCE = "members-links"


def _shown_once(request: HttpRequest, campaign, *, link: str | None, link_for: str, links: list) -> HttpResponse:
    """Redirect after a POST (303: a reload does not add or make links again); the new
    links wait in the session, server-side, for that next page only."""
    if link or links:
        waiting = request.session.get(_SHOWN_ONCE, {})
        waiting[str(campaign.pk)] = {"link": link, "link_for": link_for, "links": [list(pair) for pair in links]}
        request.session[_SHOWN_ONCE] = waiting
    response = redirect("campaign-members", campaign_id=campaign.pk)
    response.status_code = 303
    return response


def _take_shown(request: HttpRequest, campaign) -> tuple[str | None, str, list[tuple[str, str]]]:
    """The links waiting for this page (link, whose, [(name, link), ...]), removed as they are shown."""
    waiting = request.session.get(_SHOWN_ONCE, {})
    shown = waiting.pop(str(campaign.pk), None)
    if shown is None:
        return None, "", []
    request.session[_SHOWN_ONCE] = waiting
    return shown["link"], shown["link_for"], [tuple(pair) for pair in shown["links"]]


def _links(request: HttpRequest, campaign, usernames: list[str]) -> list[tuple[str, str]]:
    """(name, full URL) of the set-password link of each new account among ``usernames``."""
    made = accounts.set_password_links(campaign=campaign, usernames=usernames, organiser=request.user)
    return [(name, request.build_absolute_uri(path)) for name, path in made]


def parse_usernames(text: str) -> list[str]:
    """Names from a pasted list: one per line, or separated by commas, spaces or semicolons; repeats once.

    >>> parse_usernames("alice, bob\\ncarol;  alice")
    ['alice', 'bob', 'carol']
    """
    names: list[str] = []
    for name in re.split(r"[\s,;]+", text or ""):
        if name and name not in names:
            names.append(name)
    return names


#: The most names the message after adding lists per state (a paste may add MAX_BULK).
NAMES_SHOWN = 20


def added_message(added: list[Membership], organiser: AbstractBaseUser) -> str:
    """What the members page says after adding: each name's account state, as the table shows it."""
    states = accounts.states([m.user for m in added], organiser)
    by_state: dict[str, list[str]] = {}
    for membership in added:
        by_state.setdefault(accounts.member_state(membership, states[membership.user_id]), []).append(
            membership.user.get_username()
        )
    parts = [f"Added or updated {len(added)} member{'s' if len(added) != 1 else ''}."]
    for state, names in by_state.items():
        more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
        parts.append(f"{', '.join(names[:NAMES_SHOWN])}{more}: {accounts.SAID[state]}.")
    return " ".join(parts)


@login_required
def campaign_controls(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The control topics and their known answers; mark items as controls (rows typed or a CSV
    uploaded), remove one or a topic's, and set the rules (the kind's control params). Organisers
    and admins; a kind whose judgments cannot be checked against known answers has no such page."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    if not get_kind(campaign.kind).data.takes_controls:
        raise Http404(f"{get_kind(campaign.kind).data.label} campaigns take no control items.")
    schema = control_items.rules_schema(campaign)
    error, values, typed = None, campaign.params, ""
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "mark":
                typed = request.POST.get("answers", "")
                upload = request.FILES.get("file")
                if upload is not None:
                    text = decode(upload.read(reading.upload_limit() + 1), "file")
                    marked = control_items.mark(campaign, text, field="file")
                else:
                    marked = control_items.mark(campaign, typed, field="answers")
                messages.success(
                    request,
                    f"{marked.answers} known answer{'s' if marked.answers != 1 else ''} set on "
                    f"{marked.topics} topic{'s' if marked.topics != 1 else ''}.",
                )
            elif action == "remove":
                item = request.POST.get("item") or None
                topic = request.POST.get("topic", "")
                removed = control_items.unmark(campaign, topic, item)
                messages.success(
                    request,
                    f"Removed the known answer of {item} of {topic}."
                    if item
                    else f"{topic} is a regular topic again ({removed} known answer{'s' if removed != 1 else ''} removed).",
                )
            elif action == "rules":
                values = paramforms.read(schema, request.POST)
                control_items.set_rules(campaign, values)
                messages.success(request, "The rules of control items are saved.")
            else:
                raise InvalidInput("action", "expected mark, remove or rules")
        except InvalidInput as invalid:
            error = invalid
        else:
            response = redirect("campaign-controls", campaign_id=campaign.pk)
            response.status_code = 303
            return response
    topics, total = control_items.listed(campaign)
    return render(
        request,
        "annotate/controls.html",
        {
            "campaign": campaign,
            "topics": topics,
            "total": total,
            "listed_topics": control_items.LISTED,
            "listed_answers": control_items.LISTED_ANSWERS,
            "error": error,
            "typed": typed,
            "fields": paramforms.fields(schema, values=values, error=error, form="rules"),
        },
        status=400 if error else 200,
    )
