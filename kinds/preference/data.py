"""Preference: which of two systems' outputs to one prompt is better, side by side.

A topic is a prompt with the outputs of two or more systems; its items are the
unordered pairs of its outputs, each a side-by-side comparison (Chiang et al.
2024, "Chatbot Arena", ICML 2024; Zheng et al. 2023, "Judging LLM-as-a-Judge
with MT-Bench and Chatbot Arena", NeurIPS 2023 Datasets and Benchmarks). The
assessor sees the prompt and the two outputs as "A" (left) and "B" (right),
never the systems' names, and chooses A, B, a tie or (where the campaign allows
it) both bad, with an optional reason.

Output ``k`` of a topic (1-based, in the topic's order) is known to assessors by
its position only; a pair's id names its two positions, lowest first (``"1-3"``).
Which output of a pair is on the left is randomised per assessor, topic and pair
(:func:`sides`, a hash of the assessor's seed ``kinds.base.assessor_seed`` and the
pair), so a reload shows the same sides, and the sides shown are recorded in the
verdict: on an assessor's own save the server fills them in and refuses any
others (a client cannot claim sides it was not shown); an import or a gold gives
them (a battles file's ``system_a`` is the left one).

Topic data: ``{"prompt": text, "outputs": [{"system": id, "text": text}]}`` (2 to
:data:`MAX_OUTPUTS` outputs of distinct systems). Payload: ``{"verdicts": [{"pair":
pair id, "left": position, "right": position, "choice": "left" | "right" | "tie" |
"both_bad", "reason"?: text}]}``, one verdict per pair judged; an imported rater
may judge a pair again (at most :data:`MAX_REPEATS` times in one topic: a model
judge asked with the sides swapped, a repeated battle), an assessor judging in the
browser once. An assessor's own submission is complete when every pair of their
assignment has a verdict; a payload from outside (an import of battles, a restored
backup), with one verdict or more: a battle's rater judged the pairs they judged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from concord.params import Bool, Choice, Float, Int, ParamsSchema, Str
from kinds.base import (
    ASSESSOR_SEED,
    InvalidInput,
    Kind,
    Limits,
    assessor_seed,
    control_params,
    demo_param,
    design_param,
    duplicate_id,
    id_key,
    interval_params,
    listing,
    require_id,
    require_list,
    require_object,
    require_text,
    type_name,
)
from kinds.preference.allocation import uniform_share

#: The choices of a verdict, in the order of kinds.preference.stats' outcome codes (LEFT, RIGHT, TIE, BOTH_BAD).
CHOICES = ("left", "right", "tie", "both_bad")
#: The most outputs (systems) of one topic: 190 pairs.
MAX_OUTPUTS = 20
#: The most verdicts of one pair in one payload (an imported rater's repeats).
MAX_REPEATS = 10
#: The longest reason an assessor gives for a verdict.
REASON_MAX_LENGTH = 2000
#: The longest prompt and output.
TEXT_MAX_LENGTH = 100_000
TIE_MODELS = ("half", "davidson")
#: A control's known answer where neither output should win (a tie or both bad).
TIE = "tie"
ALLOCATIONS = ("uniform", "active", "design")
#: The allocations that draw each assessor's pairs when they ask for work (kinds/preference/active.py).
ON_REQUEST = ("active", "design")


def pair_id(first: int, second: int) -> str:
    """The id of the pair of outputs ``first`` and ``second`` (1-based positions, any order).

    >>> pair_id(3, 1)
    '1-3'
    """
    low, high = sorted((first, second))
    return f"{low}-{high}"


def pair_ids(n_outputs: int) -> list[str]:
    """Every pair of ``n_outputs`` outputs, in order (1-2, 1-3, ..., 2-3, ...).

    >>> pair_ids(3)
    ['1-2', '1-3', '2-3']
    """
    return [pair_id(i, j) for i, j in combinations(range(1, n_outputs + 1), 2)]


def positions(pair: str) -> tuple[int, int]:
    """The two positions a pair id names, lowest first.

    >>> positions("2-5")
    (2, 5)
    """
    low, _, high = pair.partition("-")
    return int(low), int(high)


def sides(seed: str, pair: str) -> tuple[int, int]:
    """The (left, right) positions an assessor is shown for ``pair``: a hash of their seed
    (``kinds.base.assessor_seed``: assessor and topic) and the pair, so each assessor
    gets each pair's sides at random, and the same ones on every reload.

    >>> sides("7:3", "1-2") in ((1, 2), (2, 1)), sides("7:3", "1-2") == sides("7:3", "1-2")
    (True, True)
    >>> len({sides(f"{user}:3", "1-2") for user in range(20)})
    2
    """
    low, high = positions(pair)
    digest = hashlib.blake2b(f"{seed}|{pair}".encode(), digest_size=8, person=b"concord-sides").digest()
    return (high, low) if digest[0] & 1 else (low, high)


#: The characters of each output a flag's target shows (the page's menu truncates the whole to 70).
FLAG_TEXT_LENGTH = 40


def _beginning(text: str) -> str:
    """The first FLAG_TEXT_LENGTH characters of ``text``, an ellipsis where cut."""
    return text if len(text) <= FLAG_TEXT_LENGTH else text[: FLAG_TEXT_LENGTH - 1] + "\u2026"


class PreferenceParams(ParamsSchema):
    """The campaign params (:class:`PreferenceKind`), and the one check across them: the active
    allocation draws its pairs one at a time, so it needs to know how many an assignment holds."""

    def clean(
        self, value: Any, field: str = "params", *, current: Mapping[str, Any] | None = None, internal: bool = False
    ) -> dict[str, Any]:
        cleaned = super().clean(value, field, current=current, internal=internal)
        if cleaned["allocation"] in ON_REQUEST and cleaned.get("pairs_per_assignment") is None:
            raise InvalidInput(
                f"{field}.pairs_per_assignment",
                f"the {cleaned['allocation']} allocation draws pairs one at a time: say how many pairs an assignment "
                "holds (1 gives every vote exactly the weight of Chiang et al. 2024, eq. 7)",
            )
        return cleaned


class PreferenceKind(Kind):
    name = "preference"
    label = "Preference"
    description = "Choose the better of two systems' outputs to a prompt (A, B, tie or both bad), shown side by side."
    #: Assessors never see which system wrote an output (blind comparison).
    hidden_fields = ("outputs[].system",)
    limits = Limits(
        {"data.outputs": MAX_OUTPUTS, "payload.verdicts": MAX_OUTPUTS * (MAX_OUTPUTS - 1) // 2 * MAX_REPEATS},
        payload_bytes=2 * 2**20,
    )
    params_schema = PreferenceParams(
        Choice(
            "tie_model",
            "half",
            TIE_MODELS,
            label="Ties in the leaderboard",
            doc="methods#preference-leaderboards-statistics",
            help="half: Bradley-Terry with a tie (or both bad) counted as half a win for each side, as FastChat's "
            "Chatbot Arena leaderboard does; davidson: Davidson's (1970) model, which gives ties a probability of "
            "their own.",
        ),
        Str(
            "anchor",
            None,
            max_length=200,
            label="Anchor system",
            help="The system whose score is fixed at the anchor rating (blank: the systems' mean is).",
        ),
        Float(
            "anchor_rating",
            1000.0,
            min=-1e6,
            max=1e6,
            label="Anchor rating",
            help="The anchor's score on the Elo scale (400 points per factor of 10 in the odds).",
        ),
        Bool("both_bad", True, label="Offer \u201cboth bad\u201d", help="A fourth choice; it counts as a tie."),
        Bool("reasons", True, label="Ask for a reason", help="An optional reason box beside each verdict."),
        Int(
            "pairs_per_assignment",
            None,
            min=1,
            max=MAX_OUTPUTS * (MAX_OUTPUTS - 1) // 2,
            label="Pairs per assignment",
            help="How many pairs of a topic's outputs each assessor judges (blank: all of them; the active "
            "allocation needs a number). Uniform: each assessor of a topic gets the next pairs in a shuffled order "
            "of the topic's pairs, so the pairs are spread evenly.",
        ),
        Choice(
            "allocation",
            "uniform",
            ALLOCATIONS,
            label="Which pairs",
            help="uniform: topics assigned up front, every pair as often as the others; active: each assessor's "
            "next pairs drawn when they ask for work, the pairs of systems whose next vote most narrows the "
            "leaderboard's intervals the likeliest (Chiang et al. 2024, section 5), each vote then weighted by the "
            "inverse of the probability it was drawn with; design: drawn the same way, but with the shares of the "
            "design that makes the differences between neighbours on the leaderboard most precise, and the votes "
            "not weighted (about a third fewer votes than uniform for the same precision in benchmarks.preference).",
        ),
        design_param("Preference", splittable=False),
        *interval_params(),
        *control_params(),
        demo_param(),
    )

    # -- topics -------------------------------------------------------------------------

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"prompt", "outputs"}, required={"prompt", "outputs"})
        prompt = require_text(data["prompt"], f"{field}.prompt", max_length=TEXT_MAX_LENGTH)
        outputs = require_list(data["outputs"], f"{field}.outputs", min_length=2, max_length=MAX_OUTPUTS)
        cleaned = []
        seen: dict[str, str] = {}
        for index, output in enumerate(outputs):
            path = f"{field}.outputs[{index}]"
            require_object(output, path, allowed={"system", "text"}, required={"system", "text"})
            system = require_id(output["system"], f"{path}.system")
            duplicate_id(system, seen, f"{path}.system")
            seen[id_key(system)] = system
            text = require_text(output["text"], f"{path}.text", allow_empty=True, max_length=TEXT_MAX_LENGTH)
            cleaned.append({"system": system, "text": text})
        return {"prompt": prompt, "outputs": cleaned}

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        """The pairs of the topic's outputs (``"1-2"``, ...)."""
        return pair_ids(len(topic_data["outputs"]))

    def shares_topics(self, params: Mapping[str, Any]) -> bool:
        """Each assessor judges ``pairs_per_assignment`` pairs of a topic, where the campaign says so."""
        return params.get("pairs_per_assignment") is not None

    def allocates_on_request(self, params: Mapping[str, Any]) -> bool:
        """The active and design allocations draw each assessor's next pairs when they ask for work
        (kinds/preference/active.py); the uniform one assigns topics up front."""
        return params.get("allocation") in ON_REQUEST

    def assignment_items(
        self, topic_data: Mapping[str, Any], params: Mapping[str, Any], *, slot: int, seed: str
    ) -> list[str] | None:
        """The ``slot``-th assessor's pairs (kinds/preference/allocation.py); None: every pair."""
        pairs = self.items(topic_data)
        size = params.get("pairs_per_assignment")
        if size is None or size >= len(pairs):
            return None
        return uniform_share(pairs, size, slot=slot, seed=seed)

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        return topic_data

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The prompt, the pairs the assessor judges and the outputs they hold, by position: never a system."""
        known = self.items(topic_data)
        if items is not None:
            wanted = set(items)
            known = [pair for pair in known if pair in wanted]
        shown = sorted({k for pair in known for k in positions(pair)})
        outputs = topic_data["outputs"]
        return {
            "prompt": topic_data["prompt"],
            "outputs": [{"id": k, "text": outputs[k - 1]["text"]} for k in shown],
            "pairs": known,
        }

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The pairs of the assessor view, by id, each named by the beginnings of its two outputs'
        texts (lowest position first): what the page shows of a pair, as the sides differ per
        assessor and the page never names a system."""
        texts = {output["id"]: output["text"] for output in view["outputs"]}
        return [(pair, " / ".join(_beginning(texts[k]) for k in positions(pair))) for pair in view["pairs"]]

    # -- judgments ------------------------------------------------------------------------

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        params = params or {}
        require_object(payload, "payload", allowed={"verdicts"}, required={"verdicts"})
        verdicts = require_list(payload["verdicts"], "payload.verdicts", max_length=self.limits["payload.verdicts"])
        known = self.items(topic_data)
        scope = params.get("scope")
        allowed = set(known) if scope is None else set(scope) & set(known)
        seed = params.get(ASSESSOR_SEED)
        both_bad = params.get("both_bad", True) is not False
        reasons = params.get("reasons", True) is not False
        repeats = 1 if seed is not None else MAX_REPEATS
        counted: dict[str, int] = {}
        cleaned = []
        for index, verdict in enumerate(verdicts):
            path = f"payload.verdicts[{index}]"
            require_object(
                verdict, path, allowed={"pair", "left", "right", "choice", "reason"}, required={"pair", "choice"}
            )
            pair = verdict["pair"]
            if not isinstance(pair, str) or pair not in allowed:
                in_topic = isinstance(pair, str) and pair in set(known)
                raise InvalidInput(f"{path}.pair", "not assigned to you" if in_topic else "unknown pair of this topic")
            counted[pair] = counted.get(pair, 0) + 1
            if counted[pair] > repeats:
                raise InvalidInput(
                    f"{path}.pair",
                    f"pair {pair} judged once already" if repeats == 1 else f"at most {repeats} verdicts of one pair",
                )
            left, right = self._sides(verdict, pair, seed, path)
            choice = verdict["choice"]
            if choice not in CHOICES or (choice == "both_bad" and not both_bad):
                offered = CHOICES if both_bad else CHOICES[:3]
                raise InvalidInput(f"{path}.choice", f"expected one of {', '.join(offered)}, got {choice!r}")
            entry: dict[str, Any] = {"pair": pair, "left": left, "right": right, "choice": choice}
            if "reason" in verdict:
                reason = require_text(
                    verdict["reason"], f"{path}.reason", allow_empty=True, max_length=REASON_MAX_LENGTH
                )
                if reason.strip() and not reasons:
                    raise InvalidInput(f"{path}.reason", "this campaign asks for no reasons")
                if reason.strip():
                    entry["reason"] = reason
            cleaned.append(entry)
        if complete and seed is None and scope is None:
            # a payload from outside (an import, a restore): a rater judged the pairs they judged
            if not cleaned:
                raise InvalidInput("payload.verdicts", "no verdict: judge at least one pair")
        elif complete:
            missing = [pair for pair in known if pair in allowed and pair not in counted]
            if missing:
                raise InvalidInput("payload.verdicts", f"{len(missing)} pair(s) not judged: {listing(missing)}")
        return {"verdicts": cleaned}

    @staticmethod
    def _sides(verdict: Mapping[str, Any], pair: str, seed: Any, path: str) -> tuple[int, int]:
        """The verdict's (left, right): the sides the assessor was shown, on their own save
        (``seed``), refusing others; else the sides given, or the pair in order."""
        shown = sides(str(seed), pair) if seed is not None else None
        if "left" not in verdict and "right" not in verdict:
            return shown or positions(pair)
        given = []
        for key in ("left", "right"):
            value = verdict.get(key)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidInput(
                    f"{path}.{key}", f"expected the position of an output of the pair, got {type_name(value)}"
                )
            given.append(value)
        left, right = given
        if {left, right} != set(positions(pair)) or left == right:
            raise InvalidInput(f"{path}.left", f"expected the two outputs of pair {pair}, one on each side")
        if shown is not None and (left, right) != shown:
            raise InvalidInput(f"{path}.left", "not the sides you were shown: reload the page")
        return left, right

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        judged = {verdict["pair"] for verdict in payload.get("verdicts", [])}
        return len(judged), len(self.items(topic_data))

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"verdicts": []}

    # -- control items (annotate/controls.py) -------------------------------------------

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each pair's winner, by the position of its output (an int), or ``"tie"`` (a tie or
        both bad): never a side, since the sides are drawn per assessor (:func:`sides`). A pair
        judged more than once (an imported rater's repeats) is read at its first verdict."""
        winners: dict[str, Any] = {}
        for verdict in payload.get("verdicts", []):
            if verdict["pair"] in winners:
                continue
            choice = verdict["choice"]
            winners[verdict["pair"]] = verdict[choice] if choice in ("left", "right") else TIE
        return winners

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """The system that should win the pair ``item`` (one of its two outputs' systems), or
        ``tie``; stored as the winner's position (as :meth:`control_labels` reads verdicts), so
        that it holds whichever side each assessor is shown it on."""
        if item not in self.items(topic_data):
            raise InvalidInput(field, f"no pair {item!r} in the topic (pairs of its outputs by position: 1-2, ...)")
        if isinstance(value, str) and value.strip().lower() == TIE:
            return TIE
        systems = systems_of(topic_data)
        pair = positions(item)
        named = [k for k in pair if isinstance(value, str) and systems[k - 1] == value.strip()]
        if not named:
            shown = " or ".join(repr(systems[k - 1]) for k in pair)
            raise InvalidInput(field, f"{value!r} is not a system of pair {item}: expected {shown}, or tie")
        return named[0]


def systems_of(topic_data: Mapping[str, Any]) -> list[str]:
    """The topic's systems, by position (index 0: position 1)."""
    return [output["system"] for output in topic_data["outputs"]]


def judge_context(campaign: Any, topic: Any, user: Any) -> dict[str, Any]:
    """The judging page's sides of every pair for this assessor (:func:`sides`; the pairs in order
    on the consensus editor, which is nobody's), and the choices the campaign offers. Positions
    only: the page never gets a system's name."""
    params = campaign.params or {}
    pairs = pair_ids(len(topic.data["outputs"]))
    seed = assessor_seed(user.pk, topic.external_id) if user is not None else None
    return {
        "sides": {pair: list(sides(seed, pair) if seed is not None else positions(pair)) for pair in pairs},
        "both_bad": params.get("both_bad", True) is not False,
        "reasons": params.get("reasons", True) is not False,
    }
