""".xlsx uploads read with work bounded by their bytes (annotate/imports/xlsx.py): the
declared dimension ignored, no DTD or entity, XML errors named with the part and
the line, shared strings and cells bounded, every cell counted against the
import's budget (concord/budget.py). Every file is built here, part by part
(benchmarks.hostile_uploads)."""

from __future__ import annotations

import csv
import sys
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports import detect, wizard, xlsx
from annotate.models import Judgment, Topic
from annotate.services.campaigns import create_campaign
from benchmarks.hostile_uploads import MAIN, dimension_bomb, entity_sheet, inline, sheet_xml, workbook
from concord import budget
from concord.errors import InvalidInput
from tests.annotate.test_detect import xlsx as openpyxl_xlsx

LAUGHS = (
    '<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "' + f"&lol{n - 1 if n > 1 else ''};" * 10 + '">' for n in range(1, 10))
    + "]>"
)
XXE = '<!DOCTYPE w [<!ENTITY x SYSTEM "file:///etc/passwd">]>'


def rows(raw: bytes, sheet: str = "") -> list[tuple[int, list[str]]]:
    return list(xlsx.Workbook(raw).rows(sheet))


def refused(raw: bytes) -> InvalidInput:
    with pytest.raises(InvalidInput) as error:
        detect.table_csv(detect.table_rows(raw, detect.detect(raw)))
    return error.value


def crowd_sheet(rows_xml: str) -> bytes:
    header = f'<row r="1">{inline("A1", "worker")}{inline("B1", "item")}{inline("C1", "label")}</row>'
    return workbook(sheet_xml(header + rows_xml))


# -- what a sheet has, not what it declares ------------------------------------------------


def test_the_dimension_bomb_reads_its_two_rows_and_counts_a_row_of_16384_cells_as_work():
    raw = dimension_bomb()
    assert len(raw) < 5_000
    with budget.scope() as used:
        read = rows(raw)
    assert [number for number, _ in read] == [1, 1_000_000]
    assert read[0][1] == ["worker", "item", "label"]
    assert len(read[1][1]) == 16_384 and read[1][1][-1] == "x" and set(read[1][1][:-1]) == {""}
    # The cells the file has, and the blanks its one wide row is padded with: not 16,384 x 1,000,000.
    assert used.cells_used == 4 + 16_384 - 1 + 0
    assert used.rows_read == 2


def test_the_dimension_bomb_previews_as_a_400_naming_its_row(client, people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    client.force_login(people["organiser"])
    page = client.post(
        f"/campaigns/{campaign.pk}/uploads/import/",
        {"step": "preview", "file": SimpleUploadedFile("bomb.xlsx", dimension_bomb())},
    )
    assert page.status_code == 400
    error = page.context["error"]
    assert (error.field, error.message) == ("row 1000000", "16384 fields, the header has 3")


def test_trailing_blank_cells_are_dropped_and_gaps_between_cells_filled():
    raw = workbook(
        sheet_xml(
            f'<row r="1">{inline("A1", "a")}{inline("C1", "c")}<c r="D1" t="inlineStr"><is><t></t></is></c></row>'
            '<row r="4"><c r="B4"><v>2</v></c></row>'
        )
    )
    assert rows(raw) == [(1, ["a", "", "c"]), (4, ["", "2"])]


def test_cells_without_references_follow_one_another():
    raw = workbook(sheet_xml("<row><c><v>1</v></c><c><v>2.5</v></c></row><row><c t='b'><v>1</v></c></row>"))
    assert rows(raw) == [(1, ["1", "2.5"]), (2, ["True"])]


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ('<row r="2"><c r="B2"/><c r="A2"/></row>', "row 2", "cell A after B: cells must come in order"),
        ('<row r="3"/><row r="2"/>', "row 2", "after row 3: rows must come in order"),
        ('<row r="2"><c r="XFE2"/></row>', "row 2", "a cell at 'XFE2'"),
        ('<row r="2"><c r="A2" t="s"><v>5</v></c></row>', "cell A2", "refers to shared string '5'; the workbook has 0"),
        ('<row r="2"><c r="A2"><v>twelve</v></c></row>', "cell A2", "'twelve' is not a number"),
        ('<row r="0"/>', "xl/worksheets/sheet1.xml", "a row numbered '0'"),
    ],
)
def test_a_sheet_that_is_not_well_formed_is_refused_naming_the_row_or_cell(row, field, message):
    error = refused(workbook(sheet_xml(row), shared=f'<sst xmlns="{MAIN}"></sst>'))
    assert error.field == field and message in error.message, (error.field, error.message)


def test_what_openpyxl_writes_reads_the_same():
    raw = openpyxl_xlsx([["worker", "item", "label", None], ["w1", "i1", 1.5, None], [None], ["w2", 7, True]])
    assert rows(raw) == [
        (1, ["worker", "item", "label"]),
        (2, ["w1", "i1", "1.5"]),
        (3, []),
        (4, ["w2", "7", "True"]),
    ]


def test_dates_read_as_dates():
    styles = f'<styleSheet xmlns="{MAIN}"><numFmts><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts>'
    styles += '<cellXfs><xf numFmtId="0"/><xf numFmtId="22"/><xf numFmtId="164"/></cellXfs></styleSheet>'
    cells = (
        '<row r="1"><c r="A1" s="1"><v>45000.5</v></c><c r="B1" s="2"><v>45000</v></c><c r="C1"><v>45000</v></c></row>'
    )
    assert rows(workbook(sheet_xml(cells), styles=styles)) == [(1, ["2023-03-15 12:00:00", "2023-03-15", "45000"])]


# -- XML without DTDs or entities; errors naming the part and the line ---------------------


@pytest.mark.parametrize(
    ("raw", "part"),
    [
        (entity_sheet(chars=200, cells=50), "xl/worksheets/sheet1.xml"),
        (workbook(sheet_xml(f'<row r="1">{inline("A1", "&lol9;")}</row>', prolog=LAUGHS)), "xl/worksheets/sheet1.xml"),
        (
            workbook(
                sheet_xml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'),
                shared=f'<?xml version="1.0"?>{LAUGHS}<sst xmlns="{MAIN}"><si><t>&lol9;</t></si></sst>',
            ),
            "xl/sharedStrings.xml",
        ),
        (workbook(sheet_xml(f'<row r="1">{inline("A1", "&x;")}</row>', prolog=XXE)), "xl/worksheets/sheet1.xml"),
        (workbook(sheet_xml(""), book=f'<?xml version="1.0"?>{XXE}<workbook/>'), "xl/workbook.xml"),
    ],
    ids=["entity", "billion-laughs-sheet", "billion-laughs-shared-strings", "xxe-sheet", "xxe-workbook"],
)
def test_a_document_type_declaration_is_refused_naming_the_part_and_line(raw, part):
    error = refused(raw)
    assert (error.field, error.message) == (part, "line 1: a document type declaration (DTD) is not read")


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (
            workbook(b'<?xml version="1.0"?>\n<worksheet>\n<sheetData><row></sheetData></worksheet>'),
            "xl/worksheets/sheet1.xml",
            "not XML: mismatched tag: line 3, column 18",
        ),
        (
            workbook(sheet_xml(""), book='<workbook><sheets>\n<sheet name="a"'),
            "xl/workbook.xml",
            "not XML: unclosed token: line 2, column 0",
        ),
        (
            workbook(sheet_xml(f'<row r="1">{inline("A1", "&nope;")}</row>')),
            "xl/worksheets/sheet1.xml",
            "not XML: undefined entity",
        ),
        (
            workbook(sheet_xml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'), shared="<sst><si><t>a</si></sst>"),
            "xl/sharedStrings.xml",
            "not XML: mismatched tag: line 1, column",
        ),
        (workbook(sheet_xml(""), book=f'<workbook xmlns="{MAIN}"/>'), "xl/workbook.xml", "a workbook without sheets"),
    ],
    ids=["sheet", "workbook", "undefined-entity", "shared-strings", "no-sheets"],
)
def test_malformed_xml_is_refused_naming_the_part_and_line(raw, field, message):
    error = refused(raw)
    assert error.field == field and error.message.startswith(message), (error.field, error.message)


def test_the_reader_needs_neither_openpyxl_nor_defusedxml(monkeypatch):
    """What proves the parse path safe as ./run installs it (requirements.txt, where
    defusedxml is not): with neither importable, a sheet still reads and a DTD is
    still refused: the spreadsheet's XML goes through concord.reading's parser only."""
    good = crowd_sheet('<row r="2"><c r="A2" t="inlineStr"><is><t>w1</t></is></c></row>')
    bad = entity_sheet(chars=100, cells=3)
    for name in [name for name in sys.modules if name.split(".")[0] in {"openpyxl", "defusedxml"}]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl: ImportError
    monkeypatch.setitem(sys.modules, "defusedxml", None)
    assert rows(good)[1] == (2, ["w1"])
    assert "document type declaration" in refused(bad).message


@pytest.mark.django_db
def test_hostile_sheets_are_400s_through_the_wizard_and_write_nothing(client, people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    client.force_login(people["organiser"])
    files = {
        "entity.xlsx": entity_sheet(chars=200, cells=50),
        "laughs.xlsx": workbook(sheet_xml(f'<row r="1">{inline("A1", "&lol9;")}</row>', prolog=LAUGHS)),
        "broken.xlsx": workbook(b"<worksheet><sheetData><row></sheetData>"),
        "book.xlsx": workbook(sheet_xml(""), book="<workbook"),
    }
    for name, raw in files.items():
        page = client.post(
            f"/campaigns/{campaign.pk}/uploads/import/", {"step": "preview", "file": SimpleUploadedFile(name, raw)}
        )
        assert page.status_code == 400, name
        assert page.context["error"].field.startswith("xl/"), (name, page.context["error"].field)
    assert Topic.objects.filter(campaign=campaign).count() == 0 and Judgment.objects.count() == 0


# -- shared strings, cells, rows: bounded ----------------------------------------------------


def test_a_shared_string_flood_is_refused_at_its_count(settings):
    settings.CONCORD_MAX_UPLOAD_BYTES = 16 * 1000  # 1,000 shared strings at most
    strings = "<si/>" * 1_001  # 5 KB
    raw = workbook(
        sheet_xml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'),
        shared=f'<sst xmlns="{MAIN}">{strings}</sst>',
        compression=zipfile.ZIP_DEFLATED,
    )
    error = refused(raw)
    assert error.field == "xl/sharedStrings.xml" and error.message.startswith("more than 1,000 shared strings")


def test_shared_strings_are_held_against_the_memory_budget(settings):
    settings.CONCORD_IMPORT_MEMORY_BYTES = 100_000
    strings = "".join(f"<si><t>{'x' * 1000}{n}</t></si>" for n in range(200))  # 200 KB of text
    raw = workbook(
        sheet_xml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'), shared=f'<sst xmlns="{MAIN}">{strings}</sst>'
    )
    error = refused(raw)
    assert "CONCORD_IMPORT_MEMORY_BYTES" in error.message


def test_a_cell_longer_than_a_csv_field_is_refused_naming_the_cell():
    long = "y" * (csv.field_size_limit() + 1)
    error = refused(crowd_sheet(f'<row r="2">{inline("B2", long)}</row>'))
    assert error.field == "cell B2" and "more than a table's cell holds" in error.message
    shared = workbook(
        sheet_xml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'), shared=f"<sst><si><t>{long}</t></si></sst>"
    )
    assert refused(shared).field == "xl/sharedStrings.xml"


def test_cells_past_the_budget_are_refused_naming_it(settings):
    settings.CONCORD_IMPORT_MAX_CELLS = 10_000
    error = refused(dimension_bomb())  # one row of 16,384 cells
    assert error.field == "file" and "CONCORD_IMPORT_MAX_CELLS" in error.message


def test_cpu_past_the_budget_is_refused_naming_it(settings):
    settings.CONCORD_IMPORT_CPU_SECONDS = 0
    many = "".join(f'<row r="{n}"><c r="A{n}"><v>{n}</v></c></row>' for n in range(2, 20_000))
    error = refused(crowd_sheet(many))
    assert error.field == "file" and "CONCORD_IMPORT_CPU_SECONDS" in error.message


@pytest.mark.django_db
def test_a_million_row_sheet_with_a_bad_row_2_fails_at_row_2_having_read_few_rows(settings, people):
    settings.CONCORD_MAX_UPLOAD_BYTES = 64 * 2**20
    good = b"<row><c><v>1</v></c><c><v>2</v></c><c><v>1</v></c></row>"
    body = b"<row><c><v>1</v></c><c><v>2</v></c><c><v>7</v></c></row>" + good * 999_998
    header = f"<row>{inline('A1', 'worker')}{inline('B1', 'item')}{inline('C1', 'label')}</row>".encode()
    raw = workbook(sheet_xml(header + body), compression=zipfile.ZIP_STORED)
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    with budget.scope() as used, pytest.raises(InvalidInput) as error:
        wizard.prepare(campaign, raw, "big.xlsx", wizard.Choices())
    assert error.value.field == "row 2: label" and "'7' is not a match label" in error.value.message
    # The rows converted ahead of the crowd reader: a chunk of XML and of CSV, not the sheet.
    assert used.rows_read < 20_000, used.rows_read


@pytest.mark.django_db
def test_an_error_names_the_sheet_row_past_rows_the_file_lacks(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    raw = crowd_sheet(
        f'<row r="2">{inline("A2", "w1")}{inline("B2", "i1")}{inline("C2", "1")}</row>'
        f'<row r="7">{inline("A7", "w2")}{inline("B7", "i1")}{inline("C7", "perhaps")}</row>'
    )
    with pytest.raises(InvalidInput) as error:
        wizard.prepare(campaign, raw, "gaps.xlsx", wizard.Choices())
    assert error.value.field == "row 7: label"
