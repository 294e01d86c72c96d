/* Tables that scroll sideways inside their own box (concord.css: .table-box, and every
 * table on a small screen) take the keyboard focus when, and only when, they do scroll,
 * so that the arrow keys scroll them (axe: scrollable-region-focusable); named after the
 * nearest heading. Run on load, whenever a table or its box changes size (a ResizeObserver:
 * a narrower window, fonts loaded, a change of colour scheme), and whenever tables are
 * added (a MutationObserver: a live refresh's swap, marked before any other script runs:
 * an audit started between a swap and htmx's settle once found a table unmarked). */
(function () {
  "use strict";
  function scroller(table) {
    var box = table.parentElement;
    return box && box.classList.contains("table-box") ? box : table;
  }
  function label(element) {
    var heading = null, node = element;
    while (node && !heading) {
      var previous = node.previousElementSibling;
      while (previous && !/^H[1-6]$/.test(previous.tagName)) previous = previous.previousElementSibling;
      heading = previous;
      node = node.parentElement;
    }
    return "Table" + (heading ? ": " + heading.textContent.trim() : "") + " (scrolls sideways)";
  }
  var sizes = window.ResizeObserver ? new ResizeObserver(function () { mark(); }) : null;
  var watched = typeof WeakSet === "function" ? new WeakSet() : null;
  function watch(element) {
    if (!sizes || !watched || watched.has(element)) return;
    watched.add(element);
    sizes.observe(element);
  }
  function mark() {
    document.querySelectorAll("table.grid").forEach(function (table) {
      var element = scroller(table);
      watch(table);
      if (element !== table) watch(element);
      var scrolls = element.scrollWidth > element.clientWidth + 1;
      if (scrolls && !element.hasAttribute("tabindex")) {
        element.setAttribute("tabindex", "0");
        element.setAttribute("role", "region");
        element.setAttribute("aria-label", label(element));
        element.dataset.scrollFocus = "";
      } else if (!scrolls && element.dataset.scrollFocus !== undefined) {
        ["tabindex", "role", "aria-label", "data-scroll-focus"].forEach(function (a) { element.removeAttribute(a); });
      }
    });
  }
  document.addEventListener("htmx:afterSettle", mark);
  window.addEventListener("resize", mark);
  if (window.MutationObserver) {
    var holdsTable = function (node) {
      return node.nodeType === 1 && (node.matches("table.grid") || node.querySelector("table.grid") !== null);
    };
    new MutationObserver(function (changes) {
      for (var i = 0; i < changes.length; i++) {
        if (Array.prototype.some.call(changes[i].addedNodes, holdsTable)) { mark(); return; }
      }
    }).observe(document.documentElement, {childList: true, subtree: true});
  }
  // A change of colour scheme can change the fonts' widths, and so which tables scroll.
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) scheme.addEventListener("change", function () { window.requestAnimationFrame(mark); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
