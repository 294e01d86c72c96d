"""Benchmark: what the import wizard's preview of a hostile spreadsheet costs, each
case in a process of its own so that its peak memory is its own.

- ``dimension``: a 4.6 KB .xlsx whose sheet declares ``A1:XFD1000000`` and has
  a cell in row 1 and one in row 1,000,000 (:func:`dimension_bomb`);
- ``entity``: a 76 KB .xlsx whose sheet defines an internal entity of 2,000
  characters and uses it in 14,500 cells (:func:`entity_sheet`).

Each is posted as the wizard's preview (``POST /campaigns/<id>/uploads/import/``,
Django's test client, a signed-in organiser, a SQLite database of its own):
the answer's status and first words, the wall time, the CPU time and the peak
resident memory above the process's before the request.

Run from the project root: ``python -m benchmarks.hostile_uploads``. The same
script measures other code when run against an export of it (``git archive
<commit> | tar -x -C /tmp/before``, then ``PYTHONPATH=/tmp/before python -m
benchmarks.hostile_uploads`` from there); ``OPENPYXL_DEFUSEDXML=False`` makes
openpyxl parse as it does where defusedxml is not installed (``./run``'s
requirements.txt). Ends with ``RESULT name=hostile_uploads seconds=<dimension
bomb's wall time> entity_seconds=... dimension_peak_mb=... entity_peak_mb=...``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"

# -- hostile workbooks (tests/annotate/test_xlsx.py builds its files with these too) ---------


def workbook(
    sheet: str | bytes,
    *,
    shared: str | bytes | None = None,
    sheets: tuple[str, ...] = ("Sheet1",),
    book: str | bytes | None = None,
    styles: str | bytes | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    """An .xlsx of the given parts: ``sheet`` the first sheet's XML (the others
    empty), ``shared`` the shared strings' XML, ``book`` the workbook's XML
    (default: ``sheets`` in order), ``styles`` the styles' XML."""
    if book is None:
        entries = "".join(
            f'<sheet name="{name}" sheetId="{number}" r:id="rId{number}"/>'
            for number, name in enumerate(sheets, start=1)
        )
        book = f'<?xml version="1.0"?><workbook xmlns="{MAIN}" xmlns:r="{RELS}"><sheets>{entries}</sheets></workbook>'
    rels = "".join(
        f'<Relationship Id="rId{number}" Type="{RELS}/worksheet" Target="worksheets/sheet{number}.xml"/>'
        for number in range(1, len(sheets) + 1)
    )
    if shared is not None:
        rels += f'<Relationship Id="rIdS" Type="{RELS}/sharedStrings" Target="sharedStrings.xml"/>'
    if styles is not None:
        rels += f'<Relationship Id="rIdY" Type="{RELS}/styles" Target="styles.xml"/>'
    types = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        + "".join(
            f'<Override PartName="/xl/worksheets/sheet{number}.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for number in range(1, len(sheets) + 1)
        )
        + (
            '<Override PartName="/xl/sharedStrings.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            if shared is not None
            else ""
        )
        + "</Types>"
    )
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": types,
        "_rels/.rels": f'<?xml version="1.0"?><Relationships xmlns="{PACKAGE_RELS}">'
        f'<Relationship Id="rId1" Type="{RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": book,
        "xl/_rels/workbook.xml.rels": f'<?xml version="1.0"?><Relationships xmlns="{PACKAGE_RELS}">{rels}'
        "</Relationships>",
        "xl/worksheets/sheet1.xml": sheet,
    }
    for number in range(2, len(sheets) + 1):
        parts[f"xl/worksheets/sheet{number}.xml"] = sheet_xml("")
    if shared is not None:
        parts["xl/sharedStrings.xml"] = shared
    if styles is not None:
        parts["xl/styles.xml"] = styles
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, content in parts.items():
            archive.writestr(name, content)
    return out.getvalue()


def sheet_xml(rows: str | bytes, *, dimension: str = "", prolog: str = "") -> bytes:
    """A worksheet's XML around ``rows`` (``<row>`` elements), with a ``<dimension>`` if given."""
    head = f'<?xml version="1.0"?>{prolog}<worksheet xmlns="{MAIN}" xmlns:r="{RELS}">'
    if dimension:
        head += f'<dimension ref="{dimension}"/>'
    body = rows.encode() if isinstance(rows, str) else rows
    return head.encode() + b"<sheetData>" + body + b"</sheetData></worksheet>"


def inline(reference: str, text: str) -> str:
    """An inline-string cell."""
    return f'<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>'


def dimension_bomb() -> bytes:
    """4.6 KB: the dimension says 16,384 columns by 1,000,000 rows; two cells are there."""
    rows = (
        f'<row r="1">{inline("A1", "worker")}{inline("B1", "item")}{inline("C1", "label")}</row>'
        f'<row r="1000000">{inline("XFD1000000", "x")}</row>'
    )
    # A comment of digits that compress little, to the size of the hostile file measured.
    padding = "<!-- " + str(7**5000)[:4000] + str(3**6000)[:1800] + " -->"
    return workbook(sheet_xml(rows + padding, dimension="A1:XFD1000000"))


#: Characters of the entity's text, and the cells that use it.
ENTITY_CHARS, ENTITY_CELLS = 2_000, 14_500


def entity_sheet(chars: int = ENTITY_CHARS, cells: int = ENTITY_CELLS) -> bytes:
    """A sheet whose document type defines ``&e;`` as ``chars`` characters, used in ``cells`` cells."""
    prolog = f'<!DOCTYPE worksheet [<!ENTITY e "{"x" * chars}">]>'
    header = f'<row r="1">{inline("A1", "worker")}{inline("B1", "item")}{inline("C1", "label")}</row>'
    rows = "".join(f'<row r="{n}">{inline(f"A{n}", "&e;")}</row>' for n in range(2, cells + 2))
    return workbook(sheet_xml(header + rows, prolog=prolog))


# -- each case, in its own process -----------------------------------------------------


def _memory_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def case(name: str) -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ["CONCORD_SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="concord-hostile-")) / "db.sqlite3")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from annotate.services.campaigns import create_campaign

    setup_test_environment()  # the answer's template context: what the page says
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create(username="organiser", is_staff=True)
    campaign = create_campaign(creator=user, kind="pairs", name="Crowd", overlap=1)
    raw = {"dimension": dimension_bomb, "entity": entity_sheet}[name]()
    client = Client()
    client.force_login(user)
    before = _memory_mb("VmRSS")
    started, cpu = time.perf_counter(), time.process_time()
    response = client.post(
        f"/campaigns/{campaign.pk}/uploads/import/",
        {"step": "preview", "file": SimpleUploadedFile(f"{name}.xlsx", raw)},
    )
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    error = response.context.get("error") if response.context is not None else None
    said = f"{error.field}: {error.message}" if error is not None else ""
    return {
        "case": name,
        "file_kb": round(len(raw) / 1000, 1),
        "status": response.status_code,
        "said": said[:160],
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "peak_mb": round(_memory_mb("VmHWM") - before, 1),
        "rss_after_mb": round(_memory_mb("VmRSS") - before, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=("dimension", "entity"), help="run one case here (internal)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds a case may take before it is stopped")
    parser.add_argument("--cases", default="dimension,entity", help="the cases to run, comma-separated")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(case(args.case)))
        return
    results = {
        name: {"case": name, "seconds": float("nan"), "peak_mb": float("nan")} for name in ("dimension", "entity")
    }
    for name in args.cases.split(","):
        try:
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.hostile_uploads", "--case", name],
                capture_output=True,
                text=True,
                timeout=args.timeout,
                check=True,
            )
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            results[name] = {"case": name, "seconds": args.timeout, "peak_mb": float("nan"), "said": "stopped"}
        print(json.dumps(results[name]), flush=True)
    dimension, entity = results["dimension"], results["entity"]
    print(
        f"RESULT name=hostile_uploads seconds={dimension['seconds']} entity_seconds={entity['seconds']} "
        f"dimension_peak_mb={dimension['peak_mb']} entity_peak_mb={entity['peak_mb']}"
    )


if __name__ == "__main__":
    main()
