/* Conditional polling of the live report (scoring/live.py, docs/pages.md "Pages"), and what every
 * polled fragment keeps across its refreshes.
 *
 * An element that htmx polls and that carries data-etag (the organiser page's
 * #report) sends its last ETag as If-None-Match; the server answers 304 with
 * no body while the stored report is unchanged, and the fragment on the page
 * stays as it is (htmx would otherwise swap in the empty body). A 2xx answer
 * is swapped in as usual and its ETag kept for the next poll.
 *
 * A refresh never closes what the organiser opened: every <details> of a polled
 * fragment keeps its open or closed state, and while a form in it has the focus or
 * changed values the fragment is not replaced at all (the next poll tries again).
 * Nor does it lose a keyboard user's place: an element of the fragment that had the
 * focus (known by its id, else a <details>'s summary or a link's address and words)
 * has it again in the new fragment.
 * No eval, no inline script: works under the CSP.
 */
(function () {
  "use strict";
  function tagged(element) {
    return element && element.hasAttribute && element.hasAttribute("data-etag");
  }
  function polled(element) {
    return element && element.getAttribute && /\bevery\b/.test(element.getAttribute("hx-trigger") || "");
  }
  function detailsKey(details) {
    var summary = details.querySelector("summary");
    return details.id || (summary ? summary.textContent.trim() : "");
  }
  function detailsState(root) {
    var state = {};
    root.querySelectorAll("details").forEach(function (details) { state[detailsKey(details)] = details.open; });
    return state;
  }
  // A form control inside the fragment has the focus, or holds a value the reader changed.
  function inUse(root) {
    var active = document.activeElement;
    if (active && root.contains(active) && active.matches("input, textarea, select")) return true;
    return Array.prototype.some.call(root.querySelectorAll("input, textarea, select"), function (field) {
      if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
      if (field.tagName === "SELECT") {
        return Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; });
      }
      return field.type !== "hidden" && field.value !== field.defaultValue;
    });
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var element = event.detail.elt;
    if (tagged(element) && element.getAttribute("data-etag")) {
      event.detail.headers["If-None-Match"] = element.getAttribute("data-etag");
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr && event.detail.xhr.status === 304) {
      event.detail.shouldSwap = false;
      event.detail.isError = false;
      return;
    }
    var target = event.detail.target;
    if (!polled(target)) return;
    if (inUse(target)) {
      // Someone is filling a form in the fragment: keep it (its values, its focus) and
      // its old ETag, so the next poll fetches the new fragment again.
      event.detail.shouldSwap = false;
      target.setAttribute("data-deferred", "");
      return;
    }
    target.removeAttribute("data-deferred");
    opened = detailsState(target);
    focused = focusKey(target);
  });
  // Where the keyboard was, in terms the new fragment has too.
  var focused = null;
  function keyOf(element) {
    if (element.id) return "#" + element.id;
    if (element.tagName === "SUMMARY" && element.parentElement) return "summary " + detailsKey(element.parentElement);
    if (element.tagName === "A") return "a " + element.getAttribute("href") + " " + element.textContent.trim();
    return null;
  }
  function focusKey(root) {
    var active = document.activeElement;
    if (!active || active === root || !root.contains(active)) return null;
    return keyOf(active);
  }
  function refocus(root, key) {
    var found = Array.prototype.find.call(root.querySelectorAll("[id], summary, a"), function (element) {
      return keyOf(element) === key;
    });
    if (found) found.focus({ preventScroll: true });
  }
  // What the reader opened or closed stays so: each <details> is known by its id, else its summary.
  var opened = null;
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!polled(event.detail.target)) return;
    if (opened) {
      event.detail.target.querySelectorAll("details").forEach(function (details) {
        var key = detailsKey(details);
        if (Object.prototype.hasOwnProperty.call(opened, key)) details.open = opened[key];
      });
    }
    if (focused) refocus(event.detail.target, focused);
    opened = null;
    focused = null;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var element = event.detail.elt, xhr = event.detail.xhr;
    if (!tagged(element) || !xhr || xhr.status < 200 || xhr.status >= 300) return;
    if (element.hasAttribute("data-deferred")) return;
    var tag = xhr.getResponseHeader("ETag");
    if (tag) element.setAttribute("data-etag", tag);
  });
})();
