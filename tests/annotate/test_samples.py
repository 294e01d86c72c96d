"""The uploads page's sample files: built from each kind's
examples, each downloads from the page's links and imports back."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.models import Judgment, Run
from annotate.services.campaigns import create_campaign
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db
User = get_user_model()


def imported(client, campaign, name: str, raw: bytes) -> None:
    url = f"/campaigns/{campaign.pk}/uploads/import/"
    page = client.post(url, {"step": "preview", "file": SimpleUploadedFile(name, raw)})
    assert page.status_code == 200, (name, page.context and page.context.get("error"))
    assert client.post(url, {"step": "confirm"}).status_code == 302


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_sample_file_downloads_and_imports_back(client, people, kind):
    spec = KINDS[kind]
    client.force_login(people["organiser"])

    def campaign(name: str):
        return create_campaign(
            creator=people["organiser"], kind=kind, name=name, overlap=1, params=dict(spec.examples.params)
        )

    first = campaign("Samples")
    page = client.get(f"/campaigns/{first.pk}/uploads/").content.decode()
    links = re.findall(r'href="(/campaigns/\d+/uploads/samples/([^"]+))" download', page)
    files = {name: client.get(link) for link, name in links}
    assert {name.removeprefix(f"{kind}-") for name in files} >= {"topics.json", "judgments.json"}
    for name, response in files.items():
        assert response.status_code == 200
        assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    raw = {name.removeprefix(f"{kind}-"): b"".join(response) for name, response in files.items()}

    imported(client, first, "topics.json", raw["topics.json"])
    if "runs.json" in raw:
        imported(client, first, "runs.json", raw["runs.json"])
        assert Run.objects.filter(campaign=first, name="sysA").exists()
    imported(client, first, "judgments.json", raw["judgments.json"])
    stored = list(Judgment.objects.filter(topic__campaign=first).order_by("assessor__username"))
    assert [j.payload for j in stored] == [
        spec.data.clean_judgment(dict(p), stored[0].topic.data, complete=True, params=first.params)
        for p in spec.examples.payloads
    ]
    # The kind's own judgments files, by the formats it reads (docs/formats.md, "Label Studio and doccano").
    interchange = {"judgments.labelstudio.json": ".labelstudio.json", "judgments.doccano.zip": ".zip"}
    offered = sorted(name for name in raw if name in interchange)
    assert offered == sorted(name for name, suffix in interchange.items() if suffix in spec.judgment_files)
    User.objects.filter(username__startswith="assessor-").delete()  # the same names come back as workers
    for table in ("crowd.csv", "crowd.xlsx", *offered):
        if table not in raw:
            continue
        # Crowd workers are accounts of one campaign: each table goes into a campaign of its own.
        other = campaign(table)
        imported(client, other, "topics.json", raw["topics.json"])
        imported(client, other, table, raw[table])
        assert [j.payload for j in Judgment.objects.filter(topic__campaign=other).order_by("assessor__username")] == [
            j.payload for j in stored
        ]
        User.objects.filter(username__regex=r"^(worker|assessor)-").delete()


def test_an_unknown_sample_is_not_found(client, people, campaign):
    client.force_login(people["organiser"])
    assert client.get(f"/campaigns/{campaign.pk}/uploads/samples/pairs-nothing.csv").status_code == 404
