"""Which kinds take control items (known answers), over the registry: a kind that takes them
declares the control params and reads an example payload's answers; the others refuse a known
answer with a message naming the field."""

import pytest

from concord.errors import InvalidInput
from kinds.base import CONTROL_PARAMS
from kinds.registry import KINDS

NAMES = sorted(KINDS)
TAKING = {"labels", "pairs", "relevance", "nuggets", "preference"}


def test_the_kinds_that_take_controls():
    assert {name for name in NAMES if KINDS[name].data.takes_controls} == TAKING


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_declares_the_control_params_exactly_when_it_takes_controls(name):
    kind = KINDS[name].data
    declared = set(kind.params_schema.params) & set(CONTROL_PARAMS)
    assert declared == (set(CONTROL_PARAMS) if kind.takes_controls else set())


@pytest.mark.parametrize("name", sorted(set(NAMES) - TAKING))
def test_a_kind_without_known_answers_refuses_them_naming_the_field(name):
    spec = KINDS[name]
    with pytest.raises(InvalidInput, match="cannot be checked against known answers") as error:
        spec.data.clean_control_answer("x", spec.examples.topic, "i1", {}, field="topics[0].controls.i1")
    assert error.value.field == "topics[0].controls.i1"


@pytest.mark.parametrize("name", sorted(TAKING))
def test_an_example_payload_reads_as_answers_each_of_which_cleans_back_to_itself(name):
    """What ``control_labels`` reads of a judgment is what ``clean_control_answer`` stores, so a
    control's known answer compares with an assessor's answer (``control_credit`` 1)."""
    spec = KINDS[name]
    params = spec.params.clean(dict(spec.examples.params))
    topic = spec.data.clean_topic_data(spec.examples.topic)
    answers = {}
    for payload in spec.examples.payloads:
        answers.update(spec.data.control_labels(spec.data.clean_payload(payload, topic, complete=False, params=params)))
    assert answers
    for item, answer in answers.items():
        written = answer if not isinstance(answer, int) or name != "preference" else None
        if written is None:  # preference: the known answer names the system, stored as its position
            written = topic["outputs"][answer - 1]["system"]
        known = spec.data.clean_control_answer(written, topic, item, params, field="f")
        assert known == answer
        assert spec.data.control_credit(known, answer, params) == 1.0
