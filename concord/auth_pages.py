"""The page a sign-in opened from a judging page ends on (static/annotate/judge.js).

A judging page whose session ended keeps its unsaved work and offers "Sign in
again" in a new tab, so that the page itself, with its undo history, stays
where it was: the sign-in ends here, and the judging page notices it is
signed in again and sends its work. ``?topic=`` is the judging page's path,
linked for someone who closed that tab (the topic then offers the kept work);
anything but a path on this site is left out.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

#: A judging page's path is far shorter; a longer one is not linked.
MAX_TOPIC_PATH = 500


def topic_path(request: HttpRequest) -> str:
    path = request.GET.get("topic", "")
    if not path.startswith("/") or len(path) > MAX_TOPIC_PATH:
        return ""
    if not url_has_allowed_host_and_scheme(path, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return ""
    return path


@login_required
def signed_in(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/signed_in.html", {"topic": topic_path(request)})
