"""Bounded work per request, over the kind registry (in the style of test_contract.py).

Every kind declares a cap on every list (and id-keyed object) of its topic data
and payloads, and the largest payload in bytes (``Kind.limits``). For each kind:

- every list in its topic data and payloads has a declared cap;
- each cap is accepted at the cap and refused just over it, naming the field;
- validating a topic and a payload costs work linear in their size: counted
  (Python lines run, and comparisons and hashes of the ids, which catch a
  ``list.index`` or ``x in list`` per entry), at n and at 2n entries, never by
  the clock;
- a payload over the kind's byte cap is refused before anything else reads it,
  and through the API with a 400 naming ``payload``;
- docs/security.md's table states every cap as declared.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate.services.judgments import save_judgment
from concord.errors import InvalidInput
from kinds.base import payload_bytes
from kinds.registry import KINDS

NAMES = sorted(KINDS)
ROOT = Path(__file__).resolve().parents[2]
CAPS = [(name, path) for name in NAMES for path in KINDS[name].data.limits.lists]


def counts(name: str, size: int = 1, **changes: int) -> dict[str, int]:
    limits = KINDS[name].data.limits.lists
    return {path: changes.get(path, size) for path in limits}


def sized(name: str, wanted: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = KINDS[name]
    assert spec.examples.sized is not None, f"{name}: Examples.sized is missing"
    return spec.examples.sized(wanted)


def params_for(name: str) -> dict[str, Any]:
    return KINDS[name].params.clean({})


def shape(field: str) -> str:
    """An error's field as a limits path: positions left out, an object's keys as ``*``."""
    return re.sub(r"\[\d+\]", "[]", field)


# -- every list is capped ---------------------------------------------------------


def lists_in(value: Any, path: str, found: set[str]) -> None:
    if isinstance(value, list):
        found.add(path)
        for entry in value:
            lists_in(entry, f"{path}[]", found)
    elif isinstance(value, dict):
        for key, entry in value.items():
            lists_in(entry, f"{path}.{key}", found)


@pytest.mark.parametrize("name", NAMES)
def test_every_list_of_topic_data_and_payloads_has_a_cap(name):
    """Every list the kind's data holds (the generator fills every optional one), with
    the keys of id-keyed objects read as ``*`` (``payload.marks.*``)."""
    data, payload = sized(name, counts(name, 3))
    found: set[str] = set()
    lists_in(data, "data", found)
    lists_in(payload, "payload", found)
    declared = set(KINDS[name].data.limits.lists)
    keyed = {p.removesuffix(".*") for p in declared if p.endswith(".*")}
    for path in sorted(found):
        general = next((f"{k}.*" for k in keyed if path.startswith(f"{k}.") and "." not in path[len(k) + 1 :]), path)
        assert general in declared, f"{name}: the list {path} has no cap in limits"


# -- at the cap, and just over ----------------------------------------------------


def clean(name: str, data: dict, payload: dict | None) -> Any:
    kind = KINDS[name].data
    if payload is None:
        return kind.clean_topic_data(data)
    return kind.clean_payload(payload, data, complete=False, params=params_for(name))


@pytest.mark.parametrize(("name", "path"), CAPS)
def test_each_cap_holds_at_the_cap_and_refuses_one_more_naming_the_field(name, path):
    cap = KINDS[name].data.limits[path]
    on_payload = path.startswith("payload.")
    data, payload = sized(name, counts(name, **{path: cap}))
    cleaned = KINDS[name].data.clean_topic_data(data)
    if on_payload:
        clean(name, cleaned, payload)
    data, payload = sized(name, counts(name, **{path: cap + 1}))
    with pytest.raises(InvalidInput) as refused:
        clean(name, data, payload if on_payload else None)
    field = shape(refused.value.field)
    if path.endswith(".*"):
        field = field.rsplit(".", 1)[0] + ".*"
    assert (field, f"at most {cap:,}" in refused.value.message) == (path, True), refused.value


# -- linear work --------------------------------------------------------------------


class Counted(str):
    """An id that counts its comparisons and hashes: a scan of a list per entry
    (``list.index``, ``x in list``, ``set(list)`` rebuilt per entry) shows up here
    though it runs in C, where no line of Python is traced."""

    operations = 0

    def __eq__(self, other: object) -> bool:
        Counted.operations += 1
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        Counted.operations += 1
        return str.__hash__(self)


def counted(value: Any) -> Any:
    if isinstance(value, str):
        return Counted(value)
    if isinstance(value, list):
        return [counted(v) for v in value]
    if isinstance(value, dict):
        return {counted(k): counted(v) for k, v in value.items()}
    return value


def work(run: Callable[[], Any]) -> int:
    """Lines of Python run by ``run()`` plus the comparisons and hashes of its ids."""
    lines = 0

    def local(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def call(frame, event, arg):
        return local

    Counted.operations = 0
    previous = sys.gettrace()
    sys.settrace(call)
    try:
        run()
    finally:
        sys.settrace(previous)
    return lines + Counted.operations


def request_work(name: str, share: float) -> int:
    """What a request does with a topic and a payload of ``share`` of every cap:
    the import's check of the topic, a draft's check (with an assignment's scope
    where the kind splits topics), the assessor view, its flag targets, the progress."""
    kind = KINDS[name].data
    wanted = {path: max(1, int(cap * share)) for path, cap in kind.limits.lists.items()}
    data, payload = (counted(part) for part in sized(name, wanted))
    params = params_for(name)

    def run() -> None:
        cleaned = kind.clean_topic_data(data)
        try:
            items = kind.items(cleaned)
        except InvalidInput:
            items = None
        scoped = params if items is None else {**params, "scope": items}
        kind.clean_payload(payload, cleaned, complete=False, params=scoped)
        view = kind.assessor_view(cleaned, items)
        kind.flag_targets(view)
        kind.progress(payload, cleaned)

    return work(run)


@pytest.mark.parametrize("name", NAMES)
def test_validation_work_grows_linearly_with_the_input(name):
    """Linear work doubles with the input; one scan per entry quadruples it. Every list
    at 10% and at 20% of its cap: at most 2.6 times the work."""
    small, large = request_work(name, 0.1), request_work(name, 0.2)
    assert large <= 2.6 * small, f"{name}: {small:,} operations at 10% of the caps, {large:,} at 20%"


def test_the_work_count_sees_a_scan_per_entry():
    """The measure itself: ``sorted(key=list.index)`` (the factoids kind's old
    ordering of marks) is counted as quadratic, a dict lookup as linear."""

    def by_index(n: int) -> int:
        ids = counted([f"f{k}" for k in range(n)])
        marks = counted([f"f{k}" for k in reversed(range(n))])
        return work(lambda: sorted(marks, key=ids.index))

    def by_position(n: int) -> int:
        ids = counted([f"f{k}" for k in range(n)])
        marks = counted([f"f{k}" for k in reversed(range(n))])
        return work(lambda: sorted(marks, key={f: i for i, f in enumerate(ids)}.__getitem__))

    assert by_index(800) > 3.5 * by_index(400)
    assert by_position(800) <= 2.6 * by_position(400)


@pytest.mark.parametrize("name", NAMES)
def test_the_largest_allowed_payload_is_accepted(name):
    """Every list of the payload at its cap at once (the topic as large as that needs,
    within its own caps), within the byte cap: the largest payload the kind takes."""
    kind = KINDS[name].data
    wanted = {path: cap if path.startswith("payload.") else 1 for path, cap in kind.limits.lists.items()}
    data, payload = sized(name, wanted)
    cleaned = kind.clean_topic_data(data)
    assert payload_bytes(payload) <= kind.limits.payload_bytes
    kind.check_payload_size(payload)
    kind.clean_payload(payload, cleaned, complete=False, params=params_for(name))


# -- bytes --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_payload_over_the_byte_cap_is_refused_naming_the_payload(name):
    kind = KINDS[name].data
    cap = kind.limits.payload_bytes
    data, payload = sized(name, counts(name, 2))
    kind.check_payload_size(payload)
    padded = {**payload, "x": "a" * (cap - payload_bytes(payload) - len(',"x":""') + 1)}
    assert payload_bytes(padded) == cap + 1
    with pytest.raises(InvalidInput) as refused:
        kind.check_payload_size(padded)
    assert refused.value.field == "payload" and f"{cap:,} bytes" in refused.value.message


def test_the_api_refuses_a_draft_over_the_byte_cap_and_stores_nothing(people, campaign):
    topic = campaign.topics.first()
    cap = KINDS["pairs"].data.limits.payload_bytes
    payload = {"matches": {"c1": True}, "note": "n" * cap}
    signed_in = APIClient()  # a body over 64 KiB only from someone signed in (concord.security)
    signed_in.force_login(people["alice"])
    response = signed_in.put(
        f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/",
        {"payload": payload, "status": "draft", "version": 0},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "payload" and f"{cap:,} bytes" in response.json()["detail"]
    assert not topic.judgments.exists()
    saved = save_judgment(
        topic=topic, assessor=people["alice"], payload={"matches": {"c1": True}}, status="draft", version=0
    )
    assert saved.judgment.version == 1


# -- docs/security.md ---------------------------------------------------------------


def test_the_security_doc_states_every_cap_as_declared():
    """docs/security.md, Security: one row per kind with every cap (`path` n) and the payload's bytes."""
    readme = (ROOT / "docs" / "security.md").read_text()
    for name in NAMES:
        limits = KINDS[name].data.limits
        row = next((line for line in readme.splitlines() if line.startswith(f"| lists of `{name}` |")), None)
        assert row is not None, f"docs/security.md: no limits row for {name}"
        stated = dict(re.findall(r"`([\w.\[\]*]+)` ([\d,]+)", row))
        assert {p: int(n.replace(",", "")) for p, n in stated.items()} == dict(limits.lists), name
        assert f"{limits.payload_bytes // 2**20} MiB" in row, name
