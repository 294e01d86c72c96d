"""The labels kind's topics, payloads and params: every scale level, "can't tell", numbers
spelled the scale's way, and every refusal naming its field."""

import pytest

from concord.errors import InvalidInput
from kinds.labels.data import LabelsKind, Scale, choices, judge_context
from kinds.registry import KINDS

KIND = LabelsKind()
TOPIC = {"items": [{"id": "i1", "text": "one"}, {"id": "i2", "text": "two"}]}


def params(**given):
    return KINDS["labels"].params.clean(given)


def test_the_default_scale_is_two_categories_without_cant_tell():
    scale = Scale.of(params())
    assert (scale.level, scale.values, scale.cant_tell, scale.weights) == ("nominal", ["yes", "no"], False, "identity")


def test_an_ordered_scale_weighs_quadratically_unless_told():
    assert Scale.of(params(level="ordinal", categories=["lo", "mid", "hi"])).weights == "quadratic"
    assert Scale.of(params(level="ordinal", categories=["lo", "hi"], weights="linear")).weights == "linear"


@pytest.mark.parametrize(
    ("given", "field", "message"),
    [
        ({"level": "interval", "minimum": 5, "maximum": 1}, "params.maximum", "more than the minimum"),
        ({"level": "interval", "minimum": 0, "maximum": 1, "step": 0.3}, "params.step", "from 0 to 1 exactly"),
        ({"level": "ratio", "minimum": -1, "maximum": 1}, "params.minimum", "true zero"),
        ({"level": "interval", "minimum": 0, "maximum": 10, "step": 0.001}, "params.step", "at most 1001 values"),
        ({"categories": ["a"]}, "params.categories", ""),
        ({"categories": ["a", "a"]}, "params.categories", ""),
        ({"level": "binary"}, "params.level", "nominal"),
        ({"level": "ratio", "minimum": 0, "maximum": 4, "weights": "ratio"}, "params.weights", "above 0"),
        (
            {"level": "interval", "minimum": -3, "maximum": 3, "step": 2, "weights": "ratio"},
            "params.weights",
            "above 0",
        ),
    ],
)
def test_bad_params_are_refused_naming_the_field(given, field, message):
    with pytest.raises(InvalidInput) as error:
        params(**given)
    assert error.value.field.startswith(field) and message in error.value.message


THREE = {"level": "ordinal", "categories": ["lo", "mid", "hi"]}
OWN = [[1, 0.5, 0], [0.5, 1, 0.25], [0, 0.25, 1]]


def test_custom_weights_are_a_matrix_over_the_scales_labels():
    scale = Scale.of(params(**THREE, weights=OWN))
    assert (scale.weights, scale.matrix) == ("custom", [[1.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 1.0]])
    numeric = Scale.of(params(level="interval", minimum=1, maximum=3, weights=OWN))
    assert numeric.matrix == scale.matrix


@pytest.mark.parametrize(
    ("given", "field", "message"),
    [
        # not square of the scale's size
        ({**THREE, "weights": [[1, 0.5], [0.5, 1]]}, "params.weights", "expected 3 rows of 3 numbers"),
        ({"level": "interval", "minimum": 1, "maximum": 4, "weights": OWN}, "params.weights", "(1, 2, 3, 4), got 3"),
        ({**THREE, "weights": [[1, 0.5, 0], [0.5, 1], [0, 0.25, 1]]}, "params.weights[1]", "row of 3 numbers"),
        ({**THREE, "weights": []}, "params.weights", "1 to 32 rows"),
        ({**THREE, "weights": [[1]] * 33}, "params.weights", "1 to 32 rows"),
        # not symmetric
        ({**THREE, "weights": [[1, 0.5, 0], [0.4, 1, 0.25], [0, 0.25, 1]]}, "params.weights[1][0]", "symmetric"),
        ({**THREE, "weights": [[1, 0.5, 0], [0.5, 1, 0.25], [0, 0.2, 1]]}, "params.weights[2][1]", "symmetric"),
        # diagonal not 1
        ({**THREE, "weights": [[1, 0.5, 0], [0.5, 0.9, 0.25], [0, 0.25, 1]]}, "params.weights[1][1]", "diagonal"),
        # values outside [0, 1], or not numbers
        ({**THREE, "weights": [[1, 0.5, -0.1], [0.5, 1, 0.25], [-0.1, 0.25, 1]]}, "params.weights[0][2]", "0 to 1"),
        ({**THREE, "weights": [[1, 1.5, 0], [1.5, 1, 0.25], [0, 0.25, 1]]}, "params.weights[0][1]", "0 to 1"),
        ({**THREE, "weights": [[1, "a", 0], [0.5, 1, 0.25], [0, 0.25, 1]]}, "params.weights[0][1]", "a string"),
        ({**THREE, "weights": [[1, True, 0], [0.5, 1, 0.25], [0, 0.25, 1]]}, "params.weights[0][1]", "a boolean"),
        ({**THREE, "weights": "custom"}, "params.weights", "a square matrix"),
        # a scale too long for a matrix: a named weighting
        ({"level": "interval", "minimum": 0, "maximum": 40, "weights": [[1]]}, "params.weights", "at most 32 labels"),
    ],
)
def test_bad_custom_weights_are_refused_naming_the_cell(given, field, message):
    with pytest.raises(InvalidInput) as error:
        params(**given)
    assert error.value.field == field and message in error.value.message


def test_ratio_weights_take_a_scale_above_zero_and_any_ordered_categories():
    """Ratio weights divide by the sum of two labels' numbers (Gwet 2014, ch. 3): a numeric
    scale from 1 up has them; categories weigh their positions 1..q."""
    assert Scale.of(params(level="ratio", minimum=1, maximum=4, weights="ratio")).weights == "ratio"
    assert Scale.of(params(level="ordinal", categories=["lo", "mid", "hi"], weights="ratio")).weights == "ratio"


def test_categories_are_checked_and_a_topic_is_complete_when_every_item_has_one():
    p = params(categories=["cat", "dog"])
    assert KIND.clean_payload({"labels": {"i2": "dog", "i1": "cat"}}, TOPIC, complete=True, params=p) == {
        "labels": {"i1": "cat", "i2": "dog"}
    }
    with pytest.raises(InvalidInput, match="not a category") as error:
        KIND.clean_payload({"labels": {"i1": "bird"}}, TOPIC, complete=False, params=p)
    assert error.value.field == "payload.labels.i1"
    with pytest.raises(InvalidInput, match="1 item") as error:
        KIND.clean_payload({"labels": {"i1": "cat"}}, TOPIC, complete=True, params=p)
    with pytest.raises(InvalidInput, match="unknown item") as error:
        KIND.clean_payload({"labels": {"i9": "cat"}}, TOPIC, complete=False, params=p)


def test_cant_tell_is_null_and_only_where_the_campaign_allows_it():
    with pytest.raises(InvalidInput, match="does not allow") as error:
        KIND.clean_payload({"labels": {"i1": None}}, TOPIC, complete=False, params=params())
    assert error.value.field == "payload.labels.i1"
    allowed = params(cant_tell=True)
    assert KIND.clean_payload({"labels": {"i1": None, "i2": "yes"}}, TOPIC, complete=True, params=allowed) == {
        "labels": {"i1": None, "i2": "yes"}
    }
    assert KIND.item_labels({"labels": {"i1": None, "i2": "yes"}}) == {"i2": "yes"}


def test_numbers_are_on_the_scale_and_stored_as_it_spells_them():
    p = params(level="interval", minimum=0, maximum=2, step=0.5)
    assert Scale.of(p).values == [0, 0.5, 1, 1.5, 2]
    stored = KIND.clean_payload({"labels": {"i1": 1.0, "i2": 1.5}}, TOPIC, complete=True, params=p)
    assert stored == {"labels": {"i1": 1, "i2": 1.5}} and isinstance(stored["labels"]["i1"], int)
    with pytest.raises(InvalidInput, match="0.7 is not on the scale"):
        KIND.clean_payload({"labels": {"i1": 0.7}}, TOPIC, complete=False, params=p)
    for bad in ("1", True, float("nan")):
        with pytest.raises(InvalidInput, match="expected a number"):
            KIND.clean_payload({"labels": {"i1": bad}}, TOPIC, complete=False, params=p)


def test_an_items_image_and_link_are_web_addresses_only():
    data = {"items": [{"id": "i1", "text": "x", "image": "https://example.org/a.png", "link": "http://example.org"}]}
    assert KIND.clean_topic_data(data) == data
    for bad in ("javascript:alert(1)", "data:image/png;base64,AA", "https://exa mple.org", "//example.org/a.png"):
        with pytest.raises(InvalidInput, match="http") as error:
            KIND.clean_topic_data({"items": [{"id": "i1", "text": "x", "link": bad}]})
        assert error.value.field == "data.items[0].link"


def test_the_judging_page_offers_a_key_per_label_and_cant_tell_on_a_free_key():
    nine_plus = Scale.of(params(categories=[f"c{k}" for k in range(12)]))
    keys = [c["key"] for c in choices(nine_plus)]
    assert keys == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c"]
    zero_to_four = params(level="interval", minimum=0, maximum=4, cant_tell=True)
    assert [c["key"] for c in choices(Scale.of(zero_to_four))] == ["0", "1", "2", "3", "4"]

    class Campaign:
        params = zero_to_four

    assert judge_context(Campaign, None, None)["cant_tell_key"] == "x"
    Campaign.params = params(cant_tell=True)
    assert judge_context(Campaign, None, None)["cant_tell_key"] == "0"
