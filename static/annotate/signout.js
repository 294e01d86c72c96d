// Signing out deletes what this browser keeps of the user's unsaved work: the copies
// judge.js keeps in localStorage, under "concord:[consensus:]<campaign>:<topic>:<user id>",
// until the server acknowledges them. The next person to use the browser then finds none
// of it. Those changes were never saved on the server: when there are any, the user is
// asked first, and staying signed in keeps them. Loaded on every page with a sign-out
// form (templates/base.html, and the admin's, templates/admin/base_site.html).
(function () {
  "use strict";

  function keptKeys(userId) {
    const keys = [];
    try {
      for (let i = 0; i < localStorage.length; i += 1) {
        const key = localStorage.key(i);
        if (key && key.startsWith("concord:") && key.endsWith(`:${userId}`)) keys.push(key);
      }
    } catch (error) {
      // Storage refused: nothing was kept in it.
    }
    return keys;
  }

  function signingOut(userId, event) {
    const keys = keptKeys(userId);
    if (keys.length) {
      const what = keys.length === 1 ? "one topic are" : `${keys.length} topics are`;
      const question =
        `Unsaved changes to ${what} kept in this browser only: they never reached the server. ` +
        "Signing out deletes them. Sign out anyway?";
      if (!window.confirm(question)) {
        event.preventDefault();
        return;
      }
    }
    for (const key of keys) {
      try { localStorage.removeItem(key); } catch (error) { /* already gone */ }
    }
  }

  function start() {
    const meta = document.querySelector('meta[name="concord-user-id"]');
    if (!meta) return;
    for (const form of document.querySelectorAll("form[data-sign-out], form#logout-form")) {
      form.addEventListener("submit", (event) => signingOut(meta.content, event));
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
