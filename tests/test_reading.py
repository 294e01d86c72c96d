"""Every importer reads through concord.reading: within the upload limit, text
decoded line by line as it is read, zips unpacked within a ratio of their size,
XML nested to a bound. Each test here failed before the readers went through it."""

from __future__ import annotations

import io
import json
import zipfile
from types import SimpleNamespace

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports import interchange
from annotate.imports import read as importers
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.clustering import importers as clustering_importers
from kinds.nuggets import importers as nuggets_importers
from kinds.ordering import importers as ordering_importers
from kinds.registry import KINDS
from tests.kinds.test_limits import Counted, counted

LINE = json.dumps({"id": 1, "text": "The same sentence, again and again.", "label": ["match"]}) + "\n"


def zipped(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


# -- zips --------------------------------------------------------------------------


def test_a_small_zip_that_unpacks_far_past_its_size_is_refused_before_any_line_is_read():
    """A few kilobytes of doccano zip holding megabytes of lines (200 MiB in 20 KB would
    take 47 s and 2.7 GB to read) is refused from its declared sizes: a zip
    unpacks to 100 times its size (1 MiB always allowed) and the upload limit at most."""
    bomb = zipped({"alice.jsonl": LINE.encode() * 100_000})
    assert len(bomb) < 30_000 and len(LINE) * 100_000 > 3 * 2**20
    with pytest.raises(InvalidInput) as refused:
        interchange.read_doccano(bomb)
    assert refused.value.field == "file"
    allowed = reading.size_text(100 * len(bomb))
    assert refused.value.message == (
        f"says it unzips to 7.34 MiB, more than {allowed}: a zip may unpack to 100 times its size "
        "(1 MiB at least), and to 50 MiB at most"
    )
    assert reading.unzipped_allowance(20 * 2**20) == 50 * 2**20  # the upload limit


def test_a_zip_whose_sizes_lie_unpacks_no_more_than_it_declares():
    """zipfile stops at the declared size and checks the CRC: the declared sizes,
    checked before anything is unpacked, bound what is read (and it is counted too)."""
    archive = bytearray(zipped({"alice.jsonl": LINE.encode() * 40_000}))  # 1.7 MiB unpacked
    for signature, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # local header, central directory
        start = archive.index(signature) + at
        archive[start : start + 4] = (100).to_bytes(4, "little")
    read = 0
    with pytest.raises(InvalidInput) as refused:
        for member in reading.zip_members(bytes(archive)):
            while chunk := member.read(reading.CHUNK):
                read += len(chunk)
    assert read <= 100 and "cannot be unzipped (Bad CRC-32" in refused.value.message


def test_a_doccano_zip_stops_at_its_first_bad_line_without_unpacking_the_rest():
    """Line 1 is not JSON; far past the first chunk the file is not even UTF-8. Read whole
    before any check, the file was refused for its encoding, at its last line."""
    content = b"{not json\n" + LINE.encode() * 5_000 + b"\xff\xfe\n"
    with pytest.raises(InvalidInput) as refused:
        interchange.read_doccano(zipped({"alice.jsonl": content}))
    assert refused.value.field.startswith("alice.jsonl: line 1")


def test_a_doccano_export_still_reads_back():
    files = {"alice": [{"id": 1, "text": "a", "label": ["x"]}], "bob": [{"id": 1, "text": "a"}]}
    examples = interchange.read_doccano(interchange.write_doccano(files))
    assert [(e.worker, e.labels, e.where) for e in examples] == [
        ("alice", ["x"], "alice.jsonl: line 1"),
        ("bob", [], "bob.jsonl: line 1"),
    ]


# -- text, line by line ------------------------------------------------------------

TEXTS = [
    "a\nb\r\nc\rd\n\ne",
    "é" * 40 + "\n" + "€𝄞" * 30 + "\r\n\r\n",
    "\u2028x\x0by\x1cz\n\n",
    "",
    "no newline at the end",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_lines_are_numbered_as_splitlines_numbers_them_across_chunks(monkeypatch, text, encoding):
    """Read three bytes at a time, so that characters, BOMs and CRLFs fall across chunks."""
    monkeypatch.setattr(reading, "CHUNK", 3)
    assert list(reading.numbered(text.encode(encoding))) == list(enumerate(text.splitlines(), start=1))
    assert "".join(reading.Lines(text.encode(encoding))) == text


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (b"ok\nok\n\xe2\x82 broken\n", "line 3", "not UTF-8 text (byte 7)"),
        (b"ok\n" * 30_000 + b"\xff\n", "line 30001", "not UTF-8 text (byte 90001)"),
        (b"ok\nNUL \x00 here\n", "line 2", "NUL"),
        ("a\x00b\x00c\x00\n".encode("latin-1"), "line 1", "UTF-16 without a byte-order mark"),
    ],
)
def test_bad_text_is_refused_naming_its_line(raw, field, message):
    with pytest.raises(InvalidInput) as refused:
        list(reading.numbered(raw))
    assert refused.value.field == field and message in refused.value.message


# -- every reader: the upload limit --------------------------------------------------

OVER = 2048


READERS = {
    "crowd CSV": lambda raw: importers.read_crowd_csv(raw),
    "topics JSON": importers.read_topics,
    "runs": lambda raw: importers.read_runs(raw, kind=KINDS["ordering"], filename="r.csv"),
    "Label Studio JSON": interchange.read_labelstudio,
    "doccano zip": lambda raw: interchange.read_doccano(zipped({"a.jsonl": raw})),
    "SQuALITY JSONL": ordering_importers.read_squality,
    "TREC-like nuggets": lambda raw: nuggets_importers.read_nugget_runs(raw),
    "AIPHES nuggets": lambda raw: clustering_importers.read_aiphes_topic(raw, topic="1"),
    "AIPHES tree": clustering_importers.read_aiphes_tree,
}


@pytest.mark.parametrize("name", READERS)
def test_every_reader_refuses_a_file_over_the_upload_limit(settings, name):
    """A file over CONCORD_MAX_UPLOAD_BYTES (a management command's too) is refused
    whole, naming the limit, before anything of it is parsed."""
    settings.CONCORD_MAX_UPLOAD_BYTES = OVER
    raw = b"x" * (OVER + 1) if name != "doccano zip" else b"\n" * (OVER + 1)
    if name == "doccano zip":
        raw = zipped({f"w{k}.jsonl": b"" for k in range(40)})  # the zip itself is over
        assert len(raw) > OVER
        with pytest.raises(InvalidInput, match="larger than 2 KiB"):
            interchange.read_doccano(raw)
        return
    with pytest.raises(InvalidInput, match="larger than 2 KiB"):
        READERS[name](raw)


def test_a_command_reads_no_further_than_the_limit(settings, tmp_path):
    settings.CONCORD_MAX_UPLOAD_BYTES = OVER
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * OVER + b"]")
    with pytest.raises(InvalidInput) as refused:
        reading.read_file(path)
    assert refused.value.field == str(path) and "larger than 2 KiB" in refused.value.message
    path.write_bytes(b"[]")
    assert reading.read_file(path) == b"[]"


def test_a_csv_header_of_many_columns_is_checked_in_one_pass():
    """check_columns counted each column with list.count: a header of 20,000 columns
    cost 400 million comparisons. Counted (tests/kinds/test_limits.py), it is linear."""
    columns = counted(["worker", "item", "label", *(f"c{k}" for k in range(2000)), "label"])
    Counted.operations = 0
    with pytest.raises(InvalidInput, match="column 'label' appears twice"):
        importers.check_columns(SimpleNamespace(fieldnames=columns), importers.ITEM_COLUMNS)
    assert Counted.operations < 10 * len(columns)


# -- XML -----------------------------------------------------------------------------


def test_a_tree_nested_thousands_deep_is_refused_with_its_line():
    """3,000 nested bubbles raised RecursionError (a 500)."""
    tree = "<root>\n" + "<Bubble>\n" * 3000 + '<Nugget id="1"/>' + "</Bubble>" * 3000 + "</root>"
    with pytest.raises(InvalidInput) as refused:
        clustering_importers.read_aiphes_tree(tree.encode())
    assert refused.value.field == "file"
    assert refused.value.message == "line 101: elements nested deeper than 100 levels"


def test_a_document_type_declaration_is_refused():
    laughs = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><root>&b;</root>'
    with pytest.raises(InvalidInput, match="document type declaration"):
        clustering_importers.read_aiphes_tree(laughs)


def test_trees_cut_as_before():
    tree = """<root><Nugget id="0"/>
      <Bubble><Nugget id="1"/><Bubble><Nugget id="2"/><Bubble><Nugget id="3"/></Bubble></Bubble></Bubble>
      <Bubble><Other><Nugget id="9"/></Other><Bubble><Nugget id="4"/></Bubble></Bubble>
      <Other><Bubble><Nugget id="8"/></Bubble></Other></root>"""
    assert clustering_importers.read_aiphes_tree(tree, depth=1) == [["1", "2", "3"], ["4"]]
    assert clustering_importers.read_aiphes_tree(tree, depth=2) == [["1"], ["2", "3"], ["4"]]


@pytest.mark.django_db
def test_the_uploads_page_answers_a_deep_tree_with_400_and_imports_nothing(client, people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="Trees", overlap=1)
    client.force_login(people["organiser"])
    deep = "<root>" + "<Bubble>" * 3000 + "</Bubble>" * 3000 + "</root>"
    answer = client.post(
        f"/campaigns/{campaign.pk}/uploads/",
        {
            "what": "aiphes",
            "nuggets": SimpleUploadedFile("n.txt", b"1\tA nugget\n2\tAnother\n"),
            "trees": [SimpleUploadedFile("t_Anno1.xml", deep.encode())],
            "options.topic": "1",
            "options.depth": "1",
        },
        HTTP_ACCEPT="application/json",
    )
    assert answer.status_code == 400, answer.content
    assert answer.json()["field"] == "trees: annotator1" and "line 1: elements nested deeper" in answer.json()["detail"]
    assert not campaign.topics.exists() and not Judgment.objects.filter(topic__campaign=campaign).exists()


def test_every_xml_an_upload_holds_is_parsed_by_concord_reading_only():
    """No DTD and no entity in any upload's XML (docs/security.md): concord.reading's
    parser refuses them, and no other parser reads uploads. defusedxml is not in
    requirements.txt and need not be: nothing here leans on it (openpyxl would,
    were it reading spreadsheets; annotate/imports/xlsx.py reads them, and openpyxl only
    writes the sample workbook)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    other_parsers = re.compile(
        r"^\s*(import|from)\s+(xml\.(etree|dom|sax)|lxml|defusedxml|bs4)\b|\b(ElementTree|iterparse|load_workbook)\("
    )
    # The application's modules; a kind's tests (kinds/<kind>/tests/) parse what they build.
    modules = [
        path
        for folder in ("annotate", "concord", "kinds", "scoring")
        for path in (root / folder).rglob("*.py")
        if "tests" not in path.relative_to(root).parts
    ]
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in modules
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if other_parsers.search(line)
    ]
    assert found == []
    expat_users = sorted(str(path.relative_to(root)) for path in modules if "expat" in path.read_text())
    assert expat_users == ["concord/reading.py"]
