"""Importing prompts with outputs and existing battles: all or nothing, a bad row named by line
and field, a model judge marked, its leaderboard beside the people's."""

from __future__ import annotations

import codecs
import csv
import io

import openpyxl
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.models import Judgment, Membership, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from kinds.preference.importers import upload_battles, upload_prompts
from scoring import jobs
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db
User = get_user_model()

PROMPTS = b"""prompt_id,system,prompt,output
q1,gpt,"Name a prime.",7
q1,llama,"Name a prime.",9
q1,mistral,"Name a prime.",2
q2,gpt,Say hi,hi
q2,llama,Say hi,hello there
"""


@pytest.fixture
def campaign(people):
    return create_campaign(creator=people["organiser"], kind="preference", name="Arena", overlap=1)


def upload(campaign, name, raw, filename, **options):
    run = upload_prompts if name == "prompts" else upload_battles
    return run(campaign, {name: [(filename, raw)]}, options)


def test_prompts_with_outputs_become_topics_in_file_order(campaign):
    said = upload(campaign, "prompts", PROMPTS, "prompts.csv")
    assert said == "Imported 2 prompts with 5 outputs."
    q1 = Topic.objects.get(campaign=campaign, external_id="q1")
    assert q1.data == {
        "prompt": "Name a prime.",
        "outputs": [
            {"system": "gpt", "text": "7"},
            {"system": "llama", "text": "9"},
            {"system": "mistral", "text": "2"},
        ],
    }


def test_prompts_read_from_json_lines(campaign):
    raw = b'{"prompt_id": "q1", "prompt": "p", "system": "a", "output": "x"}\n\n{"prompt_id": "q1", "prompt": "p", "system": "b", "output": 3}\n'
    upload(campaign, "prompts", raw, "prompts.jsonl")
    assert Topic.objects.get(campaign=campaign).data["outputs"][1] == {"system": "b", "text": "3"}


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (PROMPTS + b"q2,gpt,Say hi,again\n", "prompts: line 7", "system: 'gpt' has an output to prompt 'q2' already"),
        (PROMPTS + b"q2,mistral,Say hello,hey\n", "prompts: line 7", "prompt: prompt 'q2' has another text"),
        (PROMPTS + b",mistral,Say hi,hey\n", "prompts: line 7", "prompt_id: required"),
        (b"prompt_id,system,prompt\nq1,a,p\n", "prompts: line 2", "output: required"),
        (b"prompt_id,system,prompt,output\nq1,a,p,x\n", "prompts: line 2", "system: one output ('a')"),
    ],
)
def test_a_bad_prompts_file_is_refused_naming_the_line_and_nothing_is_written(campaign, raw, field, message):
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "prompts", raw, "prompts.csv")
    assert refused.value.field.startswith(field) and message in refused.value.message, refused.value
    assert not Topic.objects.filter(campaign=campaign).exists()


BATTLES = b"""question_id,model_a,model_b,winner,judge,turn
q1,gpt,llama,model_a,ann,1
q1,llama,mistral,tie (bothbad),ann,1
q1,gpt,mistral,model_b,bea,1
q2,llama,gpt,tie,bea,1
q1,gpt,llama,model_a,gpt-4,1
q1,llama,gpt,model_b,gpt-4,1
"""


def test_battles_become_imported_raters_judgments_with_the_sides_as_given(campaign):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    said = upload(campaign, "battles", BATTLES, "battles.csv", model_judges="gpt-4")
    assert said == "Imported 6 votes by 3 raters; 1 marked model judge."
    ann = Judgment.objects.get(topic__external_id="q1", assessor__username="ann")
    assert ann.status == "submitted" and ann.payload["verdicts"] == [
        {"pair": "1-2", "left": 1, "right": 2, "choice": "left"},
        {"pair": "2-3", "left": 2, "right": 3, "choice": "both_bad"},
    ]
    judge = Judgment.objects.get(topic__external_id="q1", assessor__username="gpt-4")
    assert [(v["left"], v["choice"]) for v in judge.payload["verdicts"]] == [(1, "left"), (2, "right")]
    assert Membership.objects.get(campaign=campaign, user__username="gpt-4").model_judge
    assert Membership.objects.get(campaign=campaign, user__username="ann").imported
    jobs.recompute_reports(campaign.pk, everything=True)
    report = campaign_report(campaign).data
    assert report.votes == 4 and [j.judge for j in report.model_judges] == ["gpt-4"]
    assert report.model_judges[0].consistency.units == 1 and report.model_judges[0].consistency.share == 1.0


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (b"q9,gpt,llama,model_a,ann,1", "prompt_id: no prompt 'q9'"),
        (b"q2,gpt,mistral,model_a,ann,1", "system_b: prompt 'q2' has no output of 'mistral'"),
        (b"q1,gpt,gpt,model_a,ann,1", "system_b: the same system"),
        (b"q1,gpt,llama,left,ann,1", "winner: 'left'"),
        (b"q1,gpt,llama,model_a,,1", "rater: required"),
    ],
)
def test_a_bad_battle_is_refused_naming_its_line_and_nothing_is_written(campaign, row, message):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", BATTLES + row + b"\n", "battles.csv")
    assert refused.value.field == "battles: line 8" and message in refused.value.message, refused.value
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


def test_a_model_judge_not_among_the_raters_is_refused_before_anything_is_written(campaign):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", BATTLES, "battles.csv", model_judges="gpt-5")
    assert refused.value.field == "model_judges"
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


def test_more_than_ten_votes_of_one_pair_by_one_rater_are_refused(campaign):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    raw = b"prompt_id,system_a,system_b,winner,rater\n" + b"q1,gpt,llama,a,ann\n" * 11
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", raw, "battles.csv")
    assert "at most 10 verdicts of one pair" in refused.value.message
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


# -- files as people have them: an .xlsx workbook, Excel's CSV ------------------------------


def workbook(rows: list[list[object]]) -> bytes:
    """An .xlsx as openpyxl (and so Excel's own format) writes it."""
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


LONG_ANSWER = "# Answer\n7; it has no divisors but 1 and 7.\n\n## Why, briefly\nA prime's divisors are 1 and itself."


def test_prompts_and_battles_read_from_xlsx_workbooks(campaign):
    prompts = workbook(
        [
            ["prompt_id", "prompt", "system", "output"],
            [101, "Name a prime.", "gpt", LONG_ANSWER],
            [101, "Name a prime.", "llama", 9],
            [None],
            [102, "Say hi", "gpt", "hi"],
            [102, "Say hi", "llama", "hello"],
        ]
    )
    assert upload(campaign, "prompts", prompts, "prompts.xlsx") == "Imported 2 prompts with 4 outputs."
    q1 = Topic.objects.get(campaign=campaign, external_id="101")
    assert q1.data["outputs"] == [{"system": "gpt", "text": LONG_ANSWER}, {"system": "llama", "text": "9"}]
    battles = workbook(
        [
            ["question_id", "model_a", "model_b", "winner", "judge", "turn"],
            [101, "llama", "gpt", "model_b", "ann", 1],
            [102, "gpt", "llama", "tie (bothbad)", "ann", 1],
        ]
    )
    assert upload(campaign, "battles", battles, "battles.xlsx") == "Imported 2 votes by 1 rater."
    ann = Judgment.objects.get(topic__external_id="101", assessor__username="ann")
    assert ann.payload["verdicts"] == [{"pair": "1-2", "left": 2, "right": 1, "choice": "right"}]


def test_a_bad_row_of_a_workbook_is_refused_naming_its_row(campaign):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    battles = workbook(
        [["prompt_id", "system_a", "system_b", "winner", "rater"], ["q1", "gpt", "llama", "a", "ann"], [None]]
        + [["q1", "gpt", "llama", "A is better", "ann"]]
    )
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", battles, "battles.xlsx")
    assert refused.value.field == "battles: row 4" and refused.value.message.startswith("winner: 'A is better'")
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


def excel_csv(rows: list[list[str]]) -> bytes:
    """A CSV as Excel saves it where the decimal separator is a comma: a byte-order mark,
    semicolons, CRLF between rows, and a field holding a semicolon, a quote or a line break
    (a cell's own, LF) quoted."""
    out = io.StringIO()
    csv.writer(out, delimiter=";", lineterminator="\r\n").writerows(rows)
    return codecs.BOM_UTF8 + out.getvalue().encode()


def test_prompts_and_battles_read_from_excel_csv(campaign):
    prompts = excel_csv(
        [
            ["prompt_id", "prompt", "system", "output"],
            ["q1", 'Name a prime; say "why".', "gpt", LONG_ANSWER],
            ["q1", 'Name a prime; say "why".', "llama", "9, because it is odd"],
            ["q2", "Say hi", "gpt", "hi"],
            ["q2", "Say hi", "llama", "hello"],
        ]
    )
    assert upload(campaign, "prompts", prompts, "prompts.csv") == "Imported 2 prompts with 4 outputs."
    q1 = Topic.objects.get(campaign=campaign, external_id="q1")
    assert q1.data["prompt"] == 'Name a prime; say "why".'
    assert [o["text"] for o in q1.data["outputs"]] == [LONG_ANSWER, "9, because it is odd"]
    battles = excel_csv(
        [["prompt_id", "system_a", "system_b", "winner", "rater"], ["q1", "gpt", "llama", "A", "ann"]]
        + [["q2", "llama", "gpt", "Tie", "ann"]]
    )
    assert upload(campaign, "battles", battles, "battles.csv") == "Imported 2 votes by 1 rater."
    assert Judgment.objects.get(topic__external_id="q2").payload["verdicts"][0]["choice"] == "tie"


def test_a_multi_line_output_names_the_line_its_row_starts_on(campaign):
    raw = excel_csv(
        [["prompt_id", "prompt", "system", "output"], ["q1", "p", "gpt", LONG_ANSWER], ["q1", "p", "gpt", "x"]]
    )
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "prompts", raw, "prompts.csv")
    # the first row takes lines 2-6 (its output has five)
    assert refused.value.field == "prompts: line 7" and "'gpt' has an output to prompt 'q1' already" in str(
        refused.value
    )


# -- bad files on the uploads page: a 400 naming the line and the field, nothing written ------


def post(client, campaign, name, raw, filename, **fields):
    return client.post(
        f"/campaigns/{campaign.pk}/uploads/",
        {"what": name, name: SimpleUploadedFile(filename, raw), **fields},
        HTTP_ACCEPT="application/json",
    )


def stored(campaign):
    return (
        Topic.objects.filter(campaign=campaign).count(),
        Judgment.objects.filter(topic__campaign=campaign).count(),
        User.objects.count(),
    )


@pytest.mark.parametrize(
    ("raw", "filename", "field", "message"),
    [
        (b"", "prompts.csv", "prompts", "no rows: the file is empty"),
        (b"", "prompts.jsonl", "prompts", "no rows: the file is empty"),
        (b"\xef\xbb\xbfprompt_id;prompt;system;output\r\n", "prompts.csv", "prompts", "no rows: a header"),
        (PROMPTS + b"q1,llama,Name a prime.,11\n", "prompts.csv", "prompts: line 7", "system: 'llama' has an output"),
        (PROMPTS + b"q3,gpt 4,Hi,x\n", "prompts.csv", "prompts: line 7", "system: expected an id"),
        (PROMPTS + b"q3,a,Hi,x\n", "prompts.csv", "prompts: line 7", "system: one output ('a')"),
        (PROMPTS.replace(b"output\n", b"output,output\n"), "p.csv", "prompts: line 1", "column 'output' appears twice"),
        (PROMPTS + b"q2,x,Say hi,a,b\n", "prompts.csv", "prompts: line 7", "5 fields, the header has 4"),
        (b"\x89PNG\r\n\x1a\n....", "prompts.csv", "prompts", "a PNG image: expected CSV"),
    ],
)
def test_a_bad_prompts_file_on_the_uploads_page_is_a_400_naming_line_and_field(
    client, people, campaign, raw, filename, field, message
):
    client.force_login(people["organiser"])
    before = stored(campaign)
    response = post(client, campaign, "prompts", raw, filename)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field and message in response.json()["detail"], response.json()
    assert stored(campaign) == before


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        (b"q1,gpt,llama,A>B,ann\n", "battles: line 3", "winner: 'A>B' (expected a, b, tie or both_bad"),
        (b"q2,gpt,mistral,a,ann\n", "battles: line 3", "system_b: prompt 'q2' has no output of 'mistral'"),
        (b"q7,gpt,llama,a,ann\n", "battles: line 3", "prompt_id: no prompt 'q7' in this campaign"),
        (b"q1,gpt,llama,a,Ann Smith\n", "battles: line 3", "rater: expected an id"),
        (b"q1,gpt,llama,a,alice\n", "battles: line 3", "rater: worker 'alice' is an existing account"),
        (b"q1,gpt,llama,a,ann\n" * 10 + b"q1,llama,gpt,b,ann\n", "battles: line 13", "at most 10 verdicts"),
    ],
)
def test_a_bad_battles_file_on_the_uploads_page_is_a_400_naming_line_and_field(
    client, people, campaign, rows, field, message
):
    client.force_login(people["organiser"])
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    before = stored(campaign)
    raw = b"prompt_id,system_a,system_b,winner,rater\nq2,gpt,llama,a,bea\n" + rows
    response = post(client, campaign, "battles", raw, "battles.csv")
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field and message in response.json()["detail"], response.json()
    assert stored(campaign) == before


def test_both_bad_in_a_campaign_without_it_names_the_vote_not_the_raters_first(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="preference", name="No both bad", overlap=1, params={"both_bad": False}
    )
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    raw = b"prompt_id,system_a,system_b,winner,rater\nq1,gpt,llama,a,ann\nq2,gpt,llama,b,bea\nq1,gpt,mistral,both_bad,ann\n"
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", raw, "battles.csv")
    assert (refused.value.field, refused.value.message) == (
        "battles: line 4",
        "winner: expected one of left, right, tie, got 'both_bad'",
    )
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


def test_battles_imported_twice_are_refused_the_second_time_naming_the_first_line_again(campaign):
    upload(campaign, "prompts", PROMPTS, "prompts.csv")
    upload(campaign, "battles", BATTLES, "battles.csv")
    versions = list(Judgment.objects.filter(topic__campaign=campaign).values_list("pk", "version", "payload"))
    header, rest = BATTLES.split(b"\n", 1)
    again = header + b"\nq2,gpt,llama,model_a,cy,1\n" + rest  # cy is new; ann's first vote, line 3, is there
    with pytest.raises(InvalidInput) as refused:
        upload(campaign, "battles", again, "battles.csv")
    assert (refused.value.field, refused.value.message) == (
        "battles: line 3",
        "rater: 'ann' has a judgment of prompt 'q1' already (a battles file adds judgments, it replaces none)",
    )
    assert list(Judgment.objects.filter(topic__campaign=campaign).values_list("pk", "version", "payload")) == versions


FORMULAS = ("=1+2", "+cmd|calc", "@SUM(A1:A9)", "-2+3")


def test_formula_looking_system_names_are_stored_as_given_and_neutralised_in_the_votes_export(campaign, api, people):
    raw = "prompt_id,prompt,system,output\n" + "".join(f"q1,p,{name},x{k}\n" for k, name in enumerate(FORMULAS))
    upload(campaign, "prompts", raw.encode(), "prompts.csv")
    assert [o["system"] for o in Topic.objects.get(campaign=campaign).data["outputs"]] == list(FORMULAS)
    battles = "prompt_id,system_a,system_b,winner,rater\n" + "".join(
        f"q1,{a},{b},a,@ann\n" for a, b in zip(FORMULAS, FORMULAS[1:])
    )
    upload(campaign, "battles", battles.encode(), "battles.csv")
    response = api(people["admin"]).get(f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "votes"})
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert [row[1:3] for row in rows[1:]] == [["'" + a, "'" + b] for a, b in zip(FORMULAS, FORMULAS[1:])]
