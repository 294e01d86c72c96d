"""What a judgment kind is: a typed KindSpec, every slot named and documented.

Generic code (annotate, scoring, their pages and the API) reaches a kind only
through its spec, found with :func:`kinds.registry.get_kind`: no module or
template names built from strings, no getattr on modules, no
``if kind == ...``. Everything a spec names lives in the kind's own folder,
``kinds/<name>/`` (docs/architecture.md, "Layout").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from concord.params import ParamsSchema
from concord.progress import Progress
from stats.plain import Reading

if TYPE_CHECKING:  # types only; the kinds import the models themselves
    from django.contrib.auth.models import AbstractBaseUser

    from annotate.models import Campaign, Topic
    from kinds.base import Kind
    from scoring.selectors import ReportInput

#: A chart's lines: label -> [[x, y], ...] (None values are skipped when drawn).
Series = dict[str, list[list[float | None]]]

__all__ = [
    "Adjudication",
    "Analysis",
    "Disagreement",
    "Examples",
    "EXPORT_GROUPS",
    "Export",
    "ExportFile",
    "Exports",
    "Headline",
    "JudgePage",
    "KindSpec",
    "Reports",
    "RatingTables",
    "Series",
    "TableScale",
    "TableUnit",
    "Upload",
    "UploadFile",
]


@dataclass(frozen=True)
class JudgePage:
    """The judging page.

    ``template`` is a template of the kind's ``templates/<name>/`` folder and
    ``script`` a file of its ``static/<name>/`` folder; ``context(campaign,
    topic, user)`` adds what the page needs beyond the assessor view of the
    topic and the judgment (the relevance scale, the factoids kind's Phase 2
    discrepancies). The page renders as an assessor's judging page and as the
    consensus editor (the gold), and both get this context
    (``annotate.views.judging_context``); ``user`` is None on the consensus
    editor, where the payload is nobody's own judgment.
    """

    template: str
    script: str
    context: Callable[[Campaign, Topic, AbstractBaseUser | None], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Headline:
    """The one figure the campaign's summary shows of its report (the dashboard's
    headline): its name on the page, the figure, a ``stats.intervals.FigureCI``
    (value, 95% interval, units), whose stop signal the summary shows beside it, and
    what the figure is, a ``stats.plain.Reading`` (its scale of words, its short name,
    the docs/methods.md section that explains it): the summary and the kind's report
    show the figure's plain reading (``stats.plain.sentence``) with a "?" to that section."""

    label: str
    figure: Any
    reading: Reading


@dataclass(frozen=True)
class Disagreement:
    """How much a topic's assessors disagree, and why, in a few words.

    ``value``: the kind's measure (0: full agreement; larger: more disputed),
    by which the adjudication queue and the assignments page sort topics;
    ``reason``: a short phrase an adjudicator reads beside it, e.g.
    ``"5 match / 5 no match"`` or ``"2 of 12 candidates split; most: c7 (5 match / 5 no match)"``.
    """

    value: float
    reason: str


@dataclass(frozen=True)
class RunningSums:
    """A kind's running sums (scoring/sums.py): ``type``, a dataclass of integer counts whose
    every field adds (its no-argument instance is the sums of no topic); ``contribution(campaign,
    topic, partial)``, one topic's counts (the campaign for its params, a scale's size; the topic
    for counts that depend on it: what a report copies topic by topic is not in the sums, see
    ``listed``); ``refresh(merge_input, fits, sums)``, the ``campaign_type`` report with
    every figure made from counts taken from ``sums`` and the others (bootstrap intervals'
    bounds, model fits, ranking stability) from ``fits``, the last full ``merge``. It must give
    ``fits`` back when ``sums`` are those of the partials ``fits`` was merged from.
    ``merge_input`` holds the campaign and its runs, not its topics."""

    type: type
    contribution: Callable[[Any, Any, Any], Any]
    refresh: Callable[..., Any]
    #: ``listed(partial)``: how many of the report's first rows in topic order the topic's partial
    #: gives (clustering's and factoids' pairs of judges), rows as many bytes as the partials
    #: themselves, too many to keep in the sums for every topic. It is stored with the partial
    #: (``TopicPartial.listed``), and a rebuild reads the partials of the first topics in order
    #: whose rows reach ``listed_limit()``, a bounded number (scoring.jobs ``_listed``); ``refresh``
    #: then takes a fourth argument, those topics and their partials in topic order
    #: (:meth:`report`). None: ``refresh`` reads the sums and ``fits`` only.
    listed: Callable[[Any], int] | None = None
    #: ``listed_limit()``: the rows ``refresh`` copies from the ``listed`` topics' partials, at most.
    listed_limit: Callable[[], int] | None = None
    #: False: ``refresh`` takes nothing from ``fits`` (the report has no figure that needs every
    #: item at once: factoids'), so a rebuild's report is current throughout (its ``fits_at`` its
    #: own time) and no refresh of the fits is queued.
    fits: bool = True

    def empty(self) -> Any:
        return self.type()

    def report(self, merge_input: Any, fits: Any, sums: Any, listed: Sequence[tuple[Any, Any]]) -> Any:
        """``refresh``, given ``listed`` ((topic, partial) in topic order: the first topics whose
        ``listed`` rows reach ``listed_limit()``, or more) when it reads any."""
        if self.listed is None:
            return self.refresh(merge_input, fits, sums)
        return self.refresh(merge_input, fits, sums, listed)


@dataclass(frozen=True)
class TopicRows:
    """A campaign report's list of a row per topic (ordering's consensus per topic, nuggets'
    pyramid per question), kept out of the stored report: each topic's row is made from its
    stored partial when read, a page at a time (``scoring.selectors.topic_rows``), so that a
    rebuild after a change writes the changed topics' partials and a report the size of the
    campaign's systems, assessors and categories, not one the size of its topics.

    ``row(topic, partial, report)``: the ``type`` row of ``topic`` (its ``external_id`` and
    ``position`` read) from its ``partial``; ``report``, the stored campaign report the rows are
    shown with, for what the row takes from the whole campaign (nuggets: whether every nugget
    has an original label). Only the topics whose partial holds at least ``least`` judgments
    have a row (ordering: those with an ordering). Rows are in the campaign's topic order."""

    type: type
    row: Callable[[Topic, Any, Any], Any]
    least: int = 0


@dataclass(frozen=True)
class Reports:
    """The live reports, recomputed by the background task after submissions.

    ``topic(input, topic)`` and ``campaign(input)`` are pure functions of a
    ``scoring.selectors.ReportInput`` (topics, submitted judgments, runs,
    curations, phase payloads, read once by ``report_input``) and return a
    ``topic_type`` and a ``campaign_type``: dataclass trees declared in the
    kind's ``report.py``. The campaign report is stored (``concord.typed.dump``)
    and read back as the same type (``concord.typed.load``, field by field),
    which also gives the API's schema of the kind's report; a topic's report is
    computed when its page is read (``scoring.selectors.topic_report``). ``template`` renders the
    campaign report (the fragment the organiser's page polls; ``report.data``
    is a ``campaign_type``), ``topic_template`` the kind's part of a topic's
    report page (``report.data`` is a ``topic_type``).
    """

    topic: Callable[..., Any]
    campaign: Callable[..., Any]
    template: str
    topic_template: str
    topic_type: type
    campaign_type: type
    #: ``disagreement(topic report)``: how much the topic's assessors disagree, a
    #: :class:`Disagreement` (the kind's measure, 0: full agreement, growing with the
    #: uncertainty the judgments leave: the mean vote entropy of the items for labels,
    #: 1 - mean pairwise tau for orderings; and a short reason), or None with fewer
    #: than two judgments. Stored with the topic's partial; the assignments page
    #: filters and sorts by it, the adjudication queue opens on the largest and
    #: shows the reason. The first paragraph of its docstring is the pages' help text.
    disagreement: Callable[[Any], Disagreement | None]
    #: Incremental scoring (docs/benchmarks.md, "Live at any size"). ``partial(input, topic, report)``
    #: is what the campaign report needs of one topic (its sufficient statistics: counts,
    #: per-unit figures, per-run scores), a ``partial_type`` stored per topic (a topic's
    #: report is not stored: its page computes it when read); ``merge(merge_input, partials)``
    #: builds the ``campaign_type`` from every topic's partial in topic order
    #: (``scoring.partials.MergeInput``: the campaign, its topics without their data, its
    #: runs). A submission then recomputes its topic's partial and disagreement and merges
    #: the stored partials, never reading every judgment.
    #: ``campaign(input)`` must equal ``merge`` over fresh partials
    #: (``scoring.partials.from_scratch``); None: every recompute calls ``campaign``.
    partial: Callable[[Any, Topic, Any], Any] | None = None
    merge: Callable[[Any, Sequence[Any]], Any] | None = None
    partial_type: type | None = None
    #: ``partial_disagreement(partial, campaign)``: the topic's disagreement from its partial,
    #: equal to ``disagreement(topic report)``, for a kind whose partial holds the votes; the
    #: partial is then computed without the report (``partial(input, topic, None)``) and a
    #: rebuild never builds the topic's report (its figures, intervals, pair tables: most of a
    #: first build). None: the report is built and ``disagreement`` reads it.
    partial_disagreement: Callable[[Any, Any], Disagreement | None] | None = None
    #: ``headline(campaign report)``: the figure the campaign's summary (the organiser's
    #: dashboard, dashboard/selectors.py) shows with its interval and stop signal, a
    #: :class:`Headline`; None (the function, or its answer): the kind has no single
    #: campaign-wide figure (factoids: per pair of annotators) and the summary points to
    #: the report.
    headline: Callable[[Any], Headline | None] | None = None
    #: The reports read the model judges' judgments too (``ReportInput.judge_judgments``: the
    #: labels kind tests each model judge against the people, kinds/labels/judges.py), so a
    #: stored partial or report counts them among the judgments it rests on
    #: (``ReportInput.held``). False: they read the people's (``ReportInput.judgments``) only.
    model_judges: bool = False
    #: The campaign report's figures made from counts, kept as running sums that each topic's
    #: change updates (scoring/sums.py, :class:`RunningSums`); None: every rebuild merges every
    #: topic's partial.
    sums: RunningSums | None = None
    #: The campaign report's per-topic list, read from the topics' stored partials a page at a
    #: time rather than stored in the report (:class:`TopicRows`); None: the report holds its lists.
    topic_rows: TopicRows | None = None

    def __post_init__(self) -> None:
        given = (self.partial is not None, self.merge is not None, self.partial_type is not None)
        if any(given) and not all(given):
            raise ValueError("Reports: give partial, merge and partial_type together")
        if self.sums is not None and self.partial is None:
            raise ValueError("Reports: running sums are made of the partials: give partial too")
        if self.partial_disagreement is not None and self.partial is None:
            raise ValueError("Reports: partial_disagreement reads the partial: give partial too")
        if self.topic_rows is not None and self.partial is None:
            raise ValueError("Reports: topic_rows are made of the partials: give partial too")

    @property
    def incremental(self) -> bool:
        return self.merge is not None


@dataclass(frozen=True)
class Adjudication:
    """The kind's part of the adjudication page (docs/pages.md, "Adjudication").

    An adjudicator (an organiser, or a member with the ``adjudicator`` role)
    sees every assessor's submitted judgment of a topic side by side and sets
    the topic's gold, stored as the topic's ``consensus`` curation (versioned:
    every save kept, a stale version refused with 409; the same curation the
    factoids kind's consensus editor writes).

    ``compare(view, judgments, beside)`` gets the assessor view of the topic
    (what the assessors saw: ``Kind.assessor_view``), ``[(assessor, submitted
    payload), ...]`` in assessor order and ``beside``, ``[(label, payload),
    ...]``: the topic's current gold (``gold v3``) and the reference labellings
    the organiser lets adjudicators see (``reference``), each item's value
    shown after the assessors' and counted in nothing (no vote, split or
    consensus); it returns what ``template`` (a template of the kind's
    ``templates/<name>/`` folder) renders as ``comparison``: the judgments
    side by side with their differences in the kind's own terms (votes per
    candidate, where orderings differ, the split/merge/move edits between
    clusterings, ...). ``consensus(view,
    payloads)`` is the payload "Accept the consensus" saves (e.g. the
    majority label of every item), or None when the kind has no automatic
    consensus (then the adjudicator accepts one assessor's judgment or edits).
    The generic page (templates/dashboard/adjudicate.html) includes ``template``
    as a fragment, with ``comparison``, ``view``, ``assessors``, ``campaign``
    and ``topic`` in its context.
    """

    template: str
    compare: Callable[
        [Mapping[str, Any], Sequence[tuple[str, Mapping[str, Any]]], Sequence[tuple[str, Mapping[str, Any]]]], Any
    ]
    consensus: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Analysis:
    """A long analysis an organiser starts; it runs as a job with progress.

    ``run(input, params, progress)`` gets the campaign's ``ReportInput`` (it
    reads nothing else) and params already checked by
    ``params`` and returns JSON-ready data (or a ``scoring.services.Chunked``
    plan, then ``chunks`` is ``(run_chunk(snapshot, chunk), combine(snapshot,
    results))``); ``template`` renders its result on the job page, with
    ``charts(result)``: the charts the kind builds from a result
    (``{name: spec}``, specs of scoring/charts.py with titles and axis titles,
    drawn by the generic ``chart`` tag).
    """

    name: str
    run: Callable[[ReportInput, Mapping[str, Any], Progress], Any]
    params: ParamsSchema
    template: str
    chunks: tuple[Callable[[dict, dict], dict], Callable[[dict, list[dict]], dict]] | None = None
    #: ``apply(params, result)``: the campaign params a finished analysis proposes (a pure
    #: function: it returns new params and writes nothing), e.g. the ordering kind's tuned
    #: FreSPA setting. Nothing changes until an organiser confirms it on the job page
    #: (scoring.services.apply_job, which records the params before and after so the
    #: change can be reverted: scoring.services.revert_job).
    apply: Callable[[Mapping[str, Any], dict], dict[str, Any]] | None = None
    charts: Callable[[dict], Mapping[str, dict[str, Any] | None]] | None = None
    #: ``ready(facts)``: why the analysis cannot run on the campaign now (e.g. "needs the
    #: results of at least two systems"), or None; ``facts`` is a
    #: ``scoring.selectors.CampaignFacts``. The page then shows the reason instead of
    #: the form, and starting it is refused before any job is stored.
    ready: Callable[[Any], str | None] | None = None
    #: ``params_for(campaign params)``: the params schema for one campaign, where what may be
    #: asked depends on it (e.g. the levels of measurement a labels scale permits); the form
    #: shows it and the request is checked against it. ``params`` documents the API (every
    #: setting any campaign may take). None: ``params`` for every campaign.
    params_for: Callable[[Mapping[str, Any]], ParamsSchema] | None = None


@dataclass(frozen=True)
class Export:
    """One download format: its content type and file extension."""

    content_type: str
    extension: str


#: The export page's sections, in order: the kind of file each download is (``ExportFile.group``).
EXPORT_GROUPS = {
    "gold": "Gold standards",
    "scores": "Scores and other tables",
    "judgments": "Every assessor's judgments",
}


@dataclass(frozen=True)
class ExportFile:
    """What one download is.

    ``what`` says it in the file's name, a few words joined by hyphens
    (``relevance-gold``, ``qrels``, ``system-scores``, ``judgments``;
    scoring.filenames.download_name); ``group`` is its section of the export page
    (one of :data:`EXPORT_GROUPS`); ``by_truth``: the truth set chosen changes the
    file, so its name carries it (False: the file is the same whatever the truth set,
    such as every assessor's judgments, or the ``truth`` value names the file itself,
    such as nuggets' ``answer-key``).
    """

    what: str
    group: str
    by_truth: bool = True

    def __post_init__(self) -> None:
        if self.group not in EXPORT_GROUPS:
            raise ValueError(f"ExportFile.group: expected one of {', '.join(EXPORT_GROUPS)}, got {self.group!r}")


@dataclass(frozen=True)
class Exports:
    """Gold standards and other downloads (admins only).

    ``truths(assessors)`` lists the ``truth`` values on offer; ``write(campaign,
    topics, judgments, format=..., truth=...)`` returns the file's text;
    ``describe(format, truth)`` says what that file is (an :class:`ExportFile`: its
    name and its section of the export page), or None when the writer refuses the
    pair (e.g. a table that comes as CSV only). ``tables``: ``truth`` values that
    pick one of the kind's tables rather than a truth set (pairs: the latest
    evaluation's statements), offered on the export page beside the truth sets.
    """

    formats: Mapping[str, Export]
    help: str
    truths: Callable[[Sequence[str]], list[str]]
    write: Callable[..., str]
    describe: Callable[[str, str], ExportFile | None]
    tables: tuple[str, ...] = ()


@dataclass(frozen=True)
class Examples:
    """Small valid data of the kind, for its contract tests (tests/kinds/test_contract.py),
    the blind-assessment walk and the hostile-input tests.

    ``topic`` is the data of a topic with external id ``t1`` that holds every
    field the kind hides (``data.hidden_fields``) at least once; ``payloads``
    two complete submissions of it by two assessors who disagree somewhere;
    ``free_text`` the dotted paths of a payload where an assessor types text
    (``"descriptions[]"``); ``run`` the data of a system run scoring ``t1``
    (None: the kind takes no runs); ``params`` campaign params that switch
    every part of the kind on.

    ``sized(counts)`` builds topic data and a payload to the sizes asked, for
    the limits test (tests/kinds/test_limits.py): ``counts`` gives a number of
    entries for every path of ``data.limits.lists``; the first list (or object)
    at each path gets that many, every other one a few, and what a path's
    entries refer to (the topic's candidates, the inventory's factoids) is made
    as large as they need. Its size is linear in the counts.
    """

    topic: Mapping[str, Any]
    payloads: tuple[Mapping[str, Any], Mapping[str, Any]]
    free_text: tuple[str, ...] = ()
    run: Mapping[str, Any] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    sized: Callable[[Mapping[str, int]], tuple[dict[str, Any], dict[str, Any]]] | None = None


@dataclass(frozen=True)
class UploadFile:
    """One file of an :class:`Upload`: its form field, label and help; ``multiple``: several files."""

    name: str
    label: str
    help: str = ""
    required: bool = True
    multiple: bool = False


@dataclass(frozen=True)
class Upload:
    """One of the kind's own import formats, offered on the organiser's uploads page
    beside the generic ones (topics, runs, judgments, pools).

    ``run(campaign, files, options)`` imports all or nothing and returns a
    sentence saying what it imported; ``files`` maps each :class:`UploadFile`
    name to ``[(filename, bytes), ...]`` (empty when none was sent), ``options``
    are checked by ``options`` (a ``ParamsSchema``, shown as a form). The
    kind's management command calls the same function.
    """

    name: str
    label: str
    help: str
    files: tuple[UploadFile, ...]
    run: Callable[..., str]
    options: ParamsSchema = field(default_factory=ParamsSchema)
    #: ``recognise(columns)``: a file with these column names (a table's header, the keys of a
    #: JSON Lines file's first object) is one for this form; the import wizard and the generic
    #: forms then point to it rather than misread the file. None: none is recognised.
    recognise: Callable[[Sequence[str]], bool] | None = None


@dataclass(frozen=True)
class TableUnit:
    """One unit a rating table rates (a row of a wide table, a task of Label Studio):
    its ``topic`` ("" where the file names none and the kind groups units itself), its
    ``id`` and its texts by column (``RatingTables.texts``: only those the file gives)."""

    topic: str
    id: str
    texts: Mapping[str, str]


@dataclass(frozen=True)
class TableScale:
    """The scale a rating table's cells are read on, as the import wizard shows it.

    ``params`` are the campaign params the file is read and checked under (the
    campaign's own, or the scale the file or the organiser gives: the import
    stores them); ``text`` says the scale in words (``ordinal: 0 < 1 < 2 < 3``);
    ``form`` holds the values of ``RatingTables.scale_form`` that give it (what the
    page shows to correct); ``read(text, where)`` is a cell's payload value (None:
    "can't tell"), InvalidInput naming ``where`` for a cell off the scale."""

    params: Mapping[str, Any]
    text: str
    form: Mapping[str, Any]
    read: Callable[[str, str], Any]


@dataclass(frozen=True)
class RatingTables:
    """How the kind reads a rating table: units (items, candidates, documents) by
    raters, one label a cell (annotate/imports/ratings.py, the import wizard; the
    shapes are in docs/formats.md, "Rating tables").

    ``unit`` names what a row rates (its id column, and the word pages and errors
    use: ``item``); ``topic_required``: a file must say each unit's topic (the
    ``topic`` column), else the kind groups new units into topics itself (the
    labels kind's batches) and a ``topic`` column is optional; ``texts``: optional
    columns the kind takes beside the ids (the unit's text, the topic's title);
    ``shapes``: the shapes it reads, of ``long`` (a row a rating), ``wide`` (a row
    a unit, a column a rater) and ``counts`` (a row a unit, a column a category: how
    many raters gave it; raters unknown); ``topics(units, params, existing)`` returns
    the topics to create (``[{"external_id", "title", "data"}]``) and each unit's
    (topic id, unit id), ``existing`` the campaign's topics' data by id;
    ``payload(values)`` one rater's payload of a topic from ``{unit id: value}``, and
    ``values(payload)`` the other way (the sample files of each shape are written with it);
    ``scale(params, values, corrections, fixed=, anonymous=)`` the :class:`TableScale`
    of the cells' distinct texts ``values`` (``[(text, count)]``, in order of first
    appearance): proposed from them (``corrections`` None) or as the organiser
    corrected it in ``scale_form`` (a ParamsSchema, shown under the prefix
    ``scale``); ``fixed``: the campaign has judgments, so its scale stays;
    ``anonymous``: the file is a count table, whose raters are not known (the
    kind says so in its params); ``interchange``: Label Studio and doccano files
    are read as rating tables too (their units, raters and labels; the scale
    found in them); ``controls``: a table may give a unit's known answer in a
    ``control`` or ``attention`` column (annotate/controls.py), which makes its
    new topic a control topic.
    """

    unit: str
    topics: Callable[
        [Sequence[TableUnit], Mapping[str, Any], Mapping[str, Any]], tuple[list[dict], list[tuple[str, str]]]
    ]
    payload: Callable[[Mapping[str, Any]], dict[str, Any]]
    values: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    scale: Callable[..., TableScale]
    texts: tuple[str, ...] = ()
    topic_required: bool = True
    shapes: tuple[str, ...] = ("wide",)
    scale_form: ParamsSchema = field(default_factory=ParamsSchema)
    interchange: bool = False
    controls: bool = False


@dataclass(frozen=True)
class Drawn:
    """Work a kind drew for an assessor (``KindSpec.allocate``): the topic, the items of it they
    judge, and the probability each item was drawn with (stored as ``Assignment.draws``, never
    shown to the assessor: the reports weigh each judgment of an item by its inverse)."""

    topic: Topic
    items: list[str]
    draws: dict[str, float]


@dataclass(frozen=True)
class KindSpec:
    """Everything generic code knows of one judgment kind."""

    #: Topic data, payloads, runs, the assessor's view of a topic and the
    #: campaign params (kinds.base.Kind); its ``name`` is ``Campaign.kind`` and
    #: the name of the kind's folder, templates and static files.
    data: Kind
    judge: JudgePage
    reports: Reports
    exports: Exports
    examples: Examples
    analyses: tuple[Analysis, ...] = ()
    #: ``demo(organiser, simulated, people)``: the kind's demo campaign(s) for ``manage.py seed_demo``.
    demo: Callable[..., Campaign | list[Campaign]] | None = None
    #: The kind's own curations beside ``consensus``: name -> ``clean(data, topic) -> data``
    #: (``PUT .../curations/<name>/``, versioned like judgments).
    curations: Mapping[str, Callable[[Any, Topic], dict[str, Any]]] = field(default_factory=dict)
    #: The module of the kind's own pages and endpoints (its ``urlpatterns``, from the site's
    #: root; e.g. factoids' Phase 2), included by concord/urls.py. A module, not patterns: the
    #: views import the API's serializers, which read the registry this spec is part of.
    urls: str | None = None
    #: ``runs_csv(lines) -> [{"name", "data"}]``: the kind's runs read from CSV (``lines``: the file's
    #: lines as concord.reading.Lines gives them, decoded as they are read); None: runs come as JSON only.
    runs_csv: Callable[[Iterable[str]], list[dict[str, Any]]] | None = None
    #: file suffix -> ``reader(raw, params=campaign params[, rank=...]) -> annotate.imports.read.CrowdFile``
    #: (``rank`` for readers that take it, e.g. SQuALITY's; the uploads page then asks for it):
    #: judgment files of the kind's own formats (``import_judgments``, ``POST .../judgments/import/``;
    #: a file's longest matching suffix picks the reader, or ``format=<suffix>``).
    judgment_files: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    #: ``pools(campaign=, queries=, runs=, depth=)``: topics pooled from systems' results
    #: (``POST .../pools/``); None: the kind builds no pools.
    pools: Callable[..., list[Topic]] | None = None
    #: The kind's own import formats on the uploads page (e.g. TREC run files), beside the generic ones.
    uploads: tuple[Upload, ...] = ()
    #: The kind's part of the adjudication page (the judgments side by side, its consensus).
    adjudication: Adjudication | None = None
    #: How the kind reads rating tables (wide, long, count tables) in the import wizard; None: it does not.
    tables: RatingTables | None = None
    #: ``allocate(campaign, user, rng) -> Drawn | None``: the work the kind draws for ``user`` when
    #: they ask for it, where ``data.allocates_on_request(params)`` says so (annotate.adaptive.next_work
    #: makes the assignment, under the campaign's allocation lock); None: nothing for them now.
    allocate: Callable[..., Drawn | None] | None = None

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def label(self) -> str:
        return self.data.label

    @property
    def description(self) -> str:
        return self.data.description

    @property
    def params(self) -> ParamsSchema:
        """The campaign params the kind reads, checked before anything is stored."""
        return self.data.params_schema

    def analysis(self, name: str) -> Analysis | None:
        return next((a for a in self.analyses if a.name == name), None)

    def __post_init__(self) -> None:
        names = [a.name for a in self.analyses]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: analyses named twice: {names}")
