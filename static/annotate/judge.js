// Saving a judgment: drafts as you go, submission, the version check, and a
// copy kept in this browser whenever the server cannot be reached.
//
// Nothing is ever overwritten silently. A save carries the version it was
// based on; when the server has a newer one (another tab or device, or a
// change made while this browser was offline) the answer is 409 and the page
// shows both versions side by side: "Keep mine" sends this browser's change
// again on top of the saved version (an informed overwrite), "Use the saved
// version" drops it and reloads.
//
// A submitted judgment is not edited live (README, "Judgment states"): the
// page is read-only until "Reopen to edit", which starts a draft on top
// while the submitted version keeps counting in the reports until the
// assessor submits again; "Withdraw" (with an optional reason) takes it out
// of the reports. reopen() and withdraw(reason) are the two actions.
//
// Active time (Concord.ActiveTime) is counted only while the page is visible
// and focused and the assessor did something in the last 60 s, and sent with
// each save as `active_ms` (at most 10 minutes a request). Leaving for the
// previous or next topic, or skipping, saves a pending draft first
// (Concord.TopicActions, whose keys keys.js adds to every page's table).
"use strict";

window.Concord = window.Concord || {};

Concord.Judgment = class {
  constructor(root, { onSaved } = {}) {
    this.root = root;
    this.apiUrl = root.dataset.apiUrl;
    this.nextUrl = root.dataset.nextUrl;
    this.storageKey = root.dataset.storageKey;
    // Not assigned (an organiser looking): never editable. Submitted: not until reopened.
    this.assigned = root.dataset.readonly !== "true";
    this.csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
    const state = JSON.parse(document.getElementById("judgment-state").textContent);
    this.version = state.version;
    this.status = state.status;
    this.submittedVersion = state.submitted_version ?? null;
    this.payload = state.payload;
    this.readonly = !this.assigned || this.status === "submitted";
    this.statusLine = document.getElementById("save-status");
    this.conflictBox = document.getElementById("conflict");
    this.onSaved = onSaved || (() => {});
    this.inFlight = null;
    this.pending = null;
    this.timer = null;
    this.retryTimer = null;
    this.retryDelay = 2000;
    this.blocked = false;
    this.conflict = null; // {mine: {payload, status, base}, saved: {payload, status, version, by, at}}
    this.reloadAfterSave = false;
    this.dirty = false; // a change waits for its (debounced) draft save
    // Only an assessor's own judgment counts time (not the consensus editor, not an organiser looking).
    this.activeTime = root.dataset.countTime === "true" ? new Concord.ActiveTime() : null;
    this.wireMergePrompt();
    this.wireStateActions();
    this.renderState();
    this.restoreLocalDraft();
    window.addEventListener("online", () => this.flushLocal());
    window.addEventListener("offline", () => {
      if (!this.readonly) this.say("Offline: your work is kept in this browser and will be sent when the connection returns.");
    });
    // Leaving with a change not sent yet: kept in this browser, sent when the topic is opened again.
    window.addEventListener("pagehide", () => { if (this.dirty) this.keepLocal(this.payload, "draft"); });
  }

  say(text) { this.statusLine.textContent = text; }

  // A draft is sent shortly after the last change, one request at a time.
  changed(payload) {
    this.payload = payload;
    if (this.readonly) return;
    if (this.blocked) {
      // Still undecided: the latest state is what "Keep mine" will send.
      if (this.conflict) {
        this.conflict.mine.payload = payload;
        this.keepLocal(payload, this.conflict.mine.status, this.conflict.mine.base);
        this.renderConflict();
      }
      return;
    }
    clearTimeout(this.timer);
    this.say("Unsaved changes…");
    this.dirty = true;
    // Always a draft: on a reopened judgment it is saved on top of the submitted version.
    this.timer = setTimeout(() => { this.dirty = false; this.send(payload, "draft"); }, 500);
  }

  // Send a draft still waiting for its save, and wait for the saves under way:
  // true when nothing is left unsaved (before leaving the page).
  async flush() {
    if (this.blocked) return false;
    let ok = true;
    if (this.dirty) {
      clearTimeout(this.timer);
      this.dirty = false;
      ok = await this.send(this.payload, "draft");
    }
    while (this.inFlight) ok = await this.inFlight;
    return ok && !this.blocked;
  }

  async submit(payload) {
    clearTimeout(this.timer);
    this.dirty = false;
    if (this.readonly) {
      if (this.assigned) this.say(`Submitted (version ${this.submittedVersion}): reopen it to edit it.`);
      return false;
    }
    // A withdrawn judgment is edited as a draft first (it becomes a draft), then submitted.
    if (this.status === "withdrawn" && !(await this.send(payload, "draft"))) return false;
    return this.send(payload, "submitted");
  }

  async send(payload, status) {
    if (this.readonly || this.blocked) {
      if (this.blocked) this.say("Not saved: this judgment changed elsewhere. Choose a version below.");
      return false;
    }
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
    const request = { payload, status, version: this.version };
    // The active time since the last save (at most 10 minutes; the rest goes with the next save).
    const active = this.activeTime ? this.activeTime.take() : 0;
    if (this.activeTime) request.active_ms = active;
    let response;
    try {
      response = await fetch(this.apiUrl, {
        method: "PUT",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf, Accept: "application/json" },
        body: JSON.stringify(request),
      });
    } catch (error) {
      if (this.activeTime) this.activeTime.giveBack(active);
      this.keepLocal(payload, status);
      this.say("Offline: your work is kept in this browser and will be sent when the connection returns.");
      this.retryLater();
      return false;
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok && this.activeTime) this.activeTime.giveBack(active); // not saved: sent with the next save
    if (response.ok) {
      // "replayed": a retry of a save the server had already applied (its answer was lost).
      clearTimeout(this.retryTimer);
      this.retryDelay = 2000;
      this.version = body.version;
      this.status = body.status;
      this.submittedVersion = body.submitted_version ?? null;
      this.dropLocal();
      this.renderState();
      if (body.status === "submitted") this.say(`Submitted (version ${body.version}).`);
      else if (body.status === "reopened") this.say(`Draft saved (version ${body.version}) on top of submitted version ${body.submitted_version}.`);
      else this.say(`Draft saved (version ${body.version}).`);
      this.onSaved(body);
      if (this.reloadAfterSave) window.location.reload();
      return true;
    }
    if (response.status === 409) {
      this.keepLocal(payload, status);
      await this.showConflict({ payload, status, base: this.version }, body.current_version);
      return false;
    }
    if (response.status >= 500) {
      // Restarting or overloaded: the same request is sent again later, and a
      // save that did get through is answered as a replay, never saved twice.
      this.keepLocal(payload, status);
      this.say(`The server is not answering (${response.status}): your work is kept in this browser and will be sent again.`);
      this.retryLater();
      return false;
    }
    this.say(`Not saved: ${body.field ? body.field + ": " : ""}${body.detail || response.statusText}`);
    return false;
  }

  // The server cannot be reached (offline, or restarting): try again, less and less often.
  retryLater() {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.flushLocal(), this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 30000);
  }

  keepLocal(payload, status, base = this.version) {
    try {
      localStorage.setItem(this.storageKey, JSON.stringify({ payload, status, version: base }));
    } catch (error) { /* storage full or disabled: the status line already says it is unsaved */ }
  }

  readLocal() {
    try { return JSON.parse(localStorage.getItem(this.storageKey) || "null"); } catch (error) { return null; }
  }

  dropLocal() { try { localStorage.removeItem(this.storageKey); } catch (error) { /* ignore */ } }

  restoreLocalDraft() {
    const kept = this.readLocal();
    if (!kept || this.readonly) return;
    if (kept.version === this.version) {
      this.payload = kept.payload;
      this.say("Restored unsent work kept in this browser.");
      setTimeout(() => this.flushLocal(), 0);
      return;
    }
    // Kept for an older version: the judgment changed since (elsewhere, or
    // while this browser was offline). The page shows the saved version.
    const saved = { payload: this.payload, status: this.status, version: this.version };
    if (sameJSON(kept.payload, saved.payload) && sameStatus(kept, saved)) {
      this.dropLocal(); // it did reach the server
      return;
    }
    this.reloadAfterSave = true; // "Keep mine" must then show mine
    this.showConflict({ payload: kept.payload, status: kept.status, base: kept.version }, this.version, saved);
  }

  async flushLocal() {
    const kept = this.readLocal();
    if (!kept || this.blocked || this.readonly) return;
    if (kept.version === this.version) {
      await this.send(kept.payload, kept.status);
    } else {
      // Kept on another version (by another tab of this browser): never sent blindly.
      await this.showConflict({ payload: kept.payload, status: kept.status, base: kept.version }, this.version);
    }
  }

  // -- the merge prompt -------------------------------------------------------------

  async showConflict(mine, currentVersion, saved = null) {
    this.blocked = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    if (!saved) saved = await this.fetchSaved(currentVersion);
    if (saved.payload !== undefined && sameJSON(saved.payload, mine.payload) && sameStatus(mine, saved)) {
      // The other side made exactly this change: nothing to choose.
      this.blocked = false;
      this.version = saved.version;
      this.dropLocal();
      this.say(`Saved (version ${saved.version}).`);
      return;
    }
    this.conflict = { mine, saved };
    this.renderConflict();
    this.say("Not saved: this judgment changed elsewhere. Choose a version below.");
  }

  async fetchSaved(currentVersion) {
    try {
      const response = await fetch(this.apiUrl, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (response.ok) {
        const body = await response.json();
        return {
          payload: body.payload !== undefined ? body.payload : body.data,
          status: body.status,
          version: body.version,
          by: body.assessor,
          at: body.updated_at,
        };
      }
    } catch (error) { /* shown without its content */ }
    return { payload: undefined, status: undefined, version: currentVersion };
  }

  wireMergePrompt() {
    const mine = document.getElementById("keep-mine");
    const saved = document.getElementById("use-saved");
    if (mine) mine.addEventListener("click", () => this.keepMine());
    if (saved) saved.addEventListener("click", () => this.useSaved());
  }

  renderConflict() {
    const { mine, saved } = this.conflict;
    const box = this.conflictBox;
    box.hidden = false;
    const when = saved.at ? ` at ${new Date(saved.at).toLocaleString()}` : "";
    const by = saved.by ? ` by ${saved.by}` : "";
    setText("conflict-message",
      `This judgment was changed elsewhere (another tab or device, or while this browser was offline): ` +
      `it is now at version ${saved.version}. Your change was not saved and nothing was overwritten; ` +
      "it is kept in this browser until you choose.");
    setText("merge-mine-head", `Your unsaved change (made on version ${mine.base})`);
    setText("merge-saved-head", `Saved version ${saved.version}${by}${when}`);
    const rows = document.getElementById("merge-rows");
    rows.replaceChildren();
    // Curations (the consensus editor) have no status.
    const status = (side) => (saved.status === undefined ? {} : { status: side.status });
    const differences = diff(
      { ...status(mine), ...flatten(mine.payload) },
      saved.payload === undefined ? null : { ...status(saved), ...flatten(saved.payload) },
    );
    const shown = differences.slice(0, 20);
    for (const [path, yours, theirs] of shown) rows.appendChild(row(path, yours, theirs, itemLabels()));
    if (differences.length > shown.length) rows.appendChild(row("…", `${differences.length - shown.length} more differences`, ""));
    if (!differences.length) rows.appendChild(row("", "the same content", "the same content"));
    document.getElementById("merge").hidden = false;
  }

  // An informed overwrite: this browser's change, sent on top of the saved version.
  // When the saved version is submitted, the change becomes a draft on top of
  // it (reopened): the submitted version keeps counting until a resubmission.
  async keepMine() {
    if (!this.conflict) return;
    const { mine, saved } = this.conflict;
    this.closeConflict();
    this.version = saved.version;
    if (saved.status !== undefined) this.status = saved.status;
    if (this.assigned && this.status === "submitted") {
      if (!(await this.reopen())) return;
      this.reloadAfterSave = true;
    }
    if (mine.status === "submitted") await this.submit(mine.payload);
    else await this.send(mine.payload, mine.status);
  }

  useSaved() {
    this.closeConflict();
    this.dropLocal();
    window.location.reload();
  }

  closeConflict() {
    this.conflict = null;
    this.blocked = false;
    this.conflictBox.hidden = true;
    document.getElementById("merge").hidden = true;
  }

  goNext() { window.location.assign(this.nextUrl); }

  // -- judgment states: reopen, withdraw, and what the page says counts ---------------

  // Reopen a submitted judgment: its payload becomes a draft on top, while
  // the submitted version keeps counting. True when done.
  reopen() {
    return this.act("reopen", { version: this.version }, "Reopening…", (body) =>
      `Reopened: editing a draft on top of submitted version ${body.submitted_version}.`);
  }

  // Withdraw a submitted or reopened judgment from the reports; `reason` is kept in its history.
  withdraw(reason = "") {
    return this.act("withdraw", { version: this.version, reason: reason || "" }, "Withdrawing…", () =>
      "Withdrawn: it no longer counts in the reports.");
  }

  async act(action, data, saying, done) {
    clearTimeout(this.timer);
    if (!this.assigned || this.blocked) return false;
    if (this.inFlight) await this.inFlight; // a draft being saved goes first
    this.say(saying);
    let response;
    try {
      response = await fetch(`${this.apiUrl}${action}/`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf, Accept: "application/json" },
        body: JSON.stringify({ ...data, version: this.version }),
      });
    } catch (error) {
      this.say("Not done: the server cannot be reached. Try again when the connection returns.");
      return false;
    }
    const body = await response.json().catch(() => ({}));
    if (response.ok) {
      this.version = body.version;
      this.status = body.status;
      this.submittedVersion = body.submitted_version ?? null;
      this.payload = body.payload;
      this.dropLocal();
      this.renderState();
      this.say(done(body));
      this.onSaved(body);
      return true;
    }
    if (response.status === 409) {
      this.say(`Not done: this judgment changed elsewhere (it is now at version ${body.current_version}). Reload the page to see it.`);
      return false;
    }
    this.say(`Not done: ${body.field ? body.field + ": " : ""}${body.detail || response.statusText}`);
    return false;
  }

  // Which version counts, and the actions the state allows.
  renderState() {
    this.readonly = !this.assigned || this.status === "submitted";
    const line = document.getElementById("judgment-state-line");
    const reopen = document.getElementById("reopen-judgment");
    const withdraw = document.getElementById("withdraw-judgment");
    const submit = document.getElementById("submit-judgment");
    const texts = {
      submitted: `Submitted (version ${this.submittedVersion}) counts in the reports.` +
        (this.assigned ? " To change it, reopen it." : ""),
      reopened: `Editing a draft on top of submitted version ${this.submittedVersion}, which counts until you resubmit.`,
      withdrawn: "Withdrawn: this judgment no longer counts in the reports. Editing it saves a new draft, to submit again.",
    };
    if (line) {
      line.textContent = texts[this.status] || "";
      line.hidden = !line.textContent;
      line.classList.toggle("withdrawn", this.status === "withdrawn");
    }
    if (reopen) reopen.hidden = !(this.assigned && this.status === "submitted");
    if (withdraw) withdraw.hidden = !(this.assigned && (this.status === "submitted" || this.status === "reopened"));
    if (submit && this.assigned && this.status === "submitted") submit.disabled = true;
  }

  wireStateActions() {
    const reopen = document.getElementById("reopen-judgment");
    const withdraw = document.getElementById("withdraw-judgment");
    const dialog = document.getElementById("withdraw-dialog");
    // The kind's page reads `readonly` when it starts: a reload opens it for editing.
    if (reopen) reopen.addEventListener("click", async () => { if (await this.reopen()) window.location.reload(); });
    if (!withdraw || !dialog) return;
    const reason = document.getElementById("withdraw-reason");
    withdraw.addEventListener("click", () => {
      reason.value = "";
      dialog.showModal();
      reason.focus();
    });
    document.getElementById("withdraw-cancel").addEventListener("click", () => dialog.close());
    document.getElementById("withdraw-confirm").addEventListener("click", async () => {
      dialog.close();
      if (await this.withdraw(reason.value.trim())) window.location.reload();
    });
  }
};

// -- active time ------------------------------------------------------------------------

// Time spent on the topic, not wall clock: a spell starts when the assessor
// does something (a key, the pointer, scrolling) while the page is visible
// and focused, and ends 60 s after the last thing they did, or at once when
// the page is hidden or loses the focus. take() hands over what was counted
// since it was last called (at most `max`; the rest stays for the next call).
Concord.ActiveTime = class {
  constructor({ idleMs = 60000, now = () => performance.now() } = {}) {
    this.idleMs = idleMs;
    this.now = now;
    this.banked = 0; // counted, not sent yet
    this.since = null; // the start of the current spell
    this.last = -Infinity; // the last thing the assessor did
    const interacted = () => this.interacted();
    for (const type of ["keydown", "pointerdown", "pointermove", "wheel", "scroll", "input", "touchstart"]) {
      document.addEventListener(type, interacted, { capture: true, passive: true });
    }
    document.addEventListener("visibilitychange", () => { if (document.visibilityState !== "visible") this.stop(); });
    window.addEventListener("blur", () => this.stop());
    window.addEventListener("pagehide", () => this.stop());
    this.interacted(); // opening the topic is the first thing done on it
  }

  active() { return document.visibilityState === "visible" && document.hasFocus(); }

  interacted() {
    const t = this.now();
    this.settle(t);
    this.last = t;
    if (this.since === null && this.active()) this.since = t;
  }

  // A spell with nothing done for 60 s ends 60 s after the last thing done.
  settle(t) {
    if (this.since !== null && t - this.last > this.idleMs) {
      this.banked += Math.max(0, this.last + this.idleMs - this.since);
      this.since = null;
    }
  }

  stop() {
    const t = this.now();
    this.settle(t);
    if (this.since !== null) this.banked += Math.max(0, t - this.since);
    this.since = null;
  }

  take(max = 600000) {
    const t = this.now();
    this.settle(t);
    if (this.since !== null) {
      this.banked += Math.max(0, t - this.since);
      this.since = t;
    }
    const ms = Math.max(0, Math.min(Math.floor(this.banked), max));
    this.banked -= ms;
    return ms;
  }

  giveBack(ms) { this.banked += ms; }
};

// -- moving between topics, skipping, flagging ------------------------------------------

// The judging page's topic actions, on an assessor's own topic: previous /
// next topic in their queue (Alt+← / Alt+→), skip (Shift+S, optional
// reason) and flag (Shift+F: the topic or one item, with a comment). Leaving
// saves a pending draft first; a draft that cannot be saved keeps the page.
Concord.TopicActions = class {
  constructor(judgment, say) {
    this.judgment = judgment;
    this.say = say;
    this.nav = document.getElementById("topic-nav");
    this.previous = document.getElementById("previous-topic");
    this.following = document.getElementById("following-topic");
    this.skipButton = document.getElementById("skip-topic");
    this.flagButton = document.getElementById("flag-topic");
    for (const link of [this.previous, this.following]) {
      if (link) link.addEventListener("click", (event) => { event.preventDefault(); this.leave(link.href); });
    }
    this.wireDialog("skip", () => this.skip());
    this.wireDialog("flag", () => this.flag());
  }

  keys() {
    const keys = [];
    if (this.nav) {
      keys.push(
        { keys: ["Alt+ArrowLeft"], does: "previous topic in your queue (your draft is saved first)", run: () => this.go(this.previous, "This is the first topic in your queue.") },
        { keys: ["Alt+ArrowRight"], does: "next topic in your queue (your draft is saved first)", run: () => this.go(this.following, "This is the last topic in your queue.") },
      );
    }
    if (this.skipButton) keys.push({ keys: ["Shift+S"], does: "skip this topic (a reason is optional): it leaves your next-topic order; unskip it on the campaign page", run: () => this.open("skip") });
    if (this.flagButton) keys.push({ keys: ["Shift+F"], does: "flag this topic or one item of it for the organisers, with a comment", run: () => this.open("flag") });
    return keys;
  }

  go(link, none) {
    if (link) this.leave(link.href);
    else this.say(none);
  }

  async leave(url) {
    this.say("Saving your draft before leaving…");
    if (!(await this.judgment.flush())) {
      this.say("Not moved: your draft is not saved yet (see the line below the buttons).");
      return false;
    }
    window.location.assign(url);
    return true;
  }

  wireDialog(name, confirm) {
    const button = document.getElementById(`${name}-topic`);
    const dialog = document.getElementById(`${name}-dialog`);
    if (!button || !dialog) return;
    button.addEventListener("click", () => this.open(name));
    document.getElementById(`${name}-cancel`).addEventListener("click", () => dialog.close());
    document.getElementById(`${name}-confirm`).addEventListener("click", confirm);
    // Ctrl+Enter in the text sends it.
    dialog.querySelector("textarea").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); confirm(); }
    });
  }

  open(name) {
    const dialog = document.getElementById(`${name}-dialog`);
    if (!dialog || dialog.open) return;
    dialog.querySelector("textarea").value = "";
    const error = dialog.querySelector(".dialog-error");
    error.hidden = true;
    dialog.showModal();
    (dialog.querySelector("select") || dialog.querySelector("textarea")).focus();
  }

  async post(url, data, dialog) {
    const error = dialog.querySelector(".dialog-error");
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": this.judgment.csrf, Accept: "application/json" },
        body: JSON.stringify(data),
      });
    } catch (problem) {
      error.textContent = "Not sent: the server cannot be reached. Try again when the connection returns.";
      error.hidden = false;
      return null;
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      error.textContent = `Not sent: ${body.field ? body.field + ": " : ""}${body.detail || response.statusText}`;
      error.hidden = false;
      return null;
    }
    return body;
  }

  async skip() {
    const dialog = document.getElementById("skip-dialog");
    const reason = document.getElementById("skip-reason").value.trim();
    if (!(await this.judgment.flush())) {
      dialog.close();
      this.say("Not skipped: your draft is not saved yet (see the line below the buttons).");
      return;
    }
    if (!(await this.post(dialog.dataset.url, { reason }, dialog))) return;
    dialog.close();
    window.location.assign(this.judgment.nextUrl);
  }

  async flag() {
    const dialog = document.getElementById("flag-dialog");
    const item = document.getElementById("flag-item");
    const data = { comment: document.getElementById("flag-comment").value.trim(), item: item ? item.value : "" };
    const flag = await this.post(dialog.dataset.url, data, dialog);
    if (!flag) return;
    dialog.close();
    const list = document.getElementById("topic-flag-list");
    const entry = document.createElement("li");
    entry.className = "flag open";
    entry.textContent = `${flag.item ? `Item ${flag.item}` : "The whole topic"}: “${flag.comment}” (open)`;
    list.prepend(entry);
    list.closest("section").hidden = false;
    this.say(`Flagged ${flag.item ? `item ${flag.item}` : "the topic"} for the organisers.`);
  }
};

// -- helpers: a compact, kind-independent view of two payloads -------------------------

function setText(id, text) {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

// {"matches": {"c1": true}} -> {"matches.c1": true}; lists of plain values stay whole.
function flatten(value, prefix = "", out = {}) {
  const nested = (v) => v !== null && typeof v === "object";
  if (nested(value) && !Array.isArray(value)) {
    const keys = Object.keys(value).sort();
    if (!keys.length && prefix) out[prefix] = value;
    for (const key of keys) flatten(value[key], prefix ? `${prefix}.${key}` : key, out);
  } else if (Array.isArray(value) && value.some(nested)) {
    value.forEach((item, index) => flatten(item, `${prefix}[${index + 1}]`, out));
  } else {
    out[prefix || "value"] = value;
  }
  return out;
}

function diff(mine, saved) {
  if (saved === null) return Object.keys(mine).sort().map((path) => [path, show(mine[path]), "(could not be loaded)"]);
  const paths = Array.from(new Set([...Object.keys(mine), ...Object.keys(saved)])).sort(
    (a, b) => (a === "status" ? -1 : b === "status" ? 1 : a.localeCompare(b, undefined, { numeric: true })));
  return paths
    .filter((path) => !sameJSON(mine[path], saved[path]))
    .map((path) => [path, show(mine[path]), show(saved[path])]);
}

function show(value) {
  if (value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ") : "(none)";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function row(path, yours, theirs, labels = {}) {
  const tr = document.createElement("tr");
  for (const text of [path, yours, theirs]) {
    const cell = document.createElement(tr.children.length ? "td" : "th");
    cell.textContent = text;
    tr.appendChild(cell);
  }
  // The text of the items a path names (matches.c1 -> "Jon Smith"), from the kind's page.
  const named = String(path).split(/[.[\]]/).filter((part) => Object.hasOwn(labels, part));
  if (named.length) {
    const label = document.createElement("span");
    label.className = "item-label";
    label.textContent = named.map((part) => `“${labels[part]}”`).join(" · ");
    tr.firstChild.append(" ", label);
  }
  return tr;
}

// id -> text of the page's items: the kind's template gives them as
// {{ ...|id_texts|json_script:"item-labels" }} (none: paths are shown alone).
function itemLabels() {
  const element = document.getElementById("item-labels");
  if (!element) return {};
  try {
    const labels = JSON.parse(element.textContent);
    return labels !== null && typeof labels === "object" && !Array.isArray(labels) ? labels : {};
  } catch (error) {
    return {};
  }
}

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

// A draft saved on a reopened judgment leaves it reopened.
function sameStatus(mine, saved) {
  return saved.status === undefined || mine.status === saved.status || (mine.status === "draft" && saved.status === "reopened");
}

function sameJSON(a, b) { return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b)); }
