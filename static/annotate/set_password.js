// The set-password page (annotate/account_views.py): a link's code is the URL's
// fragment, which browsers never send to the server (so no access log or
// Referer holds it). Post it once, and drop it from the address bar and history.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const code = window.location.hash.slice(1);
  const form = document.getElementById("open-link");
  const opening = document.getElementById("link-opening");
  if (!code) {
    if (opening) opening.textContent = "Open this page with the whole link you were given (it ends with #…).";
    return;
  }
  window.history.replaceState(null, "", window.location.pathname);
  document.getElementById("link-code").value = code;
  form.submit();
});
