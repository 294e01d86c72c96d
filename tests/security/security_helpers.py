"""Shared by tests/security: a factoids topic and a valid annotation of it;
every URL of the project with its path filled in."""

from __future__ import annotations

from collections.abc import Iterator

from django.urls import URLPattern, URLResolver, reverse

import concord.urls

FACTOIDS_TOPIC = {
    "external_id": "kuwait",
    "title": "Invasion of Kuwait",
    "data": {
        "summaries": [
            {
                "id": "M1",
                "author": "ann-a",
                "sentences": [
                    {"id": "m1s1", "text": "Iraq invaded Kuwait."},
                    {"id": "m1s2", "text": "Oil prices rose."},
                ],
            },
            {"id": "S1", "run": "sys-1", "sentences": [{"id": "x1", "text": "Kuwait was invaded by Iraq."}]},
        ]
    },
}
FACTOIDS_PAYLOAD = {
    "factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}, {"id": "F2", "text": "Oil prices rose"}],
    "marks": {"m1s1": ["F1"], "m1s2": ["F2"], "x1": ["F1"]},
}


def named_patterns(patterns=None, namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    """(name, pattern) of every URL, ``namespace:name`` inside includes."""
    for entry in concord.urls.urlpatterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from named_patterns(entry.url_patterns, inner)
        else:
            yield f"{namespace}{entry.name}" if entry.name else f"{namespace}<unnamed {entry.pattern}>", entry


def is_admin(name: str) -> bool:
    return name.startswith("admin:")


def api_methods(pattern: URLPattern) -> set[str] | None:
    """The methods a DRF view answers (None: a plain Django view)."""
    view = getattr(pattern.callback, "cls", None) or getattr(pattern.callback, "view_class", None)
    if view is None or not hasattr(view, "http_method_not_allowed") or not hasattr(view, "authentication_classes"):
        return None
    return {m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(view, m)}


def project_patterns() -> dict[str, URLPattern]:
    return {name: pattern for name, pattern in named_patterns() if not is_admin(name)}


def path_for(name: str, pattern: URLPattern, world) -> str:
    values = {
        "campaign_id": world.campaign.pk,
        "topic_id": world.topic.external_id,
        "job_id": world.job.pk,
        "flag_id": world.flag.pk,
        "name": "consensus",
        "token_id": "0123456789abcde",
        "token": "nobodys-study-link-token-0123456789abcdefgh",
        "sample": f"{world.campaign.kind}-topics.json",
    }
    # The help pages and images are files looked up by name (concord/help.py).
    values.update(
        {"help-page": {"name": "assessor"}, "help-image": {"name": "campaign.png", "folder": "img"}}.get(name, {})
    )
    missing = set(pattern.pattern.converters) - set(values)
    assert not missing, f"path_for(): give a value for {', '.join(sorted(missing))} (URL {name})"
    return reverse(name, kwargs={key: values[key] for key in pattern.pattern.converters})
