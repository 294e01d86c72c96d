"""annotate.imports.detect: what a file is, by its content."""

from __future__ import annotations

import codecs
import io
import zipfile

import openpyxl
import pytest

from annotate.imports import detect
from concord.errors import InvalidInput

CROWD = "worker;item;label\nw1;i1;yes\nw2;i1;no\n"


def xlsx(rows: list[list[object]], *, sheets: tuple[str, ...] = ("Sheet1",)) -> bytes:
    book = openpyxl.Workbook()
    book.active.title = sheets[0]
    for name in sheets[1:]:
        book.create_sheet(name)
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("raw", "encoding"),
    [
        (CROWD.encode(), "UTF-8"),
        (codecs.BOM_UTF8 + CROWD.encode(), "UTF-8 with a byte-order mark"),
        (codecs.BOM_UTF16_LE + CROWD.encode("utf-16-le"), "UTF-16 LE with a byte-order mark"),
        (codecs.BOM_UTF16_BE + CROWD.encode("utf-16-be"), "UTF-16 BE with a byte-order mark"),
    ],
)
def test_encoding_and_semicolons_are_detected_and_said(raw, encoding):
    found = detect.detect(raw, "crowd.csv")
    assert (found.format, found.encoding, found.delimiter) == ("csv", encoding, ";")
    assert "semicolon-separated: detected, reading with ';'" in found.notices
    assert detect.header(raw, found) == ["worker", "item", "label"]


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        ("worker,item,label\nw1,i1,1\n", ","),
        ("worker\titem\tlabel\nw1\ti1\t1\n", "\t"),
        # A comma inside a semicolon-separated row does not make it comma-separated.
        ('worker;item;label\nw1;"i1, i2";1\nw2;i3;0\n', ";"),
        ("a single column\nx\n", ","),
    ],
)
def test_delimiter(text, delimiter):
    assert detect.detect(text.encode(), "f.txt").delimiter == delimiter


def test_json_shapes():
    cases = {
        b'[{"external_id": "q1", "data": {}}]': "topics",
        b'{"topics": [{"external_id": "q1"}]}': "topics",
        b'[{"assessor": "a", "topic": "q1", "payload": {}}]': "judgments",
        b'[{"name": "sysA", "data": {}}]': "runs",
        b'[{"id": 3, "data": {"text": "x"}, "annotations": []}]': "labelstudio",
        b'{"topics": {"401": {"title": "x"}}, "documents": {}}': "trec",
        b'{"something": 1}': "",
    }
    assert {raw: detect.detect(raw).shape for raw in cases} == cases


def test_not_tables():
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    assert (detect.detect(png, "shot.csv").format, detect.detect(png).what) == ("image", "a PNG image")
    assert detect.detect(b"\x00\x01\x02\xff\xfe\x00garbage").format == "binary"
    assert detect.detect(b"<top>\n<num> Number: 401\n<title> foreign minorities\n</top>\n").format == "trec-topics"
    assert detect.detect(b"401 Q0 FBIS3-1 1 12.5 runA\n401 Q0 FBIS3-2 2 11.0 runA\n").format == "trec-run"
    assert detect.detect(b"401 0 FBIS3-1 1\n401 0 FBIS3-2 0\n").format == "trec-qrels"
    assert detect.detect(b'{"id": 1, "text": "a"}\n{"id": 2, "text": "b"}\n').format == "jsonl"


def test_zips_by_their_members():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("alice.jsonl", '{"id": 1}\n')
    assert detect.detect(out.getvalue(), "export.zip").format == "zip"
    assert detect.detect(xlsx([["worker"]]), "no-suffix").format == "xlsx"


def test_a_spreadsheet_reads_as_text_cells_from_the_chosen_sheet():
    raw = xlsx([["worker", "item", "label", None], ["w1", "i1", 1.0, None], [None, None, None], ["w2", 7, 0]])
    found = detect.detect(raw)
    assert detect.header(raw, found) == ["worker", "item", "label"]
    assert detect.table_csv(detect.table_rows(raw, found)) == b"worker,item,label\nw1,i1,1\nw2,7,0\n"
    two = xlsx([["a"]], sheets=("First", "Second"))
    assert detect.sheet_names(two) == ["First", "Second"]
    with pytest.raises(InvalidInput, match="no sheet 'Third' \\(sheets: First, Second\\)"):
        list(detect.table_rows(two, detect.detect(two), "Third"))


def test_mapping_renames_and_leaves_out_the_other_columns():
    rows = [["who", "what", "answer", "seconds"], ["w1", "i1", "yes", "12"]]
    assert detect.table_csv(rows, {"who": "worker", "what": "item", "answer": "label"}) == (
        b"worker,item,label\nw1,i1,yes\n"
    )


def test_a_table_larger_than_the_upload_limit_is_refused(settings):
    settings.CONCORD_MAX_UPLOAD_BYTES = 100
    with pytest.raises(InvalidInput, match="larger than 100 bytes as a table"):
        detect.table_csv([["worker", "item", "label"]] + [["w", "i", "1"]] * 50)


def test_detection_reads_only_the_head():
    # A bad byte past the head does not change what the file is (the reader names its line later).
    raw = b"worker,item,label\n" + b"w1,i1,1\n" * (detect.HEAD // 8 + 10) + b"w2,\xff,1\n"
    assert detect.detect(raw).format == "csv"


@pytest.mark.parametrize(
    ("bom", "codec", "lone", "label"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le", b"\x00\xd8", "UTF-16 LE"),
        (codecs.BOM_UTF16_LE, "utf-16-le", b"\x00\xdc", "UTF-16 LE"),
        (codecs.BOM_UTF16_BE, "utf-16-be", b"\xd8\x00", "UTF-16 BE"),
    ],
)
def test_utf16_with_a_byte_order_mark_and_a_lone_surrogate_says_so_and_where(bom, codec, lone, label):
    raw = bom + "worker,item,label\nw1,i1,1\n".encode(codec) + lone + "w2,i1,0\n".encode(codec)
    found = detect.detect(raw, "crowd.csv")
    assert (found.format, found.line) == ("undecodable", 3)
    assert found.what == (
        f"{label} with a byte-order mark, but byte 55 (line 3) is not {label}: a lone surrogate (half of a character)"
    )
    assert "without a byte-order mark" not in found.what
