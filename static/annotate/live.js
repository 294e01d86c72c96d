/* Conditional polling of the live report (scoring/live.py, docs/pages.md "Pages").
 *
 * An element that htmx polls and that carries data-etag (the organiser page's
 * #report) sends its last ETag as If-None-Match; the server answers 304 with
 * no body while the stored report is unchanged, and the fragment on the page
 * stays as it is (htmx would otherwise swap in the empty body). A 2xx answer
 * is swapped in as usual and its ETag kept for the next poll. No eval, no
 * inline script: works under the CSP.
 */
(function () {
  "use strict";
  function tagged(element) {
    return element && element.hasAttribute && element.hasAttribute("data-etag");
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
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var element = event.detail.elt, xhr = event.detail.xhr;
    if (!tagged(element) || !xhr || xhr.status < 200 || xhr.status >= 300) return;
    var tag = xhr.getResponseHeader("ETag");
    if (tag) element.setAttribute("data-etag", tag);
  });
})();
