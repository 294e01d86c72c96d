"""Hypothesis against every kind's validators (annotate/kinds/*.py).

Whatever a client sends, ``clean_topic_data`` and ``clean_payload`` return a
cleaned value or raise InvalidInput naming a field, never anything else
(anything else is a 500); and a cleaned value passes again unchanged.

Inputs are the right shape with some parts replaced by arbitrary JSON, so
most examples get deep into the checks and many are valid.
"""

from __future__ import annotations

import copy
import os

import pytest
from hostile_samples import PAYLOADS, TOPICS, hostile_text
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from concord.errors import InvalidInput
from kinds.registry import KINDS

# More for a deeper hunt: CONCORD_HYPOTHESIS_EXAMPLES=3000.
SETTINGS = settings(
    max_examples=int(os.environ.get("CONCORD_HYPOTHESIS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# JSON as a client can send it (no NaN or infinity: the parser refuses them).
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """``valid`` nine times in ten, arbitrary JSON otherwise."""
    return st.integers(0, 9).flatmap(lambda n: JSON if n == 0 else valid)


def ids_from(known: list[str]) -> st.SearchStrategy:
    """Mostly known ids; sometimes a new one, an id with white space or '/', hostile text
    (a lone surrogate, NUL, 200,001 characters, another normalisation form), or not a string."""
    return mostly(st.sampled_from(known) | st.text(max_size=6) | hostile_text())


def keys_from(known: list[str]) -> st.SearchStrategy:
    """Object keys: always strings in JSON."""
    return st.sampled_from(known) | st.text(max_size=6) | hostile_text()


def text() -> st.SearchStrategy:
    return mostly(st.text(max_size=20) | hostile_text())


def rarely(strategy: st.SearchStrategy, otherwise) -> st.SearchStrategy:
    """``strategy`` one time in ten, else just ``otherwise``."""
    return st.integers(0, 9).flatmap(lambda n: strategy if n == 0 else st.just(otherwise))


def obj(required: dict, optional: dict | None = None) -> st.SearchStrategy:
    """An object with these fields (optional ones may be missing); now and
    then with an unknown field added or a required one left out."""

    def build(fields: dict, extra: dict, drop: str | None) -> dict:
        return {key: value for key, value in {**fields, **extra}.items() if key != drop}

    extra = rarely(st.dictionaries(st.text(max_size=6), JSON, min_size=1, max_size=1), {})
    drop = rarely(st.sampled_from(sorted(required)), None) if required else st.none()
    return mostly(st.builds(build, st.fixed_dictionaries(required, optional=optional or {}), extra, drop))


def topic_ids(kind: str) -> dict[str, list[str]]:
    data = TOPICS[kind]
    return {
        "pairs": lambda: {"candidates": [c["id"] for c in data["candidates"]]},
        "ordering": lambda: {"items": [i["id"] for i in data["items"]]},
        "clustering": lambda: {
            "sentences": [s["id"] for s in data["sentences"]],
            "documents": [d["id"] for d in data["documents"]],
        },
        "nuggets": lambda: {
            "nuggets": [n["id"] for n in data["nuggets"]],
            "responses": [r["id"] for r in data["responses"]],
        },
        "factoids": lambda: {"sentences": [s["id"] for summary in data["summaries"] for s in summary["sentences"]]},
    }[kind]()


# -- payloads -----------------------------------------------------------------


#: Kinds with hand-written strategies below; any other kind is tested on its
#: own examples (kinds/<kind>/examples.py), mutated, so a new kind needs no row here.
HAND_WRITTEN = ("pairs", "ordering", "clustering", "nuggets", "factoids")


def from_examples(values) -> st.SearchStrategy:
    """One of a kind's example values with zero to two mutations, or arbitrary JSON."""
    mutations = st.lists(
        st.tuples(st.integers(0, 1000), st.sampled_from(["replace", "drop", "extra"]), JSON), max_size=2
    )
    return mostly(st.builds(mutate, st.sampled_from([copy.deepcopy(dict(value)) for value in values]), mutations))


def payloads(kind: str) -> st.SearchStrategy:
    if kind not in HAND_WRITTEN:
        return from_examples(KINDS[kind].examples.payloads)
    known = topic_ids(kind)
    if kind == "pairs":
        valid = st.dictionaries(keys_from(known["candidates"]), mostly(st.booleans()), max_size=5)
        return obj({"matches": mostly(valid)})
    if kind == "ordering":
        orders = st.permutations(known["items"]) | st.lists(ids_from(known["items"]), max_size=5)
        return obj({"order": mostly(orders)})
    if kind == "clustering":
        sentence = ids_from(known["sentences"])
        clusters = st.lists(mostly(st.lists(sentence, max_size=3)), max_size=3)
        partitions = st.permutations(known["sentences"]).flatmap(
            lambda order: st.integers(1, len(order) - 1).map(lambda cut: [list(order[:cut]), list(order[cut:])])
        )
        return obj({"clusters": mostly(partitions | clusters)}, {"descriptions": mostly(st.lists(text(), max_size=3))})
    if kind == "nuggets":
        labels = st.dictionaries(keys_from(known["nuggets"]), mostly(st.sampled_from(["vital", "okay"])), max_size=4)
        matches = st.dictionaries(
            keys_from(known["responses"]), mostly(st.lists(ids_from(known["nuggets"]), max_size=4)), max_size=3
        )
        return obj({}, {"labels": mostly(labels), "matches": mostly(matches)})
    if kind == "factoids":
        factoid_ids = ["F1", "F2", "F3"]
        factoids = st.lists(obj({"id": ids_from(factoid_ids), "text": text()}), max_size=3)
        marks = st.dictionaries(
            keys_from(known["sentences"]), mostly(st.lists(ids_from(factoid_ids), max_size=3)), max_size=4
        )
        return obj({"factoids": mostly(factoids), "marks": mostly(marks)})
    raise AssertionError(f"no payload strategy for the kind {kind!r}: add one")


def params(kind: str) -> st.SearchStrategy:
    return {
        "pairs": st.none()
        | st.fixed_dictionaries({"scope": st.lists(st.sampled_from(topic_ids("pairs")["candidates"]))}),
        "clustering": st.none() | st.fixed_dictionaries({"rules": st.sampled_from(["warn", "block"])}),
        "nuggets": st.none()
        | st.fixed_dictionaries({"tasks": st.sampled_from([["labels"], ["matches"], ["labels", "matches"]])}),
    }.get(kind, st.none() | st.just(dict(KINDS[kind].examples.params)))


def check_clean(clean, value, *args, **kwargs):
    """Run a validator: a cleaned value, or InvalidInput with a field; the cleaned value is a fixed point."""
    original = copy.deepcopy(value)
    try:
        cleaned = clean(value, *args, **kwargs)
    except InvalidInput as error:
        assert isinstance(error.field, str) and error.field, error
        assert isinstance(error.message, str) and error.message, error
        return None
    assert value == original, "the validator changed its input"
    assert isinstance(cleaned, dict)
    again = clean(copy.deepcopy(cleaned), *args, **kwargs)
    assert again == cleaned, "cleaning a cleaned value changed it"
    return cleaned


# Known 500s in the kinds (reported; remove an entry when its kind is fixed
# and the strict xfail turns into a failure).
KNOWN_CRASHES: dict[str, str] = {}  # nuggets and factoids ids in lists: fixed by require_ids


def kinds_with_known_crashes(known: dict[str, str]):
    return [
        pytest.param(kind, marks=pytest.mark.xfail(strict=True, raises=TypeError, reason=known[kind]))
        if kind in known
        else kind
        for kind in sorted(KINDS)
    ]


def test_every_kind_has_strategies():
    for kind in KINDS:
        assert kind in TOPICS and kind in PAYLOADS, (
            f"tests/hostile/conftest.py: add a sample topic and payload for {kind!r}"
        )
        payloads(kind)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_sample_payloads_are_valid_fixed_points(kind):
    implementation = KINDS[kind].data
    topic = implementation.clean_topic_data(TOPICS[kind])
    for complete in (False, True):
        cleaned = check_clean(
            implementation.clean_payload,
            PAYLOADS[kind],
            topic,
            complete=complete,
            params=dict(KINDS[kind].examples.params) or None,
        )
        assert cleaned is not None


@pytest.mark.parametrize("kind", kinds_with_known_crashes(KNOWN_CRASHES))
def test_payload_validators_fail_only_with_invalid_input(kind):
    implementation = KINDS[kind].data
    topic = implementation.clean_topic_data(TOPICS[kind])

    @SETTINGS
    @given(payload=payloads(kind), complete=st.booleans(), options=params(kind))
    @example(payload={"matches": {"r1": [{}]}}, complete=False, options=None)  # nuggets
    @example(payload={"factoids": [], "marks": {"m1s1": [[]]}}, complete=False, options=None)  # factoids
    def check(payload, complete, options):
        check_clean(implementation.clean_payload, payload, topic, complete=complete, params=options)

    check()


# -- topic data ---------------------------------------------------------------

# "." and ".." are no ids (require_id: a link to them resolves elsewhere).
ID = st.text(alphabet="abxyz019-_.", min_size=1, max_size=4).filter(lambda i: i not in (".", ".."))
WORDS = st.text(alphabet="abc xyz", min_size=1, max_size=12).filter(str.strip)


def unique_ids(min_size: int, max_size: int) -> st.SearchStrategy:
    return st.lists(ID, min_size=min_size, max_size=max_size, unique=True)


def valid_topic_data(kind: str) -> st.SearchStrategy:
    if kind not in HAND_WRITTEN:
        return st.just(copy.deepcopy(dict(KINDS[kind].examples.topic)))
    if kind == "pairs":
        return st.builds(
            lambda q, ids, runs: {
                "query": q,
                "candidates": [
                    {"id": c, "text": f"text {c}", **({"runs": runs} if i % 2 else {})} for i, c in enumerate(ids)
                ],
            },
            WORDS,
            unique_ids(1, 4),
            st.lists(ID, max_size=2),
        )
    if kind == "ordering":
        return unique_ids(2, 4).map(lambda ids: {"items": [{"id": i, "text": f"item {i}"} for i in ids]})
    if kind == "clustering":

        def build(docs, sentences, homes):
            return {
                "documents": [{"id": d} for d in docs],
                "sentences": [
                    {"id": s, "document": docs[h % len(docs)], "position": p, "text": f"sentence {s}"}
                    for p, (s, h) in enumerate(zip(sentences, homes))
                ],
            }

        return st.builds(build, unique_ids(1, 3), unique_ids(2, 5), st.lists(st.integers(0, 5), min_size=5, max_size=5))
    if kind == "nuggets":
        return st.builds(
            lambda target, nuggets, responses, labelled: {
                "target": target,
                "nuggets": [
                    {"id": n, "text": f"nugget {n}", **({"label": "vital"} if labelled else {})} for n in nuggets
                ],
                **(
                    {"responses": [{"id": r, "run": "run-" + r, "text": f"response {r}"} for r in responses]}
                    if responses
                    else {}
                ),
            },
            WORDS,
            unique_ids(1, 4),
            unique_ids(0, 3),
            st.booleans(),
        )
    if kind == "factoids":

        def build(sentences, cut, by_run):
            parts = [sentences[:cut], sentences[cut:]] if 0 < cut < len(sentences) else [sentences]
            return {
                "summaries": [
                    {
                        "id": f"S{i}",
                        ("run" if by_run and i else "author"): f"who-{i}",
                        "sentences": [{"id": s, "text": f"sentence {s}"} for s in part],
                    }
                    for i, part in enumerate(parts)
                ]
            }

        return st.builds(build, unique_ids(1, 5), st.integers(0, 4), st.booleans())
    raise AssertionError(f"no topic strategy for the kind {kind!r}: add one")


def paths(value, prefix=()):
    """Every place in a JSON tree, as a path of keys and indices."""
    yield prefix
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from paths(child, (*prefix, key))


def mutate(value, mutations):
    """Replace a node with arbitrary JSON, drop it, or add an unknown field beside it."""
    value = copy.deepcopy(value)
    for where, how, junk in mutations:
        places = [p for p in paths(value) if p]
        if not places:
            return junk
        *parent_path, key = places[where % len(places)]
        parent = value
        for step in parent_path:
            parent = parent[step]
        if how == "replace":
            parent[key] = junk
        elif how == "drop":
            del parent[key]
        elif isinstance(parent, dict):
            parent[f"extra{where % 3}"] = junk
        else:
            parent.append(junk)
    return value


def topic_data(kind: str) -> st.SearchStrategy:
    """A valid topic with zero to two mutations, or arbitrary JSON."""
    mutations = st.lists(
        st.tuples(st.integers(0, 1000), st.sampled_from(["replace", "drop", "extra"]), JSON), max_size=2
    )
    return mostly(st.builds(mutate, valid_topic_data(kind), mutations))


KNOWN_TOPIC_CRASHES: dict[str, str] = {}  # clustering document ids: fixed


@pytest.mark.parametrize("kind", kinds_with_known_crashes(KNOWN_TOPIC_CRASHES))
def test_topic_validators_fail_only_with_invalid_input(kind):
    implementation = KINDS[kind].data

    @SETTINGS
    @given(data=topic_data(kind))
    @example(
        data={"documents": [{"id": "d1"}], "sentences": [{"id": "s", "document": [], "position": 0, "text": "x"}] * 2}
    )
    def check(data):
        check_clean(implementation.clean_topic_data, data)

    check()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_payloads_against_generated_topics(kind):
    """Valid generated topics with the sample's payload shapes: still only InvalidInput."""
    implementation = KINDS[kind].data

    @SETTINGS
    @given(data=topic_data(kind), complete=st.booleans())
    def check(data, complete):
        try:
            topic = implementation.clean_topic_data(data)
        except InvalidInput:
            return
        check_clean(implementation.clean_payload, PAYLOADS[kind], topic, complete=complete)
        check_clean(implementation.clean_payload, implementation.empty_payload(topic), topic, complete=complete)
        check_clean(
            implementation.clean_payload, implementation.initial_payload(topic, seed="s"), topic, complete=False
        )

    check()
