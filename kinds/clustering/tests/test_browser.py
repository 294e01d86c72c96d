"""An assessor clusters sentences by drag and drop and by keyboard, leaves some
out, ranks the clusters and submits; the organiser's page then shows the new
inter-judge agreement without a reload. With rules that block, a cluster that
breaks a rule keeps Submit disabled until it is fixed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.clustering.stats import complete_with_irrelevant, v_beta

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DOCUMENTS = {
    "d1": (
        "Reuters",
        [
            "A strong earthquake struck the coast on Monday.",
            "The quake measured 7.3 on the Richter scale.",
            "Schools were closed for the day.",
            "The weather stayed mild.",
        ],
    ),
    "d2": (
        "AP",
        [
            "An earthquake hit the coastal region early Monday.",
            "Seismologists put its magnitude at 7.3.",
            "At least four people were killed.",
        ],
    ),
    "d3": (
        "BBC",
        [
            "Monday's earthquake shook buildings along the coast.",
            "Two people died, officials said.",
            "Rescue teams searched the rubble.",
        ],
    ),
}
SENTENCES = [
    {"id": f"s{n}", "document": doc, "position": position, "text": text}
    for n, (doc, position, text) in enumerate(
        ((doc, position, text) for doc, (_, texts) in DOCUMENTS.items() for position, text in enumerate(texts)), 1
    )
]
TOPIC = {
    "external_id": "quake",
    "title": "Coastal earthquake",
    "data": {
        "documents": [{"id": doc, "title": title} for doc, (title, _) in DOCUMENTS.items()],
        "sentences": SENTENCES,
    },
}
BOB = {
    "clusters": [["s1", "s5", "s8"], ["s2", "s6"], ["s7", "s9", "s4"]],
    "descriptions": ["Quake", "Magnitude", "Deaths"],
}


def make_campaign(people, **params):
    campaign = create_campaign(
        creator=people["organiser"], kind="clustering", name="Quake clusters", overlap=2, params=params or None
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[TOPIC])
    return campaign


@pytest.fixture
def clustering_campaign(people):
    campaign = make_campaign(people)
    topic = campaign.topics.get()
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    return campaign


def shown_clusters(page) -> list[list[str]]:
    return page.locator("#clusters .cluster").evaluate_all(
        "cs => cs.map(c => Array.from(c.querySelectorAll('.sentence')).map(s => s.dataset.id))"
    )


def focused(page) -> str:
    return page.locator(".sentence.focused").get_attribute("data-id")


def drag(page, sentence: str, cluster: int) -> None:
    """Drag a sentence into the space below a cluster's last sentence.

    By hand rather than with drag_to: SortableJS ignores drag-over events
    while a list animates, and drag_to sends only one at the drop point, so
    the pointer lingers there as a person's would."""
    target = page.locator("#clusters .cluster").nth(cluster - 1).locator(".cluster-sentences")
    source = page.locator(f'.sentence[data-id="{sentence}"]')
    # A person scrolls until the drop zone shows (a point below the fold takes no drop).
    target.evaluate("el => el.scrollIntoView({block: 'nearest'})")
    source.hover()
    page.mouse.down()
    box = target.bounding_box()
    x, y = box["x"] + 40, box["y"] + box["height"] - 6
    page.mouse.move(x, y, steps=8)
    for dy in (-1, 1, 0):
        page.wait_for_timeout(80)
        page.mouse.move(x, y + dy)
    page.mouse.up()
    expect(target.locator(f'.sentence[data-id="{sentence}"]')).to_be_attached()


def touch_drag(page, source, target) -> None:
    """Hold a finger on a sentence past SortableJS's touch delay, then slide it
    below a cluster's last sentence (Playwright has taps only: raw touch events)."""
    target.scroll_into_view_if_needed()
    cdp = page.context.new_cdp_session(page)
    start, box = source.bounding_box(), target.bounding_box()
    x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    to_x, to_y = box["x"] + 40, box["y"] + box["height"] - 6
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    # Held still until SortableJS takes it as a drag (its 250 ms touch delay ends by
    # marking the sentence chosen): waiting for that state, not for time, holds on a
    # loaded machine where the delay's timer fires late.
    expect(source).to_have_class(re.compile(r"\bsentence-chosen\b"))
    for step in range(1, 11):
        point = {"x": x + (to_x - x) * step / 10, "y": y + (to_y - y) * step / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        page.wait_for_timeout(30)
    for dy in (-1, 1, 0):
        page.wait_for_timeout(80)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": to_x, "y": to_y + dy}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def open_judging_page(new_page, login, live_server, campaign):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/quake/judge/")
    expect(page.locator("#cluster-status")).to_contain_text("0 of 10 sentences in 0 clusters")  # the script is ready
    return page


def test_drag_and_drop_and_keyboard_clusters_then_live_agreement(
    new_page, live_server, login, people, clustering_campaign
):
    campaign = clustering_campaign
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(organiser.locator("#report")).to_be_attached()
    organiser.evaluate("window.stillTheSamePage = true")

    alice = open_judging_page(new_page, login, live_server, campaign)
    clusters = alice.locator("#clusters .cluster")
    submit = alice.get_by_role("button", name="Submit")
    expect(submit).to_be_disabled()  # no cluster yet

    # Clusters 1 and 2 with the mouse. Typing a description (full of shortcut
    # keys) goes into the box and nowhere else.
    alice.get_by_role("button", name="New cluster").click()
    alice.keyboard.type("Quake strikes the coast 3 j k x c 0")
    drag(alice, "s1", 1)
    expect(clusters.nth(0).locator(".cluster-note")).to_have_text(
        "cluster 1 has one sentence; a cluster needs at least two (rule 4)"
    )
    expect(submit).to_be_enabled()  # the campaign only warns
    expect(alice.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    drag(alice, "s5", 1)
    drag(alice, "s8", 1)
    alice.get_by_role("button", name="New cluster").click()
    alice.keyboard.type("Magnitude 7.3")
    alice.keyboard.press("Enter")  # back to the sentences; does not submit
    drag(alice, "s2", 2)
    drag(alice, "s6", 2)
    expect(clusters).to_have_count(2)
    assert shown_clusters(alice) == [["s1", "s5", "s8"], ["s2", "s6"]]
    assert focused(alice) == "s6"  # the last sentence dragged
    expect(alice.locator("#pick-bar")).to_be_hidden()  # no drag counted as a tap choosing its sentence

    # Cluster 3 with the keyboard only. The pool now reads s3 s4 | s7 | s9 s10,
    # then come the clusters' sentences.
    alice.keyboard.press("c")
    expect(clusters).to_have_count(3)
    for key in ["k"] * 7 + ["ArrowUp"]:
        alice.keyboard.press(key)
    assert focused(alice) == "s4"
    alice.keyboard.press("3")
    expect(clusters.nth(2).locator(".cluster-note")).to_contain_text("(rule 4)")
    assert focused(alice) == "s4"  # the focus stays with the sentence just placed
    alice.keyboard.press("e")  # so e describes the cluster it went into
    alice.keyboard.type("Weather and rescue work")
    alice.keyboard.press("Enter")  # back to the sentence; does not submit
    assert focused(alice) == "s4"
    # The pool now reads s3 | s7 | s9 s10, then the clusters: s1 s5 s8 | s2 s6 | s4.
    for _ in range(6):
        alice.keyboard.press("k")
    assert focused(alice) == "s10"
    alice.keyboard.press("3")
    for _ in range(7):
        alice.keyboard.press("k")
    assert focused(alice) == "s9"
    alice.keyboard.press("3")
    assert shown_clusters(alice)[2] == ["s4", "s10", "s9"]
    assert focused(alice) == "s9"
    # s9 was a mistake: taken out again, the focus moves to its neighbour.
    alice.keyboard.press("x")
    assert focused(alice) == "s10"
    assert shown_clusters(alice) == [["s1", "s5", "s8"], ["s2", "s6"], ["s4", "s10"]]
    expect(alice.locator(".cluster.breaks-rule")).to_have_count(0)
    expect(alice.locator("#cluster-status")).to_contain_text("7 of 10 sentences in 3 clusters; 3 left out")

    # Cluster 3 is more important than cluster 2.
    alice.get_by_role("button", name="Move cluster 3 up").click()
    expected = {
        "clusters": [["s1", "s5", "s8"], ["s4", "s10"], ["s2", "s6"]],
        "descriptions": ["Quake strikes the coast 3 j k x c 0", "Weather and rescue work", "Magnitude 7.3"],
    }
    assert shown_clusters(alice) == expected["clusters"]
    expect(clusters.nth(1).locator(".cluster-description")).to_have_value("Weather and rescue work")
    submit.click()  # asks first, with a summary
    expect(alice.locator("#confirm-summary")).to_have_text("3 clusters, 3 sentences left out, 0 rule warnings.")
    alice.keyboard.press("Enter")  # on "Submit"
    alice.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    judgment = Judgment.objects.get(topic__campaign=campaign, assessor=people["alice"])
    assert (judgment.status, judgment.payload) == ("submitted", expected)

    items = [s["id"] for s in campaign.topics.get().data["sentences"]]  # topic order
    labels_alice = complete_with_irrelevant(expected["clusters"], items, method="singleton")
    labels_bob = complete_with_irrelevant(BOB["clusters"], items, method="singleton")
    value = v_beta(labels_alice, labels_bob)  # the alphabetically first judge is labels_true
    row = organiser.locator('#agreement-table tr[data-pair="alice|bob"]')
    expect(row.locator("td.v-beta-singleton")).to_have_text(f"{value:.3f}", timeout=15_000)
    assert organiser.evaluate("window.stillTheSamePage") is True


def test_blocking_rules_keep_submit_disabled_until_the_clusters_are_fixed(new_page, live_server, login, people):
    campaign = make_campaign(people, rules="block")
    alice = open_judging_page(new_page, login, live_server, campaign)
    submit = alice.get_by_role("button", name="Submit")
    cluster = alice.locator("#clusters .cluster").first
    note = cluster.locator(".cluster-note")

    assert focused(alice) == "s1"
    alice.keyboard.press("c")
    alice.keyboard.press("1")  # s1: one sentence
    expect(note).to_have_text("cluster 1 has one sentence; a cluster needs at least two (rule 4)")
    expect(alice.locator("#rule-problems")).to_contain_text("Cluster 1 has one sentence")
    expect(submit).to_be_disabled()
    alice.keyboard.press("Enter")  # does nothing while blocked but say why
    expect(alice.locator("#cluster-status")).to_have_text("Submit is blocked: fix the rules flagged below first.")
    expect(alice.locator("#confirm-dialog")).to_have_count(0)
    for _ in range(9):  # the focus stayed on s1, now last (in cluster 1): back up to s2
        alice.keyboard.press("k")
    alice.keyboard.press("1")  # s2: two sentences, one document
    expect(note).to_have_text("cluster 1 has sentences from one document only; it needs two or more documents (rule 3)")
    expect(submit).to_be_disabled()
    drag(alice, "s6", 1)
    expect(note).to_be_hidden()
    expect(alice.locator("#rule-problems li")).to_have_count(0)
    expect(submit).to_be_enabled()

    # An empty cluster is shown but not sent, and can be deleted.
    alice.keyboard.press("c")
    expect(alice.locator("#clusters .cluster")).to_have_count(2)
    expect(alice.get_by_role("button", name="Delete cluster 1")).to_be_disabled()
    expect(alice.locator("#save-status")).to_contain_text("Draft saved")
    # "Draft saved" may still be the previous save's: wait for the drag's save to land.
    wanted = {"clusters": [["s1", "s2", "s6"]], "descriptions": [""]}
    for _ in range(50):
        draft = Judgment.objects.get(topic__campaign=campaign, assessor=people["alice"])
        if draft.payload == wanted:
            break
        alice.wait_for_timeout(200)
    assert draft.payload == wanted
    alice.get_by_role("button", name="Delete cluster 2").click()
    expect(alice.locator("#clusters .cluster")).to_have_count(1)

    alice.reload()  # the saved draft comes back
    expect(alice.locator("#cluster-status")).to_contain_text("3 of 10 sentences in 1 cluster")
    assert shown_clusters(alice) == [["s1", "s2", "s6"]]
    assert focused(alice) == "s1"
    alice.keyboard.press("Enter")
    expect(alice.locator("#confirm-summary")).to_have_text(
        "1 cluster, 7 sentences left out, 0 rule warnings, 1 without a description."
    )
    alice.keyboard.press("Enter")
    alice.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    judgment = Judgment.objects.get(topic__campaign=campaign, assessor=people["alice"])
    assert (judgment.status, judgment.payload) == (
        "submitted",
        {"clusters": [["s1", "s2", "s6"]], "descriptions": [""]},
    )


def test_on_a_phone_tap_a_sentence_then_a_cluster(browser, live_server, people):
    """390 px wide, touch: no long drag; the clusters are one tap away from the top."""
    campaign = make_campaign(people)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill("pw-alice")
        page.get_by_role("button", name="Log in").tap()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/quake/judge/")
        # The clusters panel sits below every sentence on a phone: a link at the top leads there.
        page.get_by_role("link", name="To the clusters ↓").tap()
        expect(page.locator("#clusters-panel")).to_be_in_viewport()
        page.get_by_role("button", name="New cluster").first.tap()
        page.get_by_role("button", name="New cluster").first.tap()

        def sentence(text):
            return page.locator(".sentence", has_text=text)

        # Tap a sentence: the bar at the bottom offers the clusters; tap cluster 1 there.
        sentence("A strong earthquake struck").tap()
        bar = page.locator("#pick-bar")
        expect(bar).to_be_in_viewport()
        expect(bar).to_contain_text("Sentence D1.1 chosen")
        bar.get_by_role("button", name="Cluster 1").tap()
        expect(bar).to_be_hidden()
        # Tap a sentence, then the cluster itself (its card, scrolled to).
        sentence("An earthquake hit the coastal").tap()
        page.locator(".cluster").first.locator(".cluster-number").tap()
        # A third goes to cluster 2 and comes out again with "Leave out".
        sentence("Schools were closed").tap()
        bar.get_by_role("button", name="Cluster 2").tap()
        sentence("Schools were closed").tap()
        bar.get_by_role("button", name="Leave out").tap()
        expect(page.locator(".cluster").first.locator(".sentence")).to_have_count(2)
        expect(page.locator(".cluster").nth(1).locator(".sentence")).to_have_count(0)
        expect(page.locator(".sentence.picked")).to_have_count(0)
        # A finger held still drags (s5 into cluster 2); the drag is no tap: nothing is chosen after it.
        target = page.locator(".cluster").nth(1).locator(".cluster-sentences")
        touch_drag(page, page.locator('.cluster .sentence[data-id="s5"]'), target)
        expect(target.locator('.sentence[data-id="s5"]')).to_be_attached()
        expect(page.locator(".sentence.picked")).to_have_count(0)
        expect(bar).to_be_hidden()

        def stored():
            judgment = Judgment.objects.filter(topic__campaign=campaign, assessor=people["alice"]).first()
            return judgment.payload["clusters"] if judgment else None

        for _ in range(150):  # the last draft save is on its way
            if stored() == [["s1"], ["s5"]]:
                break
            page.wait_for_timeout(100)
        assert stored() == [["s1"], ["s5"]]
    finally:
        context.close()
