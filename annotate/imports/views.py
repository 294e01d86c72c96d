"""The organiser's uploads and assignments pages.

Uploads: topics, runs, judgments and pools in every format the campaign's
kind reads, and the kind's own formats (``KindSpec.uploads``), through the
same readers (annotate.imports.read) and services as the API and the management
commands; all or nothing, the importers' errors (naming the line or the
field) shown at the form, 400. The page's script (static/annotate/upload.js)
sends the form with XMLHttpRequest to show upload progress and asks for JSON
(``Accept: application/json``); without it the form posts as usual.

Assignments: the topic list (dashboard.topics.topic_table), reassigning
a topic, topping up to the overlap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate import selectors
from annotate.api.views import flag
from annotate.imports import detect, ratings, read, samples, wizard, write
from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign
from concord import budget, paramforms
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import get_kind
from kinds.spec import KindSpec, Upload

#: Form fields every upload form sends besides its own.
COMMON_FIELDS = {"csrfmiddlewaretoken", "what"}


@dataclass(frozen=True)
class FileField:
    name: str
    label: str
    help: str = ""
    required: bool = True
    multiple: bool = False
    accept: str = ""


@dataclass(frozen=True)
class UploadForm:
    """One form of the uploads page: what it imports, the formats it reads, its files and options."""

    name: str
    title: str
    formats: list[str]
    files: list[FileField]
    #: Plain options the API takes too (positive, rank, map_members, depth): names the template knows.
    options: list[str] = field(default_factory=list)
    #: A kind's upload: its options as a params form.
    fields: list[paramforms.Field] = field(default_factory=list)
    help: str = ""
    #: The ``format`` values the form offers (the judgments form: how to read a file whatever its name).
    format_choices: list[str] = field(default_factory=list)


takes_crowd_labels = wizard.takes_crowd_labels


def takes_runs(spec: KindSpec) -> bool:
    """The kind scores system runs (``Examples.run`` is None for kinds that take none)."""
    return spec.examples.run is not None


def _first_line(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n", 1)[0].split()).replace("``", "")


def upload_forms(spec: KindSpec, *, values: Any = None, error: InvalidInput | None = None, posted: str = "") -> list:
    """Every upload the campaign's kind takes, with the formats each reads (as docs/formats.md, 'Import formats')."""
    forms = [
        UploadForm(
            "topics",
            "Topics",
            ['JSON: a list of {"external_id", "title"?, "data"}, or {"topics": [...]}'],
            [FileField("file", "Topics file", accept=".json,application/json")],
        )
    ]
    if takes_runs(spec):
        formats = ['JSON: a list of {"name", "data"}, or {"runs": [...]}']
        if spec.runs_csv is not None:
            formats.append(f"CSV (a .csv file): {_first_line(spec.runs_csv.__doc__)}")
        forms.append(UploadForm("runs", "Runs (system outputs to score)", formats, [FileField("file", "Runs file")]))
    formats = ['JSON (a .json file): a list of {"assessor", "topic", "payload"}, or {"judgments": [...]}']
    options = ["format", "map_members"]
    for suffix, reader in spec.judgment_files.items():
        formats.append(f"{suffix}: {_first_line(reader.__doc__)}")
        if read.takes_rank(reader) and "rank" not in options:
            options.insert(0, "rank")
    if takes_crowd_labels(spec):
        formats.append(
            "Crowd CSV (any other name): CrowdTruth (!amt_worker_ids, orig_id, response, gold, ...), "
            "worker,topic,candidate,label or worker,item,label"
        )
        options.insert(0, "positive")
    forms.append(
        UploadForm(
            "judgments",
            "Existing judgments",
            formats,
            [FileField("file", "Judgments file")],
            options,
            format_choices=read.judgment_formats(spec),
        )
    )
    if spec.pools is not None:
        forms.append(
            UploadForm(
                "pools",
                "Pools from systems' results",
                [_first_line(spec.pools.__doc__)],
                [
                    FileField("queries", "Queries (JSON: query id -> text)", accept=".json,application/json"),
                    FileField("runs", "Systems' results (runs)"),
                ],
                ["depth"],
            )
        )
    for upload in spec.uploads:
        forms.append(
            UploadForm(
                upload.name,
                upload.label,
                [],
                [FileField(f.name, f.label, f.help, f.required, f.multiple) for f in upload.files],
                fields=paramforms.fields(
                    upload.options,
                    prefix="options",
                    values=values if posted == upload.name else None,
                    error=error if posted == upload.name else None,
                    form=upload.name,
                ),
                help=upload.help,
            )
        )
    return forms


def _allowed(request: HttpRequest, allowed: set[str]) -> None:
    """Refuse form fields and files the form does not take (a misspelt option is not ignored)."""
    sent = set(request.POST.keys()) | set(request.FILES.keys())
    unknown = sorted(sent - allowed - COMMON_FIELDS - {f"{name}.shown" for name in allowed})
    if unknown:
        raise InvalidInput(unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})")


def _files(request: HttpRequest, name: str, *, required: bool = True, multiple: bool = False) -> list[UploadedFile]:
    files = request.FILES.getlist(name)
    if required and not files:
        raise InvalidInput(name, "choose a file")
    if len(files) > 1 and not multiple:
        raise InvalidInput(name, "one file only")
    return files


def _depth(raw: str) -> int | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    depth = whole_number(raw)
    if depth is None or depth < 1:
        raise InvalidInput("depth", "expected a whole number >= 1, or nothing for whole result lists")
    return depth


def run_upload(campaign: Campaign, spec: KindSpec, what: str, request: HttpRequest) -> str:
    """Import what the form named ``what`` sent, through the API's readers and services; what was imported."""
    post = request.POST
    if what == "topics":
        _allowed(request, {"file"})
        raw = _files(request, "file")[0].read()
        # A file of another form (TREC topics, an image, a kind's own upload) is named as such,
        # not parsed as topics.
        detected = detect.detect(raw, "")
        wizard.refuse_unread(spec, detected)
        wizard.point_to_upload(spec, raw, detected)
        created = import_topics(campaign=campaign, topics=read.read_topics(raw))
        return f"Imported {len(created)} topic{'s' if len(created) != 1 else ''}."
    if what == "runs":
        _allowed(request, {"file"})
        upload = _files(request, "file")[0]
        runs = read.read_runs(upload.read(), kind=spec, filename=upload.name or "")
        created = import_runs(campaign=campaign, runs=runs)
        return f"Imported {len(created)} run{'s' if len(created) != 1 else ''}."
    if what == "judgments":
        _allowed(request, {"file", "format", "positive", "rank", "map_members"})
        upload = _files(request, "file")[0]
        raw = upload.read()
        # A kind's own upload (a preference campaign's battles) is pointed to its form, not misread.
        wizard.point_to_upload(spec, raw, detect.detect(raw, upload.name or ""))
        summary = write.import_judgment_file(
            campaign,
            raw,
            filename=upload.name or "",
            format=post.get("format") or None,
            positive=post.get("positive") or None,
            rank=post.get("rank") or "overall",
            map_members=flag(post.get("map_members"), "map_members"),
        )
        return (
            f"Imported {summary.judgments} judgment{'s' if summary.judgments != 1 else ''} of {summary.topics} "
            f"topic{'s' if summary.topics != 1 else ''}; {summary.assessors_created} new imported assessor"
            f"{'s' if summary.assessors_created != 1 else ''}."
        )
    if what == "pools" and spec.pools is not None:
        _allowed(request, {"queries", "runs", "depth"})
        queries = read.read_json(_files(request, "queries")[0].read(), "queries")
        upload = _files(request, "runs")[0]
        runs = read.read_runs(upload.read(), kind=spec, filename=upload.name or "")
        topics = spec.pools(campaign=campaign, queries=queries, runs=runs, depth=_depth(post.get("depth", "")))
        return f"Built {len(topics)} pool{'s' if len(topics) != 1 else ''} from {len(runs)} runs."
    upload = next((u for u in spec.uploads if u.name == what), None)
    if upload is None:
        raise InvalidInput("what", f"{spec.label} campaigns take no upload {what!r}")
    return _run_kind_upload(campaign, upload, request)


def _run_kind_upload(campaign: Campaign, upload: Upload, request: HttpRequest) -> str:
    names = {f.name for f in upload.files} | {f.name for f in paramforms.fields(upload.options, prefix="options")}
    _allowed(request, names)
    options = upload.options.clean(paramforms.read(upload.options, request.POST, prefix="options"), "options")
    files = {
        f.name: [(u.name or "", u.read()) for u in _files(request, f.name, required=f.required, multiple=f.multiple)]
        for f in upload.files
    }
    return upload.run(campaign, files, options)


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
def campaign_uploads(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Upload topics, runs, judgments and pools (every format the campaign's kind reads)."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    spec = get_kind(campaign.kind)
    error, posted = None, ""
    if request.method == "POST":
        posted = request.POST.get("what", "")
        try:
            # Each import is checked, then written in one short transaction of its own
            # (annotate/imports/write.py): no transaction here, which would hold the
            # database's write lock while the file is read and checked.
            with budget.scope():  # the import's CPU, cells and memory (concord/budget.py)
                message = run_upload(campaign, spec, posted, request)
        except InvalidInput as invalid:
            error = invalid
            if _wants_json(request):
                return JsonResponse({"detail": invalid.message, "field": invalid.field}, status=400)
        else:
            messages.success(request, message)
            url = reverse("campaign-uploads", args=[campaign.pk])
            if _wants_json(request):
                return JsonResponse({"message": message, "redirect": url})
            return redirect(url)
    return render(
        request,
        "annotate/uploads.html",
        {
            "campaign": campaign,
            "kind": spec,
            "forms": upload_forms(spec, values=request.POST, error=error, posted=posted),
            "error": error,
            "posted": posted,
            "topics": campaign.topics.count(),
            "runs": campaign.runs.count(),
            "samples": samples.samples(spec),
        },
        status=400 if error else 200,
    )


# -- the import wizard ------------------------------------------------------------------

#: Fields of the wizard's forms besides ``map.<column>``.
WIZARD_FIELDS = {
    "file",
    "step",
    "format",
    "positive",
    "rank",
    "map_members",
    "sheet",
    "model_judge",
    "model_judge.more",
    "resolve",
    "binary",
    "expected",
}
WIZARD_STEPS = ("preview", "again", "confirm", "cancel")


def _table_fields(spec: KindSpec) -> tuple[set[str], set[str]]:
    """A rating table's fields the wizard takes for the kind: the column of each role
    (``col.<role>``) and the scale's (``scale.<param>``)."""
    tables = spec.tables
    if tables is None:
        return set(), set()
    roles = {"topic", tables.unit, *tables.texts, "rater", "label", *ratings.roles_of(tables, ratings.WIDE)}
    columns = {f"col.{role}" for role in roles} | {"shape", "col.picked", "col.picked.shown"}
    scale = {f"scale.{param.name}" for param in tables.scale_form}
    return columns, scale | {f"{name}.shown" for name in scale}


def _choices(spec: KindSpec, post: Any) -> wizard.Choices:
    mapping_fields = {f"map.{column}" for schema in read.CROWD_SCHEMAS for column in schema}
    columns, scale = _table_fields(spec)
    unknown = sorted(set(post.keys()) - WIZARD_FIELDS - COMMON_FIELDS - mapping_fields - columns - scale)
    if unknown:
        extra = ", shape, col.<role>, scale.<field>" if spec.tables is not None else ""
        raise InvalidInput(
            unknown[0], f"unknown field (allowed: {', '.join(sorted(WIZARD_FIELDS))}, map.<column>{extra})"
        )
    format = post.get("format", "")
    if format and format not in read.judgment_formats(spec):
        raise InvalidInput("format", f"unknown format {format!r} (known: {', '.join(read.judgment_formats(spec))})")
    shape = post.get("shape", "")
    if shape and shape not in {value for value, _ in wizard.table_shapes(spec)}:
        shapes = ", ".join(value for value, _ in wizard.table_shapes(spec)) or "none: this kind reads no rating tables"
        raise InvalidInput("shape", f"unknown shape {shape!r} (known: {shapes})")
    resolve = post.get("resolve", "")
    if resolve and resolve not in wizard.RESOLUTIONS:
        raise InvalidInput("resolve", f"expected one of: {', '.join(wizard.RESOLUTIONS)}")
    return wizard.Choices(
        format=format,
        positive=post.get("positive", "").strip(),
        rank=post.get("rank", "").strip() or "overall",
        map_members=flag(post.get("map_members"), "map_members"),
        sheet=post.get("sheet", ""),
        mapping={name.removeprefix("map."): post[name] for name in post if name in mapping_fields},
        shape=shape,
        columns={
            name.removeprefix("col."): post[name].strip()
            for name in post
            if name in columns and name.startswith("col.") and name not in ("col.picked", "col.picked.shown")
        },
        picked=tuple(post.getlist("col.picked")) if "col.picked.shown" in post else None,
        scale={name: post[name] for name in post if name in scale},
        model_judges=tuple(post.getlist("model_judge")),
        more_judges=post.get("model_judge.more", ""),
        gather=True,
        resolve=resolve,
        binary=flag(post.get("binary"), "binary"),
    )


@dataclass(frozen=True)
class MappingRow:
    """One column the reader wants, and the file's columns to read it from (``selected``: the one chosen)."""

    wanted: str
    options: list[tuple[str, bool]]


def _mapping_rows(needed: wizard.MappingNeeded, choices: wizard.Choices) -> list[MappingRow]:
    rows = []
    for wanted in needed.wanted:
        chosen = choices.mapping.get(wanted, wanted if wanted in needed.found else "")
        rows.append(MappingRow(wanted, [(column, column == chosen) for column in needed.found]))
    return rows


@login_required
def campaign_import(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The import wizard: a file is previewed (read and checked, nothing written), then confirmed
    or cancelled. Once a file is staged, every refusal shows the page's form again as the
    organiser left it (the mapping, the match value, the scale, the model judges, the choice of
    what to do with the rows listed), the file still staged."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    uploads = reverse("campaign-uploads", args=[campaign.pk])
    if request.method != "POST":
        return redirect(uploads)
    spec = get_kind(campaign.kind)
    staging = wizard.Staging(request.session, request.user, campaign)
    step = request.POST.get("step", "preview")
    context: dict[str, Any] = {
        "campaign": campaign,
        "kind": spec,
        "formats": read.judgment_formats(spec),
        "samples": samples.samples(spec),
    }
    if step == "cancel":
        staging.drop()
        messages.info(request, "Nothing imported: the file waiting for confirmation was removed.")
        return redirect(uploads)
    raw = b""
    try:
        if step not in WIZARD_STEPS:
            raise InvalidInput("step", f"expected one of: {', '.join(WIZARD_STEPS)}")
        context["choices"] = choices = _choices(spec, request.POST)
        if step == "preview":
            upload = _files(request, "file")[0]
            name, raw = upload.name or "file", upload.read()
        else:
            staged = staging.get()
            name, raw = staged.name, staged.raw
            context["staged"] = True
        context["filename"] = name
        # Read and checked within the import's budget (concord/budget.py: CPU, cells, memory).
        with budget.scope():
            prepared = wizard.prepare(campaign, raw, name, choices)
        if step == "preview":
            # Kept only once it reads: a file refused is never written to disk.
            staging.put(name, raw)
            context["staged"] = True
        if step == "confirm":
            # Checked again at confirmation (the campaign may have changed since the
            # preview), then written in batches behind the campaign's fence: no
            # transaction here (annotate/imports/fence.py). What the preview said is
            # what is written, or nothing (wizard.confirmable).
            wizard.confirmable(prepared, choices, request.POST.get("expected", ""))
            message = wizard.write(prepared)
            staging.drop()
            messages.success(request, message)
            return redirect(uploads)
    except wizard.MappingNeeded as needed:
        if not _stage(step, staging, context, raw):
            return _wizard_error(request, context, context["error"], staging)
        context.update(
            error=needed,
            mapping=_mapping_rows(needed, context["choices"]),
            detected=needed.detected,
            shapes=wizard.table_shapes(spec),
        )
        return _form_page(request, context)
    except (wizard.NotRaters, wizard.NotConfirmed) as refused:
        # The file reads: its preview again, with the error to correct (the file stays staged).
        if not _stage(step, staging, context, raw):
            return _wizard_error(request, context, context["error"], staging)
        preview = refused.prepared.preview
        context.update(error=refused, preview=preview, detected=preview.detected, table=preview.table)
        return _form_page(request, context)
    except wizard.TableChoices as needed:
        # The file reads, but not as laid out or on the scale given: kept for the organiser to correct.
        if not _stage(step, staging, context, raw):
            return _wizard_error(request, context, context["error"], staging)
        context.update(error=needed, table=needed.view, detected=needed.detected)
        return _form_page(request, context)
    except InvalidInput as invalid:
        if step == "preview" and raw and "choices" in context and _keeps_file(invalid):
            # A file of a sort the wizard reads, refused as read: kept, with the form, to
            # change a choice (map the workers onto members, say) rather than upload it again.
            if not _stage(step, staging, context, raw):
                return _wizard_error(request, context, context["error"], staging)
        return _wizard_error(request, context, invalid, staging)
    except BaseException:
        # An unexpected failure (logged as a 500 by Django) leaves no file behind either.
        staging.drop()
        raise
    context.update(preview=prepared.preview, detected=prepared.preview.detected, table=prepared.preview.table)
    return _form_page(request, context, status=200)


def _keeps_file(invalid: InvalidInput) -> bool:
    """A first preview's refusal that keeps the file staged: not one of a file the wizard reads
    nothing of (wizard.Unreadable), nor one of the whole file (``file``: no rows, the budget)."""
    return not isinstance(invalid, wizard.Unreadable) and invalid.field != "file"


def _stage(step: str, staging: wizard.Staging, context: dict[str, Any], raw: bytes) -> bool:
    """Stage a first preview's file to correct a choice on; False (``context["error"]`` set)
    when staging refuses it. A later step's file is staged already and stays."""
    if step == "preview":
        try:
            staging.put(context["filename"], raw)
        except InvalidInput as invalid:
            context["error"] = invalid
            return False
    context["staged"] = True
    return True


def _form_page(request: HttpRequest, context: dict[str, Any], status: int = 400) -> HttpResponse:
    context["kept"] = _kept_fields(context)
    return render(request, "annotate/import_preview.html", context, status=status)


def _kept_fields(context: dict[str, Any]) -> list[tuple[str, str]]:
    """The organiser's choices the page has no visible control for this time (the error came
    before the part of the page that shows them), sent again as hidden fields: nothing typed
    is lost. Each control the page shows is left out (annotate/import_preview.html)."""
    choices: wizard.Choices | None = context.get("choices")
    if choices is None:
        return []
    preview, table, mapping = context.get("preview"), context.get("table"), context.get("mapping")
    kept: list[tuple[str, str]] = []
    if choices.format:
        kept.append(("format", choices.format))
    if choices.rank and choices.rank != "overall":
        kept.append(("rank", choices.rank))
    if not mapping:
        kept += [(f"map.{wanted}", column) for wanted, column in choices.mapping.items()]
    if choices.sheet and not (preview and len(preview.sheets) > 1):
        kept.append(("sheet", choices.sheet))
    if choices.positive and table:
        kept.append(("positive", choices.positive))
    if choices.map_members and table and table.anonymous:
        kept.append(("map_members", "true"))
    if not (table and table.columns) and not (mapping and context.get("shapes")):
        if choices.shape:
            kept.append(("shape", choices.shape))
    if not (table and table.columns):
        kept += [(f"col.{role}", column) for role, column in choices.columns.items()]
        if choices.picked is not None:
            kept += [("col.picked.shown", "1"), *(("col.picked", value) for value in choices.picked)]
    shown_scale = {f.name for f in table.scale_fields} if table else set()
    kept += [(name, value) for name, value in choices.scale.items() if name.removesuffix(".shown") not in shown_scale]
    judges_shown = (table.raters and not table.anonymous) if table else bool(preview and preview.raters)
    if not judges_shown:
        kept += [("model_judge", name) for name in choices.model_judges]
        if choices.more_judges:
            kept.append(("model_judge.more", choices.more_judges))
    elif choices.more_judges and not (table.more_raters if table else preview.more_raters):
        kept.append(("model_judge.more", choices.more_judges))
    if choices.resolve and not (preview and preview.problems):
        kept.append(("resolve", choices.resolve))
    if choices.binary and not (preview and preview.binary):
        kept.append(("binary", "true"))
    return kept


def _wizard_error(
    request: HttpRequest, context: dict[str, Any], invalid: InvalidInput, staging: wizard.Staging
) -> HttpResponse:
    """The page with the error. A file staged stays staged, with the form as the organiser left
    it, but when the staging refused it; a first preview's file that is not kept (wizard.Unreadable,
    a whole file refused) replaces, and so removes, the one staged before. Staging full: 503."""
    full = isinstance(invalid, wizard.StagingFull)
    if not context.get("staged") or full:
        staging.drop()
        context.pop("staged", None)
    context.update(error=invalid)
    response = _form_page(request, context, status=503 if full else 400)
    if full:
        response["Retry-After"] = "60"
    return response


@login_required
def campaign_sample(request: HttpRequest, campaign_id: int, sample: str) -> HttpResponse:
    """A sample file of the campaign's kind (annotate.imports.samples), to download."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    found = samples.sample(get_kind(campaign.kind), sample)
    if found is None:
        raise Http404("no such sample file")
    response = HttpResponse(found.content, content_type=found.content_type)
    response["Content-Disposition"] = f'attachment; filename="{found.name}"'
    return response


# -- assignments ----------------------------------------------------------------------
