/* Uploads page (templates/annotate/uploads.html): send each upload form with
 * XMLHttpRequest so a progress bar shows how much is sent, then show the
 * importer's error (naming the line or the field) at the form, or go to the
 * page that says what was imported. Without this script (or without
 * FormData) the form posts as usual and the server renders the same. */
(function () {
  "use strict";

  function upload(form, event) {
    if (!window.FormData || !window.XMLHttpRequest) return;
    event.preventDefault();
    var bar = form.querySelector(".upload-progress");
    var status = form.querySelector(".upload-status");
    var error = form.querySelector(".upload-error");
    var button = form.querySelector("button[type=submit]");
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      bar.max = e.total;
      bar.value = e.loaded;
      status.textContent = Math.round((100 * e.loaded) / e.total) + "% sent";
    });
    xhr.upload.addEventListener("load", function () {
      bar.value = bar.max;
      status.textContent = "Sent; importing…";
    });
    xhr.addEventListener("load", function () {
      var data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch (ignored) {
        data = null;
      }
      if (xhr.status >= 200 && xhr.status < 300 && data && data.redirect) {
        status.textContent = data.message || "Imported.";
        window.location.assign(data.redirect);
        return;
      }
      var message = data && data.detail
        ? (data.field ? data.field + ": " : "") + data.detail
        : "the server answered " + xhr.status + (xhr.status === 413 ? " (the file is too large)" : "");
      fail("Nothing imported: " + message);
    });
    xhr.addEventListener("error", function () {
      fail("Nothing imported: the upload did not reach the server (connection lost?). Try again.");
    });

    function fail(message) {
      bar.hidden = true;
      status.textContent = "";
      error.textContent = message;
      error.hidden = false;
      button.disabled = false;
    }

    error.hidden = true;
    error.textContent = "";
    bar.hidden = false;
    bar.value = 0;
    status.textContent = "Sending…";
    button.disabled = true;
    xhr.send(new FormData(form));
  }

  document.querySelectorAll("form[data-upload]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      upload(form, event);
    });
  });
})();
