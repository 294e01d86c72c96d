// The members page (annotate/organiser_views.py): "Copy all links" copies every new
// account's name and set-password link (one per line, name<TAB>link) in one go.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("copy-links");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy);
  const status = document.getElementById("copy-status");
  const say = (message) => { if (status) status.textContent = message; };
  button.addEventListener("click", async () => {
    const lines = text.value.split("\n").filter(Boolean).length;
    try {
      await navigator.clipboard.writeText(text.value);
      say(`Copied ${lines} link${lines === 1 ? "" : "s"}.`);
    } catch (refused) {
      // No clipboard access (an insecure origin, a refused permission): select the text to copy by hand.
      text.focus();
      text.select();
      say("Selected: press Ctrl+C (⌘C) to copy.");
    }
  });
});
