// Saving a judgment: drafts as you go, submission, the version check, and a
// copy kept in this browser whenever the server cannot be reached.
"use strict";

window.Concord = window.Concord || {};

Concord.Judgment = class {
  constructor(root, { onSaved } = {}) {
    this.root = root;
    this.apiUrl = root.dataset.apiUrl;
    this.nextUrl = root.dataset.nextUrl;
    this.storageKey = root.dataset.storageKey;
    this.readonly = root.dataset.readonly === "true";
    this.csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
    const state = JSON.parse(document.getElementById("judgment-state").textContent);
    this.version = state.version;
    this.status = state.status;
    this.payload = state.payload;
    this.statusLine = document.getElementById("save-status");
    this.conflictBox = document.getElementById("conflict");
    this.onSaved = onSaved || (() => {});
    this.inFlight = null;
    this.pending = null;
    this.timer = null;
    this.blocked = false;
    this.restoreLocalDraft();
    window.addEventListener("online", () => this.flushLocal());
  }

  say(text) { this.statusLine.textContent = text; }

  // A draft is sent shortly after the last change, one request at a time.
  changed(payload) {
    this.payload = payload;
    if (this.readonly || this.blocked) return;
    clearTimeout(this.timer);
    this.say("Unsaved changes…");
    this.timer = setTimeout(() => this.send(payload, this.status === "submitted" ? "submitted" : "draft"), 500);
  }

  submit(payload) {
    clearTimeout(this.timer);
    return this.send(payload, "submitted");
  }

  async send(payload, status) {
    if (this.readonly || this.blocked) return false;
    if (this.inFlight) {
      this.pending = { payload, status };
      return this.inFlight;
    }
    this.inFlight = this.put(payload, status);
    const ok = await this.inFlight;
    this.inFlight = null;
    if (this.pending) {
      const next = this.pending;
      this.pending = null;
      return this.send(next.payload, next.status);
    }
    return ok;
  }

  async put(payload, status) {
    this.say(status === "submitted" ? "Submitting…" : "Saving draft…");
    let response;
    try {
      response = await fetch(this.apiUrl, {
        method: "PUT",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf, Accept: "application/json" },
        body: JSON.stringify({ payload, status, version: this.version }),
      });
    } catch (error) {
      this.keepLocal(payload, status);
      this.say("Offline: your work is kept in this browser and will be sent when the connection returns.");
      return false;
    }
    const body = await response.json().catch(() => ({}));
    if (response.ok) {
      this.version = body.version;
      this.status = body.status;
      this.dropLocal();
      this.say(body.status === "submitted" ? `Submitted (version ${body.version}).` : `Draft saved (version ${body.version}).`);
      this.onSaved(body);
      return true;
    }
    if (response.status === 409) {
      this.blocked = true;
      this.keepLocal(payload, status);
      this.conflictBox.hidden = false;
      this.conflictBox.textContent =
        `This judgment was changed elsewhere (another tab or device) and is now at version ${body.current_version}. ` +
        "Your change was not saved and nothing was overwritten; it is kept in this browser. " +
        "Reload the page to see the saved version, then apply your change again.";
      this.say("Not saved: conflict.");
      return false;
    }
    this.say(`Not saved: ${body.field ? body.field + ": " : ""}${body.detail || response.statusText}`);
    return false;
  }

  keepLocal(payload, status) {
    try {
      localStorage.setItem(this.storageKey, JSON.stringify({ payload, status, version: this.version }));
    } catch (error) { /* storage full or disabled: the status line already says it is unsaved */ }
  }

  dropLocal() { try { localStorage.removeItem(this.storageKey); } catch (error) { /* ignore */ } }

  restoreLocalDraft() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(this.storageKey) || "null"); } catch (error) { kept = null; }
    if (!kept) return;
    if (kept.version === this.version) {
      this.payload = kept.payload;
      this.say("Restored unsent work kept in this browser.");
      setTimeout(() => this.flushLocal(), 0);
    } else {
      this.conflictBox.hidden = false;
      this.conflictBox.textContent =
        "This browser kept unsent work for an older version of this judgment, which has changed since. " +
        "The saved version is shown; your unsent work was not applied.";
      this.dropLocal();
    }
  }

  async flushLocal() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(this.storageKey) || "null"); } catch (error) { kept = null; }
    if (kept && !this.blocked) await this.send(kept.payload, kept.status);
  }

  goNext() { window.location.assign(this.nextUrl); }
};
