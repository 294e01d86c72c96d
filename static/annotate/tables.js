/* Tables that scroll sideways inside their own box (concord.css: .table-box, and every
 * table on a small screen) take the keyboard focus when, and only when, they do scroll,
 * so that the arrow keys scroll them (axe: scrollable-region-focusable); named after the
 * nearest heading. Run on load, after every htmx swap, on resize and on a change of colour scheme. */
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
  function mark() {
    document.querySelectorAll("table.grid").forEach(function (table) {
      var element = scroller(table);
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
  // A change of colour scheme can change the fonts' widths, and so which tables scroll.
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) scheme.addEventListener("change", function () { window.requestAnimationFrame(mark); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
