"""Malformed import files: an error naming the line (or, for well-formed JSON,
the field), and nothing written, through every importer: the management
commands and the API uploads."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotate.imports import read
from annotate.imports.write import import_topics
from annotate.models import Assignment, Curation, Judgment, JudgmentRevision, Membership, Run, Topic
from concord.errors import InvalidInput
from kinds.clustering import importers as clustering_importers
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db

MODELS = [Topic, Run, Judgment, JudgmentRevision, Assignment, Membership, Curation, get_user_model()]


def snapshot() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


@pytest.fixture
def nothing_written():
    """Assert at the end of the test that no row was added or removed anywhere."""
    before = snapshot()
    yield
    assert snapshot() == before


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def refused(*args) -> str:
    """Run a command as from the shell (options as arguments) and return its error."""
    with pytest.raises(CommandError) as error:
        call_command(*map(str, args), stdout=io.StringIO(), stderr=io.StringIO())
    message = str(error.value)
    assert "nothing imported" in message, message
    return message


TOPICS_JSON = json.dumps(
    [
        {"external_id": "t2", "data": {"query": "Ann", "candidates": [{"id": "a", "text": "Anne"}]}},
        {"external_id": "t3", "data": {"query": "Bo", "candidates": [{"id": "b", "text": "Bob"}]}},
    ],
    indent=1,
)


# -- topics ----------------------------------------------------------------------


def test_import_topics_names_the_line_of_broken_json(every_kind, tmp_path, nothing_written):
    broken = TOPICS_JSON.replace('"Bob"', '"Bob",', 1)  # a trailing comma, line 16
    message = refused("import_topics", every_kind["pairs"].pk, write(tmp_path, "topics.json", broken))
    line = broken.splitlines().index(next(text for text in broken.splitlines() if '"Bob",' in text)) + 1
    assert re.search(rf"line {line + 1}, column \d+", message), message  # the parser stops at the next line's '}'


def test_import_topics_is_all_or_nothing_and_names_the_field(every_kind, tmp_path, nothing_written):
    bad = TOPICS_JSON.replace('"Bob"', '""')
    message = refused("import_topics", every_kind["pairs"].pk, write(tmp_path, "topics.json", bad))
    assert "topics[1].data.candidates[0].text" in message


def test_topic_upload_through_the_api(api, people, every_kind, nothing_written):
    upload = io.BytesIO(TOPICS_JSON[:-3].encode())
    upload.name = "topics.json"
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["field"] == "file" and re.match(r"line \d+, column \d+", response.json()["detail"])


# -- judgments: crowd CSV, SQuALITY, JSON -------------------------------------------------

CROWD = "worker,topic,candidate,label\nw1,t1,c1,1\nw1,t1,c2,0\nw1,t1,c3,maybe\n"


def test_crowd_csv_names_the_line_and_creates_no_worker(every_kind, tmp_path, nothing_written):
    message = refused("import_judgments", every_kind["pairs"].pk, write(tmp_path, "crowd.csv", CROWD))
    assert "line 4: label" in message


def test_crowd_csv_unknown_topic_late_in_the_file(every_kind, tmp_path, nothing_written):
    rows = "worker,topic,candidate,label\nw1,t1,c1,1\nw1,t1,c2,0\nw1,t1,c3,1\nw2,nope,c1,1\n"
    assert "line 5: topic" in refused("import_judgments", every_kind["pairs"].pk, write(tmp_path, "crowd.csv", rows))


def test_crowdtruth_topics_it_introduces_are_rolled_back(every_kind, tmp_path, nothing_written):
    rows = "!amt_worker_ids,orig_id,response,text,hypothesis\nw1,i1,1,A,B\nw2,i2,0,C,D\nw3,i3,perhaps,E,F\n"
    assert "line 4: label" in refused("import_judgments", every_kind["pairs"].pk, write(tmp_path, "rte.csv", rows))


def test_crowd_csv_through_the_api(api, people, every_kind, nothing_written):
    upload = io.BytesIO(CROWD.encode())
    upload.name = "crowd.csv"
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/judgments/import/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 400 and response.json()["field"] == "line 4: label"


def squality(passage: int, question: str = "1") -> str:
    answers = {
        system: {"response": f"answer {system}", "reviews": [{"worker_id": "r1", "overall-rank": rank}]}
        for rank, system in enumerate(["a", "b", "c"], 1)
    }
    return json.dumps({"passage-id": passage, "questions": {question: answers}})


def test_squality_names_the_line(every_kind, tmp_path, nothing_written):
    lines = "\n".join([squality(1), squality(2), '{"passage-id": 3, "questions": ']) + "\n"
    message = refused("import_judgments", every_kind["ordering"].pk, write(tmp_path, "all-responses.jsonl", lines))
    assert "line 3" in message


# Reported: read_squality parses only the top of each line inside its
# try; a wrong shape further in escapes as AttributeError/KeyError (a 500
# through the API, a traceback from the command). So does a CSV row with
# too few fields (None.strip()), and a CSV field over the csv module's limit.
IMPORTER_CRASHES = [
    pytest.param(
        "all-responses.jsonl",
        squality(1) + "\n" + '{"passage-id": 2, "questions": {"1": "no answers"}}\n',
        "line 2",
        id="squality-answers-not-an-object",
    ),
    pytest.param(
        "all-responses.jsonl",
        squality(1) + "\n" + squality(2).replace('"response"', '"reply"') + "\n",
        "line 2",
        id="squality-answer-without-response",
    ),
    pytest.param("crowd.csv", "worker,topic,candidate,label\nw1,t1,c1,1\nw1,t1\n", "line 3", id="csv-row-too-short"),
    pytest.param("crowd.csv", 'worker,item,label\nw1,"' + "x" * 200_000 + '",1\n', "line 2", id="csv-field-too-long"),
]


@pytest.mark.parametrize(("name", "content", "expected"), IMPORTER_CRASHES)
def test_importer_shapes_that_used_to_crash(every_kind, tmp_path, nothing_written, name, content, expected):
    kind = "ordering" if name.endswith(".jsonl") else "pairs"
    assert expected in refused("import_judgments", every_kind[kind].pk, write(tmp_path, name, content))


def test_json_judgments_all_or_nothing(every_kind, tmp_path, nothing_written):
    entries = [
        {"assessor": "x1", "topic": "t1", "payload": {"order": ["a", "b", "c"]}},
        {"assessor": "x2", "topic": "t1", "payload": {"order": ["a", "b"]}},
    ]
    message = refused("import_judgments", every_kind["ordering"].pk, write(tmp_path, "j.json", json.dumps(entries)))
    assert "judgments[1].payload.order" in message
    message = refused("import_judgments", every_kind["ordering"].pk, write(tmp_path, "j.json", "[\n{\n"))
    assert re.search(r"line 3, column \d+", message), message


# -- runs ---------------------------------------------------------------------------


def test_ordering_runs_csv_names_the_line(every_kind, tmp_path, nothing_written):
    rows = "topic,run,order\nt1,sys1,a b c\nt1,sys2,c b a\nt1,,a c b\n"
    assert "line 4" in refused("import_runs", every_kind["ordering"].pk, write(tmp_path, "runs.csv", rows))


def test_runs_all_or_nothing_when_a_late_run_is_wrong(every_kind, tmp_path, nothing_written):
    rows = "topic,run,order\nt1,sys1,a b c\nt1,sys2,c b\n"
    message = refused("import_runs", every_kind["ordering"].pk, write(tmp_path, "runs.csv", rows))
    assert "runs[1].data.orderings.t1" in message


def test_clustering_runs_csv_names_the_line(every_kind, tmp_path, nothing_written):
    rows = "topic,run,sentence,cluster\nt1,sys1,s1,A\nt1,sys1,,A\n"
    assert "line 3" in refused("import_runs", every_kind["clustering"].pk, write(tmp_path, "runs.csv", rows))


def test_runs_upload_through_the_api(api, people, every_kind, nothing_written):
    upload = io.BytesIO(b"topic,run,order\nt1,sys1,a b c\nt1,sys1,c b a\n")
    upload.name = "runs.csv"
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['ordering'].pk}/runs/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 400 and response.json()["field"] == "line 3"


# -- nuggets ----------------------------------------------------------------------------


def test_import_nuggets_key_names_the_line(every_kind, tmp_path, nothing_written):
    questions = write(tmp_path, "q.txt", "q1\tAspirin\nq2\tIbuprofen\n")
    key = write(tmp_path, "key.txt", "q1\tn1\tvital\tpainkiller\nq2\tn1\tokay\n")
    assert "key: line 2" in refused("import_nuggets", every_kind["nuggets"].pk, "--questions", questions, "--key", key)


def test_import_nuggets_questions_and_runs_are_one_transaction(every_kind, tmp_path, nothing_written):
    """Good questions, then runs with a broken line: the questions are not kept either."""
    questions = write(tmp_path, "q.txt", "q1\tAspirin\n")
    key = write(tmp_path, "key.txt", "q1\tn1\tvital\tpainkiller\n")
    runs = write(tmp_path, "runs.txt", "sysA\tq1\tAspirin kills pain.\nsysB\tq1\n")
    message = refused(
        "import_nuggets", every_kind["nuggets"].pk, "--questions", questions, "--key", key, "--runs", runs
    )
    assert "responses: line 2" in message


def test_import_nuggets_matches_name_the_line(every_kind, tmp_path, nothing_written):
    runs = write(tmp_path, "runs.txt", "sysA\tt1\tAspirin kills pain.\n")
    matches = write(tmp_path, "m.txt", "sysA\tt1\tn1\nsysB\tt1\tn2\n")
    assert "matches: line 2" in refused(
        "import_nuggets", every_kind["nuggets"].pk, "--runs", runs, "--matches", matches
    )


# -- AIPHES -------------------------------------------------------------------------------

NUGGETS = "1\tThe first nugget\n2\tThe second nugget\n3\tThe third nugget\n"
TREE = '<Tree><Bubble><Nugget id="1"/><Nugget id="2"/></Bubble><Bubble><Nugget id="3"/></Bubble></Tree>'


def test_import_aiphes_nuggets_name_the_line(every_kind, tmp_path, nothing_written):
    nuggets = write(tmp_path, "Topic_9.txt", NUGGETS + "four\tnot a number\n")
    tree = write(tmp_path, "tree.xml", TREE)
    message = refused("import_aiphes", every_kind["clustering"].pk, nuggets, "--trees", tree, "--topic", "t9")
    assert "line 4" in message


def test_import_aiphes_broken_tree_xml_names_line_and_column(every_kind, tmp_path, nothing_written):
    nuggets = write(tmp_path, "Topic_9.txt", NUGGETS)
    (tmp_path / "Annotator1").mkdir()
    good = write(tmp_path / "Annotator1", "tree.xml", TREE)
    (tmp_path / "Annotator2").mkdir()
    broken = write(tmp_path / "Annotator2", "tree.xml", TREE.replace("</Bubble><Bubble>", "<Bubble>", 1))
    message = refused("import_aiphes", every_kind["clustering"].pk, nuggets, "--trees", good, broken, "--topic", "t9")
    assert re.search(r"not XML: .*line 1, column \d+", message), message


def test_import_aiphes_topic_is_rolled_back_when_a_tree_is_wrong(every_kind, tmp_path, nothing_written):
    nuggets = write(tmp_path, "Topic_9.txt", NUGGETS)
    (tmp_path / "Annotator1").mkdir()
    tree = write(tmp_path / "Annotator1", "tree.xml", TREE.replace('id="3"', 'id="99"'))
    message = refused("import_aiphes", every_kind["clustering"].pk, nuggets, "--trees", tree, "--topic", "t9")
    assert "judgments[0].payload.clusters" in message


# -- pools ----------------------------------------------------------------------------------


def test_build_pools_names_the_line_of_broken_json(every_kind, tmp_path, nothing_written):
    queries = write(tmp_path, "queries.json", '{\n "q1": "Ann Lee",\n "q2": "Bo Chen"\n')
    results = {"q1": [{"id": "x", "text": "Anne Lee"}]}
    runs = write(tmp_path, "runs.json", json.dumps([{"name": "s1", "data": {"results": results}}]))
    message = refused("build_pools", every_kind["pairs"].pk, "--queries", queries, "--runs", runs)
    assert re.search(r"queries: line \d+, column \d+", message), message


def test_build_pools_all_or_nothing(every_kind, tmp_path, nothing_written):
    queries = write(tmp_path, "queries.json", json.dumps({"q1": "Ann Lee", "q2": "Bo Chen"}))
    runs = write(
        tmp_path,
        "runs.json",
        json.dumps(
            [
                {"name": "s1", "data": {"results": {"q1": [{"id": "x", "text": "Anne Lee"}]}}},
                {"name": "s2", "data": {"results": {"q9": [{"id": "y", "text": "Nobody"}]}}},
            ]
        ),
    )
    assert "runs[1].data.results.q9" in refused(
        "build_pools", every_kind["pairs"].pk, "--queries", queries, "--runs", runs
    )


# -- the parsers themselves -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "content", "field"),
    [
        (read.read_topics, b"\xff\xfe[]", "file"),
        (read.read_topics, b'{"topics": 3}', "file"),
        (lambda raw: read.read_crowd_csv(raw), b"who,what\nx,y\n", "file"),
        (lambda raw: read.read_runs(raw, kind=KINDS["pairs"], filename="r.json"), b'{"runs": {}}', "file"),
        (read.read_judgments_json, b"[1,\n2,\n", "file"),
        (lambda raw: clustering_importers.read_aiphes_tree(raw), b"<Tree><Bubble>", "file"),
    ],
)
def test_parsers_refuse_with_invalid_input(parse, content, field):
    with pytest.raises(InvalidInput) as error:
        parse(content)
    assert error.value.field == field and error.value.message


def test_services_leave_nothing_behind_on_a_late_error(every_kind, nothing_written):
    campaign = every_kind["pairs"]
    topics = json.loads(TOPICS_JSON) + [{"external_id": "t4", "data": {"query": "Cy", "candidates": []}}]
    with pytest.raises(InvalidInput, match="candidates"):
        import_topics(campaign=campaign, topics=topics)
