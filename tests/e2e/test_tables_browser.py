"""tables.js in a browser: a table that scrolls sideways takes the keyboard focus as soon as
it scrolls, however it came to: put in by a live refresh (before any other script can run,
so an audit started between a swap and htmx's settle finds it marked), or grown wider in
place (fonts, colour scheme, new rows); and gives it back once it fits."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: A boxed table as the templates write it, wider than a 390-px screen, put into the page and
#: read back in the same script turn plus one microtask (when MutationObserver callbacks run).
INSERTED = """() => {
  const main = document.querySelector("main") || document.body;
  main.insertAdjacentHTML("beforeend", '<h2>Wide</h2><div class="table-box" id="wide-box">'
    + '<table class="grid"><tr>' + '<td>word</td>'.repeat(60) + '</tr></table></div>');
  return Promise.resolve().then(() => {
    const box = document.getElementById("wide-box");
    return [box.getAttribute("tabindex"), box.getAttribute("role"), box.getAttribute("aria-label")];
  });
}"""

NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def test_a_table_is_focusable_exactly_while_it_scrolls(new_page, live_server, login, campaign):
    page = new_page()
    login(page, "organiser")
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    assert page.evaluate(INSERTED) == ["0", "region", "Table: Wide (scrolls sideways)"]
    # It fits once its cells shrink (no resize of the window, no swap): focus given back.
    page.evaluate("() => document.querySelectorAll('#wide-box td:nth-child(n+2)').forEach(td => td.remove())")
    page.evaluate(NEXT_FRAMES)
    assert page.evaluate("() => document.getElementById('wide-box').hasAttribute('tabindex')") is False
    # And grows again in place (as wider fonts make it): focusable again.
    page.evaluate(
        "() => document.querySelector('#wide-box tr').insertAdjacentHTML('beforeend', '<td>word</td>'.repeat(60))"
    )
    page.evaluate(NEXT_FRAMES)
    assert page.evaluate("() => document.getElementById('wide-box').getAttribute('tabindex')") == "0"
