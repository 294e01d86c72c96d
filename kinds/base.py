"""The small protocol every judgment kind implements, and checking helpers.

A kind says what a topic's data looks like, what a judgment payload looks
like, and when a judgment is complete. Errors name the offending field with a
dotted path (``payload.matches.c7``) so a client can point at it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Mapping, Sized
from dataclasses import dataclass
from typing import Any, ClassVar

from concord import jsonsafe
from concord.errors import InvalidInput  # defined in a core module (concord.params raises it too)
from concord.params import Bool, Choice, Float, Int, Object, Param, ParamsSchema

# Ids appear in URLs and in whitespace-separated formats such as TREC qrels.
_ID = re.compile(r"[^\s/]{1,200}")

#: The largest judgment payload, in bytes of compact UTF-8 JSON, of a kind that declares no other.
DEFAULT_PAYLOAD_BYTES = 2**20


@dataclass(frozen=True)
class Limits:
    """What one topic and one payload of a kind may hold: every request's work is
    bounded by these (docs/security.md, Security).

    ``lists`` gives the most entries of every list and object of the kind's topic
    data and payloads, by the path an error names with the positions left out:
    ``data.summaries[].sentences`` is the ``sentences`` of every summary,
    ``payload.marks.*`` every value of the object ``marks``. ``payload_bytes``
    is the largest payload as compact UTF-8 JSON (drafts too: every save is
    stored). tests/kinds/test_limits.py builds each kind's largest allowed input
    and one just over each cap from these."""

    lists: Mapping[str, int]
    payload_bytes: int = DEFAULT_PAYLOAD_BYTES

    def __getitem__(self, path: str) -> int:
        return self.lists[path]


class Kind:
    """What a kind's topics and judgments look like: the ``data`` slot of its KindSpec (kinds/spec.py)."""

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    #: The fields of a topic's data an assessor never sees (blind assessment),
    #: as dotted paths: ``"nuggets[].label"`` is the ``label`` of every entry
    #: of the list ``nuggets``. Every kind declares it (``()`` when nothing is
    #: hidden); there is no default, so a new kind cannot forget it. Only
    #: ``assessor_view()`` acts on it; tests/security/test_security_blind.py
    #: plants markers at these paths and checks no assessor ever receives one.
    hidden_fields: ClassVar[tuple[str, ...]]
    #: The campaign params the kind reads, declared (concord/params.py): every
    #: creation or change of a campaign's params is cleaned through it before
    #: anything is stored (annotate.services.campaigns.clean_campaign_params).
    params_schema: ClassVar[ParamsSchema]
    #: Caps on every list of the kind's topic data and payloads, and on a payload's
    #: size (:class:`Limits`). No default: a new kind declares its own.
    limits: ClassVar[Limits]

    def clean_judgment(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """A payload from outside (a save, an import, a gold, a restored backup):
        its size checked against the kind's limit, then :meth:`clean_payload`."""
        self.check_payload_size(payload)
        return self.clean_payload(payload, topic_data, complete=complete, params=params)

    def check_payload_size(self, payload: Any) -> None:
        """Refuse a payload larger than ``limits.payload_bytes`` as JSON, before
        any other check reads it."""
        size = payload_bytes(payload)
        if size > self.limits.payload_bytes:
            raise InvalidInput(
                "payload",
                f"{size:,} bytes of JSON; a {self.label} judgment is at most {self.limits.payload_bytes:,} bytes",
            )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        raise NotImplementedError

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Return the payload normalised; raise InvalidInput naming the field.

        ``complete`` is True for a submission, which must be whole; a draft
        may be partial but may never contain unknown ids or wrong types.
        ``params`` are the campaign's, for kinds with campaign-level options.
        """
        raise NotImplementedError

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        """(decisions made, decisions needed) for a progress bar."""
        raise NotImplementedError

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """Validate a run's data against the campaign's topics (external id -> data).

        A kind that scores system runs overrides this; the others refuse runs
        rather than store data nothing reads."""
        raise InvalidInput(field, f"{self.label} campaigns take no runs")

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        """The part of a topic an assessor judges (``items`` from the assignment; None: all)."""
        return topic_data

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """What an assessor may see of a topic: the one place that decides it.

        The part of the topic they judge (``scoped()`` with ``items`` from
        their assignment; None: all of it), rebuilt from the fields an
        assessor may see, so none of ``hidden_fields`` (nor any field a later
        version adds to the topic data) reaches them. The judging page
        renders only this; the topics API and every other endpoint take a
        topic's data from annotate.selectors.topic_data_for, which gives
        assessors this and organisers and admins the full data.
        """
        raise NotImplementedError

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """What an assessor may flag one by one, as (id, text) pairs, read from
        their assessor view (so nothing hidden can leak into it): the
        candidates, items, sentences, nuggets or documents the page shows by
        id. None: only the whole topic can be flagged."""
        return []

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        """The ids an assignment can split a topic into (kinds that allow it)."""
        raise InvalidInput("params.design", f"{self.label} topics cannot be split between assessors")

    def shares_topics(self, params: Mapping[str, Any]) -> bool:
        """Whether each assessor of a topic judges a share of its items under these campaign
        params (:meth:`assignment_items`), rather than the whole topic."""
        return False

    def assignment_items(
        self, topic_data: Mapping[str, Any], params: Mapping[str, Any], *, slot: int, seed: str
    ) -> list[str] | None:
        """The items the topic's ``slot``-th assessor (0, 1, ... in the order they are assigned)
        judges where :meth:`shares_topics` says so (annotate.services.assignments); ``seed`` is
        stable per campaign and topic. None: the whole topic."""
        return None

    def allocates_on_request(self, params: Mapping[str, Any]) -> bool:
        """Whether, under these campaign params, the kind hands its work out as each assessor
        asks for it (``KindSpec.allocate``, from "Next topic": annotate.adaptive.next_work)
        rather than up front (annotate.services.assignments makes no assignment then)."""
        return False

    def item_labels(self, payload: Mapping[str, Any]) -> dict[str, Hashable]:
        """Each item's label in a submitted payload (item id -> a hashable label),
        for the adaptive design (annotate/adaptive.py), which reads items one by
        one. Kinds whose items are judged alone implement it and declare
        ``design_param(..., adaptive=True)`` with :func:`adaptive_params`."""
        raise InvalidInput("params.design", f"{self.label} campaigns cannot use the adaptive design")

    def label_classes(self, params: Mapping[str, Any]) -> tuple[Hashable, ...]:
        """Every label :meth:`item_labels` can give, for the adaptive design."""
        raise InvalidInput("params.design", f"{self.label} campaigns cannot use the adaptive design")

    def initial_payload(self, topic_data: Mapping[str, Any], *, seed: str) -> dict[str, Any]:
        """What the judging page starts from for a new judgment; ``seed``
        is stable per assessor and topic."""
        return self.empty_payload(topic_data)

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        """A payload from imported (item id -> label) crowd rows, if the kind takes them."""
        raise InvalidInput("campaign", f"{self.label} campaigns do not import crowd label files")

    def labels_of_payload(self, payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The (item id -> label) crowd rows :meth:`payload_from_labels` makes ``payload`` from,
        or None where a payload is not made of crowd labels (the uploads page's sample files)."""
        return None

    def topic_for_item(self, item: str) -> dict[str, Any] | None:
        """The topic (``{"external_id", "title", "data"}``) a crowd file's item becomes
        when the campaign lacks it (a ``worker,item,label`` file: each item its own
        topic of one candidate, ``item``), or None where the kind makes no topic of one
        id (its topics need more than an id: import them first)."""
        return None

    # -- control items (annotate/controls.py) ----------------------------------------------

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each item's answer in a submitted payload (item id -> a JSON value), as a control's
        known answer is stored (``annotate.models.Control.answer``); an item left unanswered (or
        "can't tell") is absent. Kinds whose judgments can be checked against known answers
        implement it with :meth:`clean_control_answer` and declare :func:`control_params`."""
        raise InvalidInput("controls", f"{self.label} judgments cannot be checked against known answers")

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """A known answer for ``item`` of a topic, checked as the kind checks an assessor's
        answer to it (the JSON value :meth:`control_labels` would read); :class:`InvalidInput`
        naming ``field`` otherwise."""
        raise InvalidInput(field, f"{self.label} judgments cannot be checked against known answers")

    def control_credit(self, known: Any, given: Any, params: Mapping[str, Any]) -> float:
        """The credit, in [0, 1], of answering ``given`` where ``known`` is right: 1 or 0 by
        default; kinds with ordinal or numeric scales give part credit for a near miss
        (stats.quality.credits)."""
        return 1.0 if given == known else 0.0

    @property
    def takes_controls(self) -> bool:
        """Whether the kind's judgments can be checked against known answers."""
        return type(self).control_labels is not Kind.control_labels

    def reference_payload(self, run_data: Mapping[str, Any], topic_id: str) -> dict[str, Any] | None:
        """A reference labelling's answer for one topic as a payload, or None (the run
        has none for the topic). A reference labelling is a run whose data says
        ``"reference": true`` (e.g. a CrowdTruth file's ``gold`` column); the
        adjudication page shows it beside the assessors' judgments when the campaign's
        ``show_reference`` allows it. Kinds that take reference runs implement it and
        declare :func:`reference_param`."""
        return None


def assessor_seed(assessor_pk: object, topic_external_id: str) -> str:
    """What ``clean_payload`` finds in its params under :data:`ASSESSOR_SEED` on an assessor's
    own save: stable per assessor and topic (by the topic's id in its campaign, so a campaign and
    its copy show an assessor the same), for a kind that shows each assessor a topic in an order
    of their own (the preference kind's sides) to know on the save what its page showed.

    >>> assessor_seed(7, "t3")
    '7:t3'
    """
    return f"{assessor_pk}:{topic_external_id}"


#: The key of ``clean_payload``'s params that holds the saving assessor's :func:`assessor_seed`
#: (annotate.services.judgments.save_judgment, beside the assignment's ``scope``); absent when the
#: payload is nobody's own save (an import, a gold, a restored backup). Never a stored param.
ASSESSOR_SEED = "assessor_seed"


# -- campaign params every kind declares ------------------------------------


def demo_param() -> Bool:
    # Not in the new-campaign form: only `manage.py seed_demo` (the kinds' demo data) sets it.
    return Bool("demo", form=False, help="Marks a demo campaign: ./run seeds a kind's demo only while none is marked.")


#: The campaign param that shows reference labellings on the adjudication page.
SHOW_REFERENCE = "show_reference"


def reference_param() -> Bool:
    """``show_reference``: adjudicators see the campaign's reference labellings (runs whose
    data says ``"reference": true``) on the adjudication page; for kinds that implement
    ``Kind.reference_payload``."""
    return Bool(
        SHOW_REFERENCE,
        label="Show the reference labelling to adjudicators",
        help="Show the reference labelling (a run marked reference, e.g. the gold column of a CrowdTruth file) on "
        "the adjudication page as 'reference', beside the assessors' judgments. Off by default: adjudication is "
        "often meant to be blind to it.",
    )


def design_param(label: str, *, splittable: bool, adaptive: bool = False) -> Choice:
    """``design``: how topics are assigned (annotate.services.assignments.assign_topics);
    ``adaptive``: the kind implements ``Kind.item_labels`` and declares :func:`adaptive_params`."""
    if splittable:
        return Choice(
            "design",
            "overlap",
            ("overlap", "one-per-item", *(("adaptive",) if adaptive else ())),
            label="How topics are handed out",
            doc="adaptive#adaptive-design" if adaptive else "",
            help=(
                "overlap: every topic goes whole to `overlap` assessors; one-per-item: each item of a topic goes to "
                "one assessor drawn at random (Arehart et al. 2008, section 3.2.1)"
                + (
                    "; adaptive: every item goes to one assessor first, further opinions only where the truth is "
                    "least certain, handed out by 'Next topic' until the budgets are spent."
                    if adaptive
                    else "."
                )
            ),
        )
    return Choice(
        "design",
        "overlap",
        ("overlap",),
        label="How topics are handed out",
        help=(
            f"overlap: every topic goes whole to `overlap` assessors; {label} topics cannot be split between assessors "
            "(one-per-item is for pairs campaigns)."
        ),
    )


#: What the adaptive design's params apply to (forms show them only then).
ADAPTIVE = ("design", "adaptive")


def adaptive_params() -> tuple[Param, ...]:
    """The params of ``design=adaptive`` (annotate/adaptive.py reads them and fills
    its defaults; each is refused unless the design is adaptive)."""
    return (
        Choice(
            "adaptive_by",
            None,
            ("posterior", "margin"),
            label="Certainty measured by",
            when=ADAPTIVE,
            help=(
                "How certain an item's truth is: posterior (Dawid-Skene, the default) or margin "
                "(votes of the leading label minus the runner-up's)."
            ),
        ),
        Int(
            "budget_per_item",
            None,
            min=1,
            max=100,
            label="Opinions per item, at most",
            when=ADAPTIVE,
            help="Default 5.",
        ),
        Int(
            "budget_total",
            None,
            min=1,
            max=100_000_000,
            label="Opinions in all, at most",
            when=ADAPTIVE,
            help="Default: no cap beyond the opinions per item.",
        ),
        Float(
            "confidence",
            None,
            min=0.5,
            max=1.0,
            label="Enough when the posterior reaches",
            when=ADAPTIVE,
            help="With certainty measured by posterior: no further opinion on an item once its posterior reaches "
            "this (default 0.95).",
        ),
        Int(
            "margin",
            None,
            min=1,
            max=100,
            label="Enough when the vote margin reaches",
            when=ADAPTIVE,
            help="With certainty measured by margin: no further opinion on an item once the margin reaches this "
            "(default 2).",
        ),
        Int(
            "max_open_topics",
            None,
            min=1,
            max=20,
            label="Open topics per assessor, at most",
            when=ADAPTIVE,
            help="Topics an assessor may hold open at once, unskipped ones included (default 1): "
            "unskipping a topic beyond it is refused until they submit or skip one.",
        ),
    )


#: The campaign param that counts the model judges' judgments with the people's (annotate/judges.py).
MODEL_JUDGES_COUNT = "model_judges_count"
#: The campaign param of the alternative annotator test's cost-benefit margin (kinds/labels/judges.py).
ALT_TEST_EPSILON = "alt_test_epsilon"


def model_judges_param() -> Bool:
    """``model_judges_count``: whether the judgments of the members marked model judge
    (``Membership.model_judge``) count with the people's in every figure, gold standard, stop
    signal, adaptive allocation and progress count (annotate/judges.py); absent: they do not.
    Every kind declares it, through :func:`interval_params`."""
    return Bool(
        MODEL_JUDGES_COUNT,
        label="Count model judges with the people",
        help="Members marked model judge on the Members page (an LLM used as a rater) are kept out of the "
        "people's agreement, gold standards, stop signal, adaptive allocation and progress counts. Tick to count "
        "their judgments as a person's.",
    )


def alt_test_param() -> Float:
    """``alt_test_epsilon``: the cost-benefit margin of the alternative annotator test of each
    model judge (Calderon, Reichart & Dror 2025, section 3.3; Appendix B.1), for kinds whose
    report tests model judges (kinds/labels/judges.py); absent: the paper's default for experts,
    ``stats.alttest.DEFAULT_EPSILON``."""
    return Float(
        ALT_TEST_EPSILON,
        None,
        min=0.0,
        max=0.5,
        label="Model judges: cost-benefit margin (epsilon)",
        doc="methods#model-judges-the-alternative-annotator-test",
        help="How much worse than a person a model judge may be and still win against them in the alternative "
        "annotator test (default 0.2; the paper's advice: 0.2 when the people are experts, 0.15 skilled, 0.1 "
        "crowd workers; useful range 0.05-0.3).",
    )


#: The campaign param of crowd study links (annotate/study.py reads it and fills its defaults).
STUDY = "study"


def study_param() -> Object:
    """``study``: what a crowd study link (Prolific, MTurk) gives each worker and how many
    workers it lets in (annotate/study.py; docs/pages.md, "Study links"). Every kind declares
    it, through :func:`interval_params`, as every kind may run a crowd study."""
    return Object(
        STUDY,
        [
            Int(
                "topics_per_worker",
                None,
                min=1,
                max=1_000,
                label="Study link: topics per participant",
                help="Topics each participant who comes in through the campaign's study link is given, those that most "
                "need judgments first (default 10). Not with work handed out on request (adaptive, active): "
                "there 'Next topic' allocates.",
            ),
            Int(
                "max_workers",
                None,
                min=1,
                max=100_000,
                label="Study link: participants, at most",
                help="Accounts the campaign's study links may create in all; a new participant beyond it is refused "
                "with a message (default 100).",
            ),
        ],
        label="Crowd study link",
        doc="organiser#study-links",
    )


def interval_params(*, ranking: bool = False) -> tuple[Param, ...]:
    """The params every figure reads: its interval and stop signal (stats/intervals.py reads
    them with their defaults; docs/methods.md, Intervals and when to stop), and which judgments it
    rests on (:func:`model_judges_param`); and, declared by every kind with them, the crowd study
    link's (:func:`study_param`). ``ranking``: the kind ranks systems and shows the stability of
    that ranking (``ranking_tau``)."""
    params: tuple[Param, ...] = (
        model_judges_param(),
        study_param(),
        Float(
            "precision",
            None,
            min=0.001,
            max=1.0,
            label="Wanted precision of each figure",
            help="Wanted half-width of every agreement figure's 95% interval, e.g. 0.05 for kappa to within "
            "+-0.05 (default 0.05): the report says per figure whether it is reached or about how many more "
            "units would reach it.",
        ),
        Int(
            "resamples",
            None,
            min=100,
            max=10_000,
            label="Bootstrap resamples",
            help="Bootstrap resamples of every interval (default 1000; seed 0).",
        ),
    )
    if ranking:
        params += (
            Float(
                "ranking_tau",
                None,
                min=0.0,
                max=1.0,
                exclusive=True,
                label="Wanted stability of the systems' ranking (Kendall's τ)",
                help="Wanted Kendall's tau between the systems' ranking and the rankings from resampled topics: "
                "reached when the 5th percentile of its bootstrap distribution is at least this (default 0.9).",
            ),
        )
    return params


#: The campaign params of control items (annotate/controls.py reads them with their defaults).
CONTROL_PARAMS = (
    "control_rate",
    "quiz_controls",
    "quiz_minimum",
    "pause_threshold",
    "pause_minimum",
    "pause_level",
    "attention_failures",
    "min_seconds_per_item",
)


def control_params() -> tuple[Param, ...]:
    """The params of control items and pausing on evidence, declared by every kind whose
    judgments can be checked against known answers (``Kind.takes_controls``); each is optional,
    and the rules apply only where the campaign has controls (docs/methods.md, "Crowd quality
    control")."""
    return (
        Float(
            "control_rate",
            None,
            min=0.0,
            max=0.5,
            label="Share of controls in each assessor's work",
            help="E.g. 0.1: about one topic in ten an assessor gets is a control (a topic with known answers), "
            "mixed in so that it looks like any other. Default 0: controls only in the quiz.",
        ),
        Int(
            "quiz_controls",
            None,
            min=0,
            max=100,
            label="Qualifying quiz: controls first",
            help="Each assessor's first topics are this many controls; below the quiz's minimum accuracy they "
            "stop there, told why. Default 0: no quiz.",
        ),
        Float(
            "quiz_minimum",
            None,
            min=0.0,
            max=1.0,
            label="Qualifying quiz: accuracy needed",
            help="The share of the quiz's items an assessor must answer right to go on (default 0.7).",
        ),
        Float(
            "pause_threshold",
            None,
            min=0.0,
            max=1.0,
            label="Pause below this accuracy",
            help="An assessor is paused only when even the best accuracy their control answers allow (the upper "
            "bound of its interval) is below this (default 0.7). 0: nobody is paused on accuracy.",
        ),
        Int(
            "pause_minimum",
            None,
            min=1,
            max=10_000,
            label="Pause only after this many control items",
            help="Nobody is paused on accuracy before answering this many control items (default 10).",
        ),
        Float(
            "pause_level",
            None,
            min=0.5,
            max=0.999,
            label="Confidence of the accuracy interval",
            help="The level of the Wilson interval the pausing rule reads (default 0.99: a good assessor is "
            "almost never paused by bad luck; benchmarks.quality measures it).",
        ),
        Int(
            "attention_failures",
            None,
            min=1,
            max=100,
            label="Pause after this many failed attention checks",
            help="Attention checks are controls whose item tells the assessor what to answer. Default: failed "
            "checks pause nobody.",
        ),
        Float(
            "min_seconds_per_item",
            None,
            min=0.0,
            max=3600.0,
            label="Shortest credible time per item (seconds)",
            help="A control topic submitted faster than this per item is flagged as too fast on the quality page and counts "
            "as a failed attention check. Default: no minimum.",
        ),
    )


# -- checking helpers shared by the kinds ---------------------------------


def require_object(value: Any, field: str, *, allowed: Iterable[str], required: Iterable[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise InvalidInput(field, f"expected an object, got {type_name(value)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InvalidInput(f"{field}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in value:
            raise InvalidInput(f"{field}.{key}", "this field is required")
    return value


def clean_per_topic(
    data: Any,
    topics: Mapping[str, Mapping[str, Any]],
    *,
    field: str,
    key: str,
    clean: Callable[[Any, Mapping[str, Any], str], Any],
) -> dict[str, Any]:
    """Run data of the shape ``{key: {topic id: value}}``: every topic known,
    every value cleaned by ``clean(value, topic_data, path)``."""
    require_object(data, field, allowed={key}, required={key})
    entries = data[key]
    if not isinstance(entries, dict) or not entries:
        raise InvalidInput(f"{field}.{key}", "expected an object of topic id -> value, with at least one topic")
    cleaned = {}
    for topic, value in entries.items():
        if topic not in topics:
            raise InvalidInput(f"{field}.{key}.{topic}", "unknown topic")
        cleaned[topic] = clean(value, topics[topic], f"{field}.{key}.{topic}")
    return {key: cleaned}


def require_list(value: Any, field: str, *, min_length: int = 0, max_length: int | None = None) -> list:
    """A list of ``min_length`` to ``max_length`` entries (the kind's cap, :class:`Limits`)."""
    if not isinstance(value, list):
        raise InvalidInput(field, f"expected a list, got {type_name(value)}")
    if len(value) < min_length:
        raise InvalidInput(field, f"expected at least {min_length} entries, got {len(value)}")
    if max_length is not None:
        require_at_most(value, field, max_length)
    return value


def require_at_most(value: Sized, field: str, cap: int) -> None:
    """Refuse a list or object of more than ``cap`` entries, before anything iterates over it."""
    if len(value) > cap:
        raise InvalidInput(field, f"{len(value):,} entries; at most {cap:,}")


def payload_bytes(payload: Any) -> int:
    """A payload's size as compact UTF-8 JSON (how it is stored)."""
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return 0  # not JSON data: the kind's own checks refuse it, naming the field
    return len(text.encode("utf-8", "surrogatepass"))


def require_text(value: Any, field: str, *, allow_empty: bool = False, max_length: int = 100_000) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a string, got {type_name(value)}")
    if not allow_empty and not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_length:
        raise InvalidInput(field, f"longer than {max_length} characters")
    unstorable(value, field)
    return value


def unstorable(value: str, field: str) -> None:
    """Text that did not come through the JSON parser (a command's
    arguments): no NUL or lone surrogate (concord.jsonsafe)."""
    problem = jsonsafe.problem_with(value)
    if problem:
        raise InvalidInput(field, problem)


def require_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidInput(field, "expected an id: 1 to 200 characters, no white space and no '/'")
    unstorable(value, field)
    if value in (".", ".."):
        # In a link (/campaigns/1/topics/../judge/) a browser resolves them
        # as path segments and lands on another page.
        raise InvalidInput(field, "'.' and '..' are not ids (a link to them leads elsewhere)")
    return value


def require_ids(values: Any, field: str, *, max_length: int | None = None) -> list[str]:
    """A list of id strings (checked before any set or dict operation on them)."""
    require_list(values, field, max_length=max_length)
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise InvalidInput(f"{field}[{index}]", f"expected an id (a string), got {type_name(value)}")
    return values


def id_key(value: str) -> str:
    """What two ids are compared by for uniqueness: their NFC normalisation.

    Ids are stored and matched as given; but two that differ only in their
    Unicode normalisation form (``café`` composed and decomposed) look the
    same to everyone, so they may not both name things in one topic or one
    campaign."""
    return unicodedata.normalize("NFC", value)


def duplicate_id(item_id: str, seen: Mapping[str, str], field: str) -> None:
    """Raise InvalidInput if ``item_id`` is among ``seen`` (id_key -> the id as given)."""
    other = seen.get(id_key(item_id))
    if other is None:
        return
    if other == item_id:
        raise InvalidInput(field, f"duplicate id {item_id!r}")
    raise InvalidInput(field, f"duplicate id {item_id!r}: the same as {other!r} after Unicode normalisation (NFC)")


def unique_ids(entries: list[dict], field: str) -> list[str]:
    ids: list[str] = []
    seen: dict[str, str] = {}
    for index, entry in enumerate(entries):
        item_id = require_id(entry.get("id"), f"{field}[{index}].id")
        duplicate_id(item_id, seen, f"{field}[{index}].id")
        seen[id_key(item_id)] = item_id
        ids.append(item_id)
    return ids


def listing(ids: Iterable[str], limit: int = 10) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )
