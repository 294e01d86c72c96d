"""The preference kind's topics, payloads, sides and params: every refusal naming its field."""

import pytest

from concord.errors import InvalidInput
from kinds.base import ASSESSOR_SEED
from kinds.preference.allocation import uniform_share
from kinds.preference.data import PreferenceKind, pair_ids, sides

KIND = PreferenceKind()
TOPIC = {
    "prompt": "Name a prime.",
    "outputs": [
        {"system": "gpt", "text": "7"},
        {"system": "llama", "text": "9"},
        {"system": "mistral", "text": "2"},
    ],
}


def params(**given):
    return KIND.params_schema.clean(given)


def verdict(pair="1-2", choice="left", **more):
    return {"pair": pair, "choice": choice, **more}


def test_a_topic_keeps_its_prompt_and_outputs_in_order():
    assert KIND.clean_topic_data(TOPIC) == TOPIC
    assert KIND.items(TOPIC) == ["1-2", "1-3", "2-3"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"prompt": "p", "outputs": [{"system": "a", "text": "x"}]}, "data.outputs"),
        (
            {"prompt": "p", "outputs": [{"system": "a", "text": "x"}, {"system": "a", "text": "y"}]},
            "data.outputs[1].system",
        ),
        ({"prompt": "", "outputs": TOPIC["outputs"]}, "data.prompt"),
        (
            {"prompt": "p", "outputs": [{"system": "a b", "text": "x"}, {"system": "c", "text": "y"}]},
            "data.outputs[0].system",
        ),
        (
            {"prompt": "p", "outputs": [{"system": "a", "text": 3}, {"system": "c", "text": "y"}]},
            "data.outputs[0].text",
        ),
        ({"prompt": "p", "outputs": TOPIC["outputs"], "model": "x"}, "data.model"),
        ({"prompt": "p", "outputs": [{"system": f"s{k}", "text": ""} for k in range(21)]}, "data.outputs"),
    ],
)
def test_a_bad_topic_is_refused_naming_the_field(data, field):
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_topic_data(data)
    assert refused.value.field == field


def test_the_assessor_view_shows_outputs_by_position_never_the_systems():
    view = KIND.assessor_view(TOPIC)
    assert view == {
        "prompt": "Name a prime.",
        "outputs": [{"id": 1, "text": "7"}, {"id": 2, "text": "9"}, {"id": 3, "text": "2"}],
        "pairs": ["1-2", "1-3", "2-3"],
    }
    assert "gpt" not in repr(view) and "llama" not in repr(view)
    scoped = KIND.assessor_view(TOPIC, ["2-3"])
    assert scoped["pairs"] == ["2-3"] and [o["id"] for o in scoped["outputs"]] == [2, 3]


def test_a_flag_names_a_pair_by_the_outputs_the_page_shows_for_it():
    long = {"prompt": "p", "outputs": [{"system": "gpt", "text": "x" * 50}, *TOPIC["outputs"][1:]]}
    assert KIND.flag_targets(KIND.assessor_view(long)) == [
        ("1-2", "x" * 39 + "\u2026 / 9"),
        ("1-3", "x" * 39 + "\u2026 / 2"),
        ("2-3", "9 / 2"),
    ]
    assert KIND.flag_targets(KIND.assessor_view(TOPIC, ["2-3"])) == [("2-3", "9 / 2")]


def test_sides_are_random_per_assessor_and_stable():
    seen = {sides(f"{user}:5", "1-2") for user in range(30)}
    assert seen == {(1, 2), (2, 1)}
    assert all(sides("4:5", pair) == sides("4:5", pair) for pair in pair_ids(6))


def test_an_assessors_own_save_records_the_sides_the_server_showed():
    seed = "4:5"
    shown = sides(seed, "1-2")
    saved = KIND.clean_payload(
        {"verdicts": [verdict()]}, TOPIC, complete=False, params={**params(), ASSESSOR_SEED: seed}
    )
    assert saved["verdicts"] == [{"pair": "1-2", "left": shown[0], "right": shown[1], "choice": "left"}]
    # sent back as stored: accepted
    assert KIND.clean_payload(saved, TOPIC, complete=False, params={**params(), ASSESSOR_SEED: seed}) == saved


def test_a_client_cannot_claim_other_sides_than_it_was_shown():
    seed = "4:5"
    left, right = sides(seed, "1-2")
    swapped = verdict(left=right, right=left)
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [swapped]}, TOPIC, complete=False, params={**params(), ASSESSOR_SEED: seed})
    assert refused.value.field == "payload.verdicts[0].left" and "shown" in refused.value.message
    # an import (no seed) gives the sides itself
    imported = KIND.clean_payload({"verdicts": [swapped]}, TOPIC, complete=False, params=params())
    assert (imported["verdicts"][0]["left"], imported["verdicts"][0]["right"]) == (right, left)


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        (verdict(pair="1-4"), "payload.verdicts[0].pair"),
        (verdict(choice="A"), "payload.verdicts[0].choice"),
        (verdict(left=1, right=3), "payload.verdicts[0].left"),
        (verdict(left=1, right=1), "payload.verdicts[0].left"),
        (verdict(left=True, right=2), "payload.verdicts[0].left"),
        (verdict(reason=5), "payload.verdicts[0].reason"),
        (verdict(reason="x" * 2001), "payload.verdicts[0].reason"),
        ({"pair": "1-2"}, "payload.verdicts[0].choice"),
        ({**verdict(), "system": "gpt"}, "payload.verdicts[0].system"),
    ],
)
def test_a_bad_verdict_is_refused_naming_the_field(entry, field):
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [entry]}, TOPIC, complete=False, params=params())
    assert refused.value.field == field


def test_both_bad_and_reasons_only_where_the_campaign_offers_them():
    off = params(both_bad=False, reasons=False)
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [verdict(choice="both_bad")]}, TOPIC, complete=False, params=off)
    assert refused.value.message == "expected one of left, right, tie, got 'both_bad'"
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [verdict(reason="because")]}, TOPIC, complete=False, params=off)
    assert refused.value.field == "payload.verdicts[0].reason"
    kept = KIND.clean_payload({"verdicts": [verdict(reason="because")]}, TOPIC, complete=False, params=params())
    assert kept["verdicts"][0]["reason"] == "because"


def test_an_assessors_submission_judges_every_pair_of_the_assignment():
    own = {**params(), ASSESSOR_SEED: "1:t1"}
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [verdict()]}, TOPIC, complete=True, params=own)
    assert refused.value.field == "payload.verdicts" and "1-3, 2-3" in refused.value.message
    scoped = {**own, "scope": ["1-2"]}
    assert KIND.clean_payload({"verdicts": [verdict()]}, TOPIC, complete=True, params=scoped)
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": [verdict(pair="2-3")]}, TOPIC, complete=False, params=scoped)
    assert refused.value.message == "not assigned to you"


def test_an_assessor_judges_a_pair_once_an_imported_rater_again():
    twice = {"verdicts": [verdict(), verdict(choice="tie")]}
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload(twice, TOPIC, complete=False, params={**params(), ASSESSOR_SEED: "1:1"})
    assert refused.value.field == "payload.verdicts[1].pair"
    assert len(KIND.clean_payload(twice, TOPIC, complete=False, params=params())["verdicts"]) == 2
    eleven = {"verdicts": [verdict() for _ in range(11)]}
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload(eleven, TOPIC, complete=False, params=params())
    assert refused.value.field == "payload.verdicts[10].pair"


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"tie_model": "elo"}, "params.tie_model"),
        ({"allocation": "random"}, "params.allocation"),
        ({"allocation": "active"}, "params.pairs_per_assignment"),
        ({"pairs_per_assignment": 0}, "params.pairs_per_assignment"),
        ({"anchor": ""}, "params.anchor"),
        ({"anchor_rating": "1000"}, "params.anchor_rating"),
        ({"both_bad": "yes"}, "params.both_bad"),
        ({"assessor_seed": "1:1"}, "params.assessor_seed"),
    ],
)
def test_bad_params_are_refused_naming_the_field(given, field):
    with pytest.raises(InvalidInput) as refused:
        params(**given)
    assert refused.value.field == field


def test_pairs_per_assignment_spreads_the_pairs_evenly_over_assessors():
    pairs = pair_ids(5)  # 10 pairs
    shares = [uniform_share(pairs, 3, slot=k, seed="c:t") for k in range(10)]
    assert all(len(share) == 3 for share in shares)
    counts = {pair: sum(pair in share for share in shares) for pair in pairs}
    assert set(counts.values()) == {3}
    assert KIND.assignment_items(TOPIC, params(pairs_per_assignment=2), slot=0, seed="s") is not None
    assert KIND.assignment_items(TOPIC, params(pairs_per_assignment=3), slot=0, seed="s") is None
    assert KIND.assignment_items(TOPIC, params(), slot=0, seed="s") is None


def test_an_imported_raters_judgment_holds_the_pairs_they_judged():
    assert KIND.clean_payload({"verdicts": [verdict()]}, TOPIC, complete=True, params=params())
    with pytest.raises(InvalidInput) as refused:
        KIND.clean_payload({"verdicts": []}, TOPIC, complete=True, params=params())
    assert refused.value.field == "payload.verdicts"


# -- control items: the known answer names the system that should win -----------------


def test_a_control_answer_names_the_winning_system_and_is_stored_as_its_position():
    assert KIND.clean_control_answer("mistral", TOPIC, "1-3", params(), field="controls.1-3") == 3
    assert KIND.clean_control_answer(" gpt ", TOPIC, "1-3", params(), field="controls.1-3") == 1
    assert KIND.clean_control_answer("Tie", TOPIC, "2-3", params(), field="controls.2-3") == "tie"


@pytest.mark.parametrize(
    ("item", "value", "message"),
    [("1-3", "llama", "not a system of pair 1-3"), ("1-4", "gpt", "no pair '1-4'"), ("1-2", "left", "not a system")],
)
def test_a_control_answer_off_the_pair_is_refused_naming_the_field(item, value, message):
    with pytest.raises(InvalidInput, match=message) as error:
        KIND.clean_control_answer(value, TOPIC, item, params(), field="topics[0].controls.x")
    assert error.value.field == "topics[0].controls.x"


def test_a_verdict_reads_as_its_winners_position_whichever_side_it_was_shown_on():
    payload = {
        "verdicts": [
            {"pair": "1-3", "left": 3, "right": 1, "choice": "left"},
            {"pair": "1-2", "left": 1, "right": 2, "choice": "right"},
            {"pair": "2-3", "left": 2, "right": 3, "choice": "both_bad"},
        ]
    }
    assert KIND.control_labels(payload) == {"1-3": 3, "1-2": 2, "2-3": "tie"}
    known = KIND.clean_control_answer("mistral", TOPIC, "1-3", params(), field="f")
    assert KIND.control_credit(known, KIND.control_labels(payload)["1-3"], params()) == 1.0
    assert KIND.control_credit(known, 1, params()) == 0.0
    assert KIND.takes_controls
