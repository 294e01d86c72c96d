// Saving a judgment: drafts as you go, submission, the version check, and the
// copy of unsaved work this browser keeps until the server acknowledges it.
//
// One pending change. Every edit replaces `pending` (the page's payload and
// the status to save it with) and writes it at once to localStorage, under a
// key of campaign, topic and user, holding the user's id: a reload, a closed
// tab or a crash loses nothing. It is dropped only when the server
// acknowledges a save of exactly it, or when the user discards it. push()
// sends it, one request at a time; `stop` says why nothing is sent now:
//   "conflict"    the judgment changed elsewhere (409): the merge prompt waits for a choice;
//   "offline"     the request did not reach the server: tried again after 2, 4 ... 30 s, and on "online";
//   "busy"        503 or 429: tried again after its Retry-After (else as offline); other 5xx the same;
//   "signed-out"  the session ended: nothing is sent; the banner offers a sign-in in a new tab and the
//                 page asks the session endpoint (2 ... 30 s, and when the tab gets the focus) until
//                 its own user is signed in again, then sends with that session's CSRF token;
//   "other-user"  someone else signed in in this browser: the change is never sent under their session;
//   "refused"     the server refused it (400, 413 ...): shown, kept, tried again at the next edit.
// While a change waits, a banner (role=alert) says so and how many edits wait.
// A save refused with 401, 403 or 413 first asks GET /api/auth/session/ who
// is signed in now: the same user gets a fresh CSRF token (signing in in
// another tab rotates it) and the save goes once more; refused again with a
// fresh token, it is the server's real answer. Opening the topic again (a
// reload, another tab) offers what was kept: restore or discard. A page being
// left (pagehide) starts no save, so what it kept is always offered there.
//
// Nothing is ever overwritten silently. A save carries the version it was
// based on; when the server has a newer one (another tab or device, or a
// change made while this browser was offline) the answer is 409 and the page
// shows both versions side by side: "Keep mine" sends this browser's change
// again on top of the saved version (an informed overwrite), "Use the saved
// version" drops it and reloads.
//
// A submitted judgment is not edited live (docs/api.md, "Judgment states"): the
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

// Answers that may mean the session is not what the page thinks (signed out,
// someone else signed in, a rotated CSRF token) before they mean anything else;
// 413: a body over the limit for requests not signed in (concord/security.py).
const SESSION_REFUSALS = new Set([401, 403, 413]);
const FIRST_RETRY_MS = 2000;
const LAST_RETRY_MS = 30000;

Concord.Judgment = class {
  constructor(root, { onSaved } = {}) {
    this.root = root;
    this.apiUrl = root.dataset.apiUrl;
    this.nextUrl = root.dataset.nextUrl;
    this.sessionUrl = root.dataset.sessionUrl;
    this.storageKey = root.dataset.storageKey;
    // Whose page this is: a kept copy, and every save, are theirs only.
    this.userId = root.dataset.userId;
    this.username = root.dataset.username;
    // Not assigned (an organiser looking): never editable. Submitted: not until reopened.
    this.assigned = root.dataset.readonly !== "true";
    this.csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
    // This page's own id: drafts in a row from it share a revision, never another tab's (docs/api.md, "Judgment states").
    this.pageId = crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
    const state = JSON.parse(document.getElementById("judgment-state").textContent);
    this.version = state.version;
    this.status = state.status;
    this.submittedVersion = state.submitted_version ?? null;
    this.payload = state.payload;
    this.reopening = false; // the reopen button pressed: the page reloads when it is done
    this.readonly = !this.assigned || this.status === "submitted";
    this.statusLine = document.getElementById("save-status");
    showFlash(this.statusLine);
    this.conflictBox = document.getElementById("conflict");
    this.onSaved = onSaved || (() => {});
    this.page = null; // the kind's Concord.JudgePage (attach): shows a restored copy
    this.pending = null; // {payload, status}: the change the server has not acknowledged
    this.edits = 0; // how many edits `pending` holds
    this.editedAt = null;
    this.seq = 0; // bumped by every change: an acknowledged save drops `pending` only if nothing came after it
    this.sending = null; // the request under way
    this.timer = null; // the next attempt: 500 ms after an edit, or a retry
    this.stop = null;
    this.retryDelay = FIRST_RETRY_MS;
    this.retryAt = null;
    this.refreshed = false; // the CSRF token was fetched again for the save that failed
    this.problem = ""; // what the server said (busy, refused)
    this.otherUser = "";
    this.storable = true; // false when this browser refuses to store the copy
    this.conflict = null; // {mine: {payload, status, base}, saved: {payload, status, version, by, at}}
    this.offer = null; // {kept, saved}: the restore dialog's question
    this.reloadAfterSave = false;
    // Only an assessor's own judgment counts time (not the consensus editor, not an organiser looking).
    this.activeTime = root.dataset.countTime === "true" ? new Concord.ActiveTime() : null;
    this.wireMergePrompt();
    this.wireStateActions();
    this.wireProblem();
    this.wireRestore();
    this.renderState();
    window.addEventListener("online", () => { if (this.stop === "offline") this.resume(); });
    // A page being left (closed, reloaded, navigated away from) starts no save: what waits stays
    // kept in this browser and is offered when the topic is opened again, where its user decides.
    // A request started by a document being unloaded may or may not reach the server, and no page
    // is left to show its answer, so the user would never learn what became of the change
    // (Chromium, for one, still tells a closing tab "online" when its emulated offline state
    // ends with it). Back from the back-forward cache, the page carries on.
    this.leaving = false;
    window.addEventListener("pagehide", () => { this.leaving = true; });
    window.addEventListener("pageshow", (event) => {
      if (!event.persisted || !this.leaving) return;
      this.leaving = false;
      if (this.pending && !this.stop) this.push();
    });
    // Back on this tab (after signing in in another one, say): ask at once, not at the next poll.
    const back = () => { if (document.visibilityState === "visible" && this.signedOut()) this.checkBack(); };
    window.addEventListener("focus", back);
    document.addEventListener("visibilitychange", back);
  }

  say(text) { this.statusLine.textContent = text; }

  // The kind's page is ready to show a payload: offer what this browser kept,
  // once its script has put the focus where it starts (closing the offer returns it there).
  attach(page) {
    this.page = page;
    setTimeout(() => this.offerKept(), 0);
  }

  // -- the pending change -----------------------------------------------------------

  // An edit: kept at once, sent shortly after the last one.
  changed(payload) {
    this.payload = payload;
    if (this.readonly) return;
    if (this.conflict) {
      // Still undecided: the latest state is what "Keep mine" will send.
      this.conflict.mine.payload = payload;
      this.hold(payload, this.conflict.mine.status);
      this.renderConflict();
      return;
    }
    // Always a draft: on a reopened judgment it is saved on top of the submitted version.
    this.hold(payload, "draft");
    if (this.stop === "refused") this.stop = null; // the new change may be one the server takes
    if (this.stop) {
      this.showProblem();
      return;
    }
    this.say("Unsaved changes…");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; this.push(); }, 500);
  }

  hold(payload, status, { edit = true } = {}) {
    this.pending = { payload, status };
    this.seq += 1;
    if (edit || !this.edits) this.edits += 1;
    this.editedAt = new Date().toISOString();
    this.keep();
  }

  // Send what waits, and wait for it: true when nothing is left unsaved (before leaving the page).
  async flush() {
    if (this.pending && !this.stop) await this.push();
    else if (this.sending) await this.sending;
    return !this.pending;
  }

  // What a finished page tells its assessor to do next: submit, or (submitted) reopen first.
  get submitHint() {
    if (this.assigned && this.status === "submitted") return "submitted: press R to reopen it for editing.";
    return this.readonly ? "read-only." : "press Enter to submit.";
  }

  // What a key that edits says on a page that cannot be edited (instead of doing nothing silently).
  get refusal() {
    if (this.reopening) return "Reopening: the page opens for editing in a moment.";
    if (this.assigned && this.status === "submitted") return "Submitted: press R to reopen it for editing.";
    return "This page is read-only: it is not one of your topics.";
  }

  async submit(payload) {
    if (this.readonly) {
      if (this.assigned) this.say(`Submitted (version ${this.submittedVersion}): press R to reopen it for editing.`);
      return false;
    }
    if (this.conflict) {
      this.say("Not submitted: this judgment changed elsewhere. Choose a version below first.");
      return false;
    }
    // A withdrawn judgment is edited as a draft first (it becomes a draft), then submitted.
    if (this.status === "withdrawn") {
      this.hold(payload, "draft", { edit: false });
      if (!(await this.push())) return false;
    }
    this.hold(payload, "submitted", { edit: false });
    if (this.stop === "refused") this.stop = null;
    if (this.stop) {
      this.showProblem();
      return false;
    }
    return (await this.push()) && this.status === "submitted";
  }

  // Send the pending change until the server has it, something stops it, or
  // a newer edit's timer takes over. One request at a time.
  async push() {
    if (!this.stop) {
      clearTimeout(this.timer); // a draft's timer: sent now instead (a retry's timer stays)
      this.timer = null;
    }
    while (this.pending && !this.stop && !this.timer && !this.readonly && !this.leaving) {
      if (!this.sending) this.sending = this.attempt().finally(() => { this.sending = null; });
      await this.sending;
    }
    if (!this.pending && !this.stop) this.hideProblem();
    return !this.pending;
  }

  async attempt() {
    const sent = this.pending;
    const seq = this.seq;
    const edits = this.edits;
    this.say(sent.status === "submitted" ? "Submitting…" : "Saving draft…");
    const request = { payload: sent.payload, status: sent.status, version: this.version };
    // The active time since the last save (at most 10 minutes; the rest goes with the next save).
    const active = this.activeTime ? this.activeTime.take() : 0;
    if (this.activeTime) request.active_ms = active;
    const answer = await this.call("PUT", this.apiUrl, request);
    if (answer.ok) {
      this.acknowledged(answer.body, seq, edits);
      return;
    }
    if (this.activeTime) this.activeTime.giveBack(active); // not saved: sent with the next save
    await this.failed(answer);
  }

  // One request to the API: {ok, status, body, retryAfter}, or {offline: true} when it did not get an answer.
  async call(method, url, data) {
    let response;
    try {
      response = await fetch(url, {
        method,
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json", "X-CSRFToken": this.csrf, Accept: "application/json",
          "X-Concord-Page": this.pageId,
        },
        body: JSON.stringify(data),
      });
    } catch (error) {
      return { offline: true };
    }
    const body = await response.json().catch(() => ({}));
    return {
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      body,
      retryAfter: retryAfterMs(response.headers.get("Retry-After")),
    };
  }

  acknowledged(body, seq, edits) {
    // "replayed": a retry of a save the server had already applied (its answer was lost).
    this.retryDelay = FIRST_RETRY_MS;
    this.refreshed = false;
    this.problem = "";
    this.version = body.version;
    this.status = body.status;
    this.submittedVersion = body.submitted_version ?? null;
    if (seq === this.seq) {
      this.pending = null;
      this.edits = 0;
      this.dropLocal();
    } else {
      this.edits = Math.max(1, this.edits - edits);
      this.keep(); // the newer change, now on the new version
    }
    this.hideProblem();
    this.renderState();
    if (body.status === "submitted") {
      this.say(`Submitted (version ${body.version}).`);
      keepFlash(`Submitted “${this.root.dataset.topicTitle || "the topic"}” (version ${body.version}).`);
    }
    else if (body.status === "reopened") this.say(`Draft saved (version ${body.version}) on top of submitted version ${body.submitted_version}.`);
    else this.say(`Draft saved (version ${body.version}).`);
    this.onSaved(body);
    if (this.reloadAfterSave && !this.pending) window.location.reload();
  }

  // A save that did not go through: what stops the next one, if anything.
  async failed(answer) {
    if (answer.offline) return this.wait("offline", this.backoff());
    if (answer.status === 409) return this.showConflict(this.mine(), answer.body.current_version);
    if (SESSION_REFUSALS.has(answer.status)) {
      if ((await this.whoIsSignedIn()) !== "me") return undefined;
      if (!this.refreshed) {
        this.refreshed = true; // push() sends it again, with the fresh token
        return undefined;
      }
    }
    if (answer.status === 503 || answer.status === 429 || answer.status >= 500) {
      this.problem = answer.body.detail
        ? `The server is busy (${answer.body.detail})`
        : `The server is not answering (${answer.status})`;
      return this.wait("busy", answer.retryAfter ?? this.backoff());
    }
    const field = answer.body.field ? `${answer.body.field}: ` : "";
    this.problem = `Not saved: ${field}${answer.body.detail || answer.statusText}`;
    this.stop = "refused";
    this.showProblem();
    return undefined;
  }

  // Who is signed in in this browser now. The page's own user: the session's
  // CSRF token is taken. Anyone else, or nobody: nothing is sent until the
  // page's user is back (asked again later, and when the tab gets the focus).
  async whoIsSignedIn() {
    let session;
    try {
      const response = await fetch(this.sessionUrl, {
        credentials: "same-origin",
        cache: "no-store",
        headers: { Accept: "application/json" },
      });
      if (!response.ok) {
        this.problem = `The server is not answering (${response.status})`;
        this.wait("busy", retryAfterMs(response.headers.get("Retry-After")) ?? this.backoff());
        return "unknown";
      }
      session = await response.json();
    } catch (error) {
      this.wait("offline", this.backoff());
      return "unknown";
    }
    if (!session.user) return this.watchSession("signed-out");
    if (String(session.user.id) !== this.userId) {
      this.otherUser = session.user.username;
      return this.watchSession("other-user");
    }
    this.csrf = session.csrf_token;
    return "me";
  }

  watchSession(why) {
    this.stop = why;
    this.retryAt = null;
    this.showProblem();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; this.checkBack(); }, this.backoff());
    return why;
  }

  signedOut() { return this.stop === "signed-out" || this.stop === "other-user"; }

  async checkBack() {
    clearTimeout(this.timer);
    this.timer = null;
    if ((await this.whoIsSignedIn()) !== "me") return;
    this.refreshed = true;
    this.resume();
  }

  // Nothing sent before `ms`: offline, or the server asked for it (Retry-After).
  wait(why, ms) {
    this.stop = why;
    this.retryAt = Date.now() + ms;
    this.showProblem();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; this.resume(); }, ms);
  }

  resume() {
    this.stop = null;
    this.retryAt = null;
    return this.push();
  }

  // The delay before the next try: 2, 4, 8 ... 30 s; back to 2 s after a save goes through.
  backoff() {
    const ms = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, LAST_RETRY_MS);
    return ms;
  }

  mine() { return { payload: this.pending.payload, status: this.pending.status, base: this.version }; }

  // -- the copy kept in this browser --------------------------------------------------

  keep() {
    if (!this.pending) return;
    const kept = {
      user: this.userId,
      payload: this.pending.payload,
      status: this.pending.status,
      // The version the change was made on: a conflict leaves it on the old one until "Keep mine".
      version: this.conflict ? this.conflict.mine.base : this.version,
      edits: this.edits,
      at: this.editedAt,
    };
    try {
      localStorage.setItem(this.storageKey, JSON.stringify(kept));
      this.storable = true;
    } catch (error) {
      this.storable = false; // storage full or disabled: the banner says the page alone holds it
    }
  }

  readLocal() {
    try {
      const kept = JSON.parse(localStorage.getItem(this.storageKey) || "null");
      return kept !== null && typeof kept === "object" && "payload" in kept && Number.isInteger(kept.version) ? kept : null;
    } catch (error) {
      return null;
    }
  }

  dropLocal() { try { localStorage.removeItem(this.storageKey); } catch (error) { /* ignore */ } }

  // -- the banner: why nothing is saved now -------------------------------------------

  wireProblem() {
    this.problemBox = document.getElementById("save-problem");
    this.signIn = document.getElementById("sign-in-again");
    this.retryButton = document.getElementById("retry-save");
    this.retryButton.addEventListener("click", () => (this.signedOut() ? this.checkBack() : this.resume()));
  }

  waiting() {
    if (!this.pending) return "";
    const n = Math.max(this.edits, 1);
    const changes = `${n} change${n === 1 ? "" : "s"}`;
    return this.pending.status === "submitted" ? `your submission (${changes})` : changes;
  }

  showProblem() {
    const waiting = this.waiting();
    // One change (or a submission) is "it", several are "them".
    const one = !this.pending || this.pending.status === "submitted" || this.edits <= 1;
    const [them, are, stay] = one ? ["it", "is", "stays"] : ["them", "are", "stay"];
    const kept = this.storable ? "kept in this browser" : "kept in this page only (this browser refuses to store it: keep the page open)";
    const next = this.retryAt ? ` in ${Math.max(1, Math.round((this.retryAt - Date.now()) / 1000))} s` : "";
    const texts = {
      offline: [
        waiting ? `Offline: ${waiting} waiting, ${kept}; sent when the connection returns (next try${next}).` : "Offline.",
        "Offline: not saved yet.",
      ],
      busy: [
        `${this.problem}: ${waiting ? `${waiting} waiting, ${kept}; ` : ""}trying again${next}.`,
        `${this.problem}: not saved yet.`,
      ],
      "signed-out": [
        waiting
          ? `You are signed out (your session has ended): ${waiting} ${kept}, not sent. ` +
            `Sign in again: this page sends ${them} as soon as you are back.`
          : "You are signed out (your session has ended). Sign in again to go on.",
        "Signed out: not saved.",
      ],
      "other-user": [
        waiting
          ? `This browser is now signed in as ${this.otherUser}, not ${this.username}: ${this.username}'s ${waiting} ` +
            `${stay} ${kept} and ${are} not sent under ${this.otherUser}'s name. Sign in as ${this.username} again to send ${them}.`
          : `This browser is now signed in as ${this.otherUser}, not ${this.username}. Sign in as ${this.username} again to go on.`,
        `Signed in as ${this.otherUser}: not sent.`,
      ],
      refused: [`${this.problem}${waiting ? ` (${waiting} ${kept})` : ""}.`, this.problem],
    };
    const [banner, line] = texts[this.stop] || [];
    if (!banner) return;
    setText("save-problem-text", banner);
    this.signIn.hidden = !this.signedOut();
    this.signIn.textContent = this.stop === "other-user" ? `Sign in as ${this.username} (opens a new tab)` : "Sign in again (opens a new tab)";
    this.retryButton.hidden = this.stop === "refused";
    this.problemBox.hidden = false;
    this.say(line);
  }

  hideProblem() { this.problemBox.hidden = true; }

  // -- the restore offer: a change kept by an earlier visit ----------------------------

  wireRestore() {
    this.restoreDialog = document.getElementById("restore-dialog");
    document.getElementById("restore-keep").addEventListener("click", () => this.restoreKept());
    document.getElementById("restore-discard").addEventListener("click", () => this.discardKept());
    // Esc does not decide: the kept change stays until one of the two buttons says what to do with it.
    this.restoreDialog.addEventListener("cancel", (event) => event.preventDefault());
  }

  offerKept() {
    const kept = this.readLocal();
    if (!kept || !this.assigned) return;
    // The key names the user already; a copy naming another one is never shown or sent.
    // (Copies kept before they named their user carry none, under this user's key.)
    if (kept.user !== undefined && String(kept.user) !== this.userId) return;
    const saved = { payload: this.payload, status: this.status, version: this.version };
    // Its content is saved (a save that got through, its answer lost): nothing to offer, unless
    // it is a submission and the saved version is not submitted.
    if (sameJSON(kept.payload, saved.payload) && (kept.status !== "submitted" || saved.status === "submitted")) {
      this.dropLocal();
      return;
    }
    this.offer = { kept, saved };
    const n = Math.max(kept.edits || 0, 1);
    const when = kept.at ? ` (the last at ${new Date(kept.at).toLocaleString()})` : "";
    let note = `${n} change${n === 1 ? "" : "s"} made in this browser${when} ${n === 1 ? "was" : "were"} not saved.`;
    if (kept.status === "submitted") note += " This was a submission: restoring submits it.";
    if (kept.version !== saved.version) {
      note += ` The judgment has been saved since (version ${saved.version}; yours were made on version ${kept.version}):` +
        " restoring saves yours over it, and the saved version stays in its history.";
    }
    setText("restore-note", note);
    setText("restore-saved-head", `Saved version ${saved.version}`);
    // The status only when it is a submission that was not sent (a draft of a new judgment is no news).
    const status = kept.status === "submitted" ? saved.status : undefined;
    fillDiff("restore-rows", { status: kept.status, payload: kept.payload }, { ...saved, status });
    this.restoreDialog.showModal();
    document.getElementById("restore-keep").focus();
  }

  // Shown on the page (one edit: Ctrl+Z goes back to the saved version), then saved over the saved version.
  restoreKept() {
    if (!this.offer) return undefined;
    const { kept, saved } = this.offer;
    this.offer = null;
    this.restoreDialog.close();
    try {
      this.page.restored(kept.payload);
    } catch (error) {
      this.say("The kept change cannot be shown on this page: it stays in this browser.");
      return undefined;
    }
    this.payload = kept.payload;
    this.edits = Math.max(kept.edits || 0, 1);
    this.editedAt = kept.at || null;
    this.say("Restored the unsaved changes kept in this browser.");
    return this.overwrite({ payload: kept.payload, status: kept.status, base: kept.version }, saved);
  }

  discardKept() {
    if (!this.offer) return;
    this.offer = null;
    this.restoreDialog.close();
    this.dropLocal();
    this.say("Discarded the unsaved changes: this is the saved version.");
  }

  // -- the merge prompt -------------------------------------------------------------

  async showConflict(mine, currentVersion, saved = null) {
    this.stop = "conflict";
    clearTimeout(this.timer);
    this.timer = null;
    this.hideProblem();
    if (!saved) saved = await this.fetchSaved(currentVersion);
    if (saved.payload !== undefined && sameJSON(saved.payload, mine.payload) && sameStatus(mine, saved)) {
      // The other side made exactly this change: nothing to choose.
      this.stop = null;
      this.version = saved.version;
      this.pending = null;
      this.edits = 0;
      this.dropLocal();
      this.say(`Saved (version ${saved.version}).`);
      return;
    }
    this.conflict = { mine, saved };
    this.keep(); // on the version the change was made on, should the page be closed undecided
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
    this.conflictBox.hidden = false;
    const when = saved.at ? ` at ${new Date(saved.at).toLocaleString()}` : "";
    const by = saved.by ? ` by ${saved.by}` : "";
    setText("conflict-message",
      `This judgment was changed elsewhere (another tab or device, or while this browser was offline): ` +
      `it is now at version ${saved.version}. Your change was not saved and nothing was overwritten; ` +
      "it is kept in this browser until you choose.");
    setText("merge-mine-head", `Your unsaved change (made on version ${mine.base})`);
    setText("merge-saved-head", `Saved version ${saved.version}${by}${when}`);
    fillDiff("merge-rows", mine, saved);
    document.getElementById("merge").hidden = false;
  }

  // An informed overwrite: this browser's change, sent on top of the saved version.
  keepMine() {
    if (!this.conflict) return undefined;
    const { mine, saved } = this.conflict;
    this.closeConflict();
    return this.overwrite(mine, saved);
  }

  // `mine` saved on top of `saved`. When the saved version is submitted, the
  // change becomes a draft on top of it (reopened): the submitted version
  // keeps counting until a resubmission.
  async overwrite(mine, saved) {
    this.version = saved.version;
    if (saved.status !== undefined) this.status = saved.status;
    this.pending = { payload: mine.payload, status: mine.status };
    this.seq += 1;
    this.keep(); // now on the saved version
    if (this.assigned && this.status === "submitted") {
      if (!(await this.reopen())) return false;
      this.reloadAfterSave = true; // the kind's page was built read-only
    }
    if (mine.status === "submitted") return this.submit(mine.payload);
    return this.push();
  }

  useSaved() {
    this.closeConflict();
    this.pending = null;
    this.edits = 0;
    this.dropLocal();
    window.location.reload();
  }

  closeConflict() {
    this.conflict = null;
    this.stop = null;
    this.conflictBox.hidden = true;
    document.getElementById("merge").hidden = true;
  }

  // Work handed out now (an adaptive campaign's next opinion) spends the budget, so it is
  // asked for as the "Next topic" button does: a POST with the CSRF token, never a GET.
  goNext() {
    if (this.root.dataset.nextAllocates !== "true") {
      window.location.assign(this.nextUrl);
      return;
    }
    const form = document.createElement("form");
    form.method = "post";
    form.action = this.nextUrl;
    const token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = this.csrf;
    form.append(token);
    document.body.append(form);
    form.submit();
  }

  // -- judgment states: reopen, withdraw, and what the page says counts ---------------

  // Reopen a submitted judgment: its payload becomes a draft on top, while
  // the submitted version keeps counting. True when done.
  reopen() {
    return this.act("reopen", { version: this.version }, "Reopening…", (body) =>
      `Reopened: editing a draft on top of submitted version ${body.submitted_version}.`);
  }

  // Withdraw a submitted or reopened judgment from the reports; `reason` is
  // kept in its history. A draft edit waiting is saved first.
  async withdraw(reason = "") {
    if (!(await this.flush())) {
      this.say("Not withdrawn: your change is not saved yet.");
      return false;
    }
    return this.act("withdraw", { version: this.version, reason: reason || "" }, "Withdrawing…", () =>
      "Withdrawn: it no longer counts in the reports.");
  }

  async act(action, data, saying, done) {
    if (!this.assigned || this.stop === "conflict") return false;
    if (this.sending) await this.sending; // a draft being saved goes first
    this.say(saying);
    for (let tries = 1; ; tries += 1) {
      const answer = await this.call("POST", `${this.apiUrl}${action}/`, { ...data, version: this.version });
      if (answer.ok) {
        this.actDone(answer.body);
        this.say(done(answer.body));
        return true;
      }
      if (answer.offline) {
        this.say("Not done: the server cannot be reached. Try again when the connection returns.");
        return false;
      }
      // Signed out, or someone else signed in: the banner says so. The same user: once more, with a fresh token.
      if (SESSION_REFUSALS.has(answer.status) && tries === 1 && (await this.whoIsSignedIn()) === "me") continue;
      if (answer.status === 409) {
        this.say(`Not done: this judgment changed elsewhere (it is now at version ${answer.body.current_version}). Reload the page to see it.`);
      } else if (!this.signedOut()) {
        this.say(`Not done: ${answer.body.field ? answer.body.field + ": " : ""}${answer.body.detail || answer.statusText}`);
      }
      return false;
    }
  }

  actDone(body) {
    this.version = body.version;
    this.status = body.status;
    this.submittedVersion = body.submitted_version ?? null;
    if (!this.pending) this.payload = body.payload;
    else this.keep(); // the change being restored, now on top of the new version
    this.renderState();
    this.onSaved(body);
  }

  // Which version counts, and the actions the state allows.
  renderState() {
    // Reopened by the button: read-only until the reload opens the kind's page for editing,
    // so no key is taken by a page about to go.
    this.readonly = this.reopening || !this.assigned || this.status === "submitted";
    const line = document.getElementById("judgment-state-line");
    const reopen = document.getElementById("reopen-judgment");
    const withdraw = document.getElementById("withdraw-judgment");
    const submit = document.getElementById("submit-judgment");
    const texts = {
      submitted: `Submitted (version ${this.submittedVersion}) counts in the reports.` +
        (this.assigned ? " To change it, press R (Reopen to edit)." : ""),
      reopened: `Editing a draft on top of submitted version ${this.submittedVersion}, which counts until you resubmit.`,
      withdrawn: "Withdrawn: this judgment no longer counts in the reports. Editing it saves a new draft, to submit again.",
    };
    if (line) {
      line.textContent = this.reopening ? "Reopened: opening it for editing…" : texts[this.status] || "";
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
    if (reopen) {
      reopen.addEventListener("click", async () => {
        this.reopening = true;
        if (await this.reopen()) window.location.reload();
        else this.reopening = false;
      });
    }
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
    const reopen = document.getElementById("reopen-judgment");
    if (reopen && this.judgment.assigned) {
      keys.push({
        keys: ["r"],
        does: "reopen your submitted judgment to edit it (it counts until you resubmit)",
        run: () => (reopen.hidden ? this.say("Only a submitted judgment is reopened.") : reopen.click()),
      });
    }
    return keys;
  }

  go(link, none) {
    if (link) this.leave(link.href);
    else this.say(none);
  }

  async leave(url) {
    this.say("Saving your draft before leaving…");
    if (!(await this.judgment.flush())) {
      this.say("Not moved: your draft is not saved yet.");
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
    // The comment first: typing starts it at once ("About" stays one Shift+Tab away, set to the whole topic).
    dialog.querySelector("textarea").focus();
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
      this.say("Not skipped: your draft is not saved yet.");
      return;
    }
    if (!(await this.post(dialog.dataset.url, { reason }, dialog))) return;
    dialog.close();
    this.judgment.goNext();
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

// -- the confirmation that outlives the page a submission leaves ---------------------

const FLASH_KEY = "concord:flash";

// A submission goes on to the next topic at once: the next judging page says it was done.
function keepFlash(text) {
  try { window.sessionStorage.setItem(FLASH_KEY, text); } catch (problem) { /* storage off: the status line said it */ }
}

// Shown in the (polite, live) status line once the page is up, so a screen reader hears it too.
function showFlash(line) {
  let text = null;
  try {
    text = window.sessionStorage.getItem(FLASH_KEY);
    window.sessionStorage.removeItem(FLASH_KEY);
  } catch (problem) { return; }
  if (!text || !line) return;
  window.setTimeout(() => { if (!line.textContent) line.textContent = text; }, 50);
}

// -- helpers: a compact, kind-independent view of two payloads -------------------------

function setText(id, text) {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

// The rows of a merge table (the merge prompt, the restore offer): where
// `mine` and `saved` differ, at most 20, each path with its item's text.
function fillDiff(id, mine, saved) {
  const rows = document.getElementById(id);
  rows.replaceChildren();
  // Curations (the consensus editor) have no status.
  const status = (side) => (saved.status === undefined ? {} : { status: side.status });
  const differences = diff(
    { ...status(mine), ...flatten(mine.payload) },
    saved.payload === undefined ? null : { ...status(saved), ...flatten(saved.payload) },
  );
  const shown = differences.slice(0, 20);
  const labels = itemLabels();
  for (const [path, yours, theirs] of shown) rows.appendChild(row(path, yours, theirs, labels));
  if (differences.length > shown.length) rows.appendChild(row("…", `${differences.length - shown.length} more differences`, ""));
  if (!differences.length) rows.appendChild(row("", "the same content", "the same content"));
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
  // An empty list or object against nothing is no difference ({"matches": {}} of a new judgment).
  const empty = (value) => value !== null && typeof value === "object" && !Object.keys(value).length;
  const blank = (a, b) => (empty(a) && b === undefined) || (empty(b) && a === undefined);
  return paths
    .filter((path) => !sameJSON(mine[path], saved[path]) && !blank(mine[path], saved[path]))
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

// Retry-After (seconds, or an HTTP date) in milliseconds, from 1 s to 5 minutes; null when absent or unreadable.
function retryAfterMs(value) {
  if (!value) return null;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 1000), 300000) : null;
}
