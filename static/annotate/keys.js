// What every judging page shares for the keyboard: one key table per page
// (the kind's keys plus Enter, undo and redo) that both handles the keys and
// writes the key help beside the guidelines, so the two cannot disagree; one
// guard that leaves keys alone while a dialog, search box or text field has
// the focus; the confirm step before a submission; undo and redo of the
// page's edits.
//
// A kind's judge.js builds its page with
//   const page = new Concord.JudgePage({judgment, keys, load, payload, summary, untouched});
// keys: [{keys: ["j", "ArrowDown"], does: "next candidate", run(event), when?(), edits?}]
//   ("Shift+ArrowUp", "Ctrl+z", "Alt+ArrowLeft"; "1-9" is any digit from 1 to 9); the first
//   entry whose keys match and whose when() holds runs; edits: not on a
//   read-only page.
// load(payload): re-render the page from a payload (undo / redo).
// payload(): the page's current payload.
// summary(): {ready, text, problem}: what the confirm step shows, or why
//   nothing can be submitted yet.
// untouched: what the second dialog says when the page still holds its
//   starting state (a topic never saved, nothing changed since it opened).
// say(text): where the page tells why nothing can be submitted yet (default:
//   a line above the Submit button, #key-notice).
// and reports every edit with page.edited(payload) instead of judgment.changed.
// The page attaches itself to the judgment (judgment.attach) once built, so
// that judge.js can offer, and show through load(), unsaved work it kept.
"use strict";

window.Concord = window.Concord || {};

(() => {
  const NAMES = {
    ArrowUp: "↑", ArrowDown: "↓", ArrowLeft: "←", ArrowRight: "→", " ": "Space", Escape: "Esc",
    PageUp: "PgUp", PageDown: "PgDn", Delete: "Del", Ctrl: "Ctrl", Shift: "Shift", Alt: "Alt",
  };

  function parse(spec) {
    const parts = spec.length > 1 ? spec.split("+") : [spec];
    const key = parts.pop();
    const mods = new Set(parts.map((p) => p.toLowerCase()));
    return { key, shift: mods.has("shift"), ctrl: mods.has("ctrl"), alt: mods.has("alt") };
  }

  function matches(spec, event) {
    const { key, shift, ctrl, alt } = parse(spec);
    if (Boolean(event.ctrlKey || event.metaKey) !== ctrl || Boolean(event.altKey) !== alt) return false;
    const range = /^(\d)-(\d)$/.exec(key);
    if (range) return /^\d$/.test(event.key) && event.key >= range[1] && event.key <= range[2] && !ctrl;
    // Letters with Ctrl: Shift changes event.key's case, not which key it is.
    const pressed = ctrl && event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (pressed !== key) return false;
    // A printed character already says whether Shift was down ("?" or "/"),
    // whatever the layout; for other keys (arrows, Enter, letters with Ctrl) it must match.
    if (key.length === 1 && !ctrl) return !shift || event.shiftKey;
    return Boolean(event.shiftKey) === shift;
  }

  function keyLabel(spec) {
    const { key, shift, ctrl, alt } = parse(spec);
    const range = /^(\d)-(\d)$/.exec(key);
    const kbd = (text) => {
      const element = document.createElement("kbd");
      element.textContent = text;
      return element;
    };
    const out = [];
    if (ctrl) out.push(kbd("Ctrl"), " + ");
    if (alt) out.push(kbd("Alt"), " + ");
    if (shift) out.push(kbd("Shift"), " + ");
    if (range) out.push(kbd(range[1]), " … ", kbd(range[2]));
    else out.push(kbd(NAMES[key] || (ctrl ? key.toUpperCase() : key)));
    return out;
  }

  Concord.Keys = {
    // The one guard of every judging page's key handler: true when the key
    // belongs to something else (an open dialog, a text field or search
    // box, a focused button or link for Enter and Space) and the page must
    // do nothing with it.
    ignored(event) {
      if (event.defaultPrevented || event.isComposing) return true;
      if (document.querySelector("dialog[open]")) return true;
      const target = event.target;
      if (!(target instanceof Element)) return false;
      if (target.closest("dialog")) return true;
      if (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return true;
      if ((event.key === "Enter" || event.key === " ") && target.closest("button, a[href], summary, [role=button], [role=menuitem]")) return true;
      return false;
    },

    // The entry the event stands for, or null.
    find(table, event) {
      return table.find((entry) => entry.keys.some((spec) => matches(spec, event)) && (!entry.when || entry.when())) || null;
    },

    // The key help: a <dl> of every entry of the table, in its order.
    renderHelp(table, list) {
      if (!list) return;
      list.replaceChildren();
      table.forEach((entry) => {
        if (entry.help === false) return;
        const dt = document.createElement("dt");
        entry.keys.forEach((spec, index) => {
          if (index) dt.append(" or ");
          dt.append(...keyLabel(spec));
        });
        const dd = document.createElement("dd");
        dd.textContent = entry.does;
        list.append(dt, dd);
      });
    },
  };

  // -- the confirm step -------------------------------------------------------------

  let dialog = null;
  let settle = null; // the open confirm's answer

  // Closing answers at once and puts the focus back at once (the dialog's
  // own "close" event comes later, after the next key may already be down).
  function finish(ok) {
    if (!settle) return;
    const answer = settle;
    settle = null;
    if (dialog.open) dialog.close();
    answer(ok);
  }

  function build() {
    dialog = document.createElement("dialog");
    dialog.id = "confirm-dialog";
    dialog.className = "confirm-dialog";
    dialog.setAttribute("aria-labelledby", "confirm-title");
    dialog.setAttribute("aria-describedby", "confirm-summary confirm-note");
    const title = document.createElement("h2");
    title.id = "confirm-title";
    const summary = document.createElement("p");
    summary.id = "confirm-summary";
    summary.className = "confirm-summary";
    const note = document.createElement("p");
    note.id = "confirm-note";
    note.className = "confirm-note";
    const buttons = document.createElement("div");
    buttons.className = "dialog-buttons";
    const back = document.createElement("button");
    back.type = "button";
    back.id = "confirm-back";
    back.append("Back ", Object.assign(document.createElement("kbd"), { textContent: "Esc" }));
    const ok = document.createElement("button");
    ok.type = "button";
    ok.id = "confirm-ok";
    ok.className = "primary";
    buttons.append(back, ok);
    dialog.append(title, summary, note, buttons);
    document.body.appendChild(dialog);
    back.addEventListener("click", () => finish(false));
    ok.addEventListener("click", () => finish(true));
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); finish(false); });  // Esc
    // Closed some other way; a late "close" of the previous confirm finds it open again and is ignored.
    dialog.addEventListener("close", () => { if (!dialog.open) finish(false); });
  }

  // Resolves true for "Submit" (or what `ok` says), false for Back or Escape;
  // the focus goes back where it was either way.
  Concord.confirm = ({ title, summary, note = "", ok = "Submit", focus = "ok" }) => {
    if (!dialog) build();
    const before = document.activeElement;
    dialog.querySelector("#confirm-title").textContent = title;
    dialog.querySelector("#confirm-summary").textContent = summary;
    const noteLine = dialog.querySelector("#confirm-note");
    noteLine.textContent = note;
    noteLine.hidden = !note;
    dialog.querySelector("#confirm-ok").textContent = ok;
    dialog.classList.toggle("warning", focus === "back");
    return new Promise((resolve) => {
      settle = (answer) => {
        if (before && before.isConnected && typeof before.focus === "function") before.focus({ preventScroll: true });
        resolve(answer);
      };
      dialog.showModal();
      dialog.querySelector(focus === "back" ? "#confirm-back" : "#confirm-ok").focus();
    });
  };

  // -- the page: keys, undo and redo, the confirm step ------------------------------------

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const copy = (value) => JSON.parse(JSON.stringify(value ?? null));

  Concord.JudgePage = class {
    constructor({ judgment, keys, load, payload, summary, untouched = "", say = null, submitButton = null, helpList = null }) {
      this.judgment = judgment;
      this.say = say || ((text) => this.notice(text));
      this.load = load;
      this.payload = payload;
      this.summary = summary;
      this.untouchedText = untouched || "Nothing has been changed since this topic was opened.";
      this.start = copy(payload());
      this.neverSaved = judgment.status === "new";
      this.past = [];
      this.future = [];
      this.current = copy(this.start);
      this.group = null;
      this.confirming = false;
      // Previous / next topic, skip and flag (static/annotate/judge.js), on an assessor's own topic.
      this.topic = Concord.TopicActions ? new Concord.TopicActions(judgment, this.say) : null;
      this.table = keys.concat([
        { keys: ["Enter"], does: "submit: first a summary of what is submitted; Enter again (on “Submit”) sends it, Esc goes back", run: () => this.submit(), edits: true },
        { keys: ["Ctrl+z"], does: "undo the last change", run: () => this.undo(), edits: true },
        { keys: ["Ctrl+Shift+z", "Ctrl+y"], does: "redo", run: () => this.redo(), edits: true },
      ], this.topic ? this.topic.keys() : []);
      Concord.JudgePage.current = this;
      Concord.Keys.renderHelp(this.table, helpList || document.getElementById("key-help"));
      this.submitButton = submitButton || document.getElementById("submit-judgment");
      if (this.submitButton) this.submitButton.addEventListener("click", () => this.submit());
      document.addEventListener("keydown", (event) => this.onKey(event));
      // Last: the page can now show a copy of unsaved work judge.js offers to restore.
      judgment.attach(this);
    }

    get readonly() { return this.judgment.readonly; }

    notice(text) {
      let line = document.getElementById("key-notice");
      if (!line) {
        line = document.createElement("p");
        line.id = "key-notice";
        line.className = "key-notice";
        line.setAttribute("role", "status");
        line.setAttribute("aria-live", "polite");
        const anchor = this.submitButton ? this.submitButton.closest(".judge-footer") || this.submitButton : null;
        if (anchor) anchor.before(line);
        else this.judgment.root.appendChild(line);
      }
      line.textContent = text;
    }

    onKey(event) {
      if (Concord.Keys.ignored(event)) return;
      const entry = Concord.Keys.find(this.table, event);
      if (!entry) return;
      event.preventDefault();
      if (entry.edits && this.readonly) {
        this.say(this.judgment.refusal);
        return;
      }
      entry.run(event);
    }

    // An edit of the page: kept for undo, saved as a draft. Edits of one
    // `group` in a row (typing one description) are one step.
    edited(payload, { group = null } = {}) {
      const next = copy(payload);
      if (same(next, this.current)) return;
      if (!(group && group === this.group)) {
        this.past.push(this.current);
        if (this.past.length > 200) this.past.shift();
      }
      this.group = group;
      this.future = [];
      const line = document.getElementById("key-notice");
      if (line) line.textContent = "";
      this.current = next;
      this.judgment.changed(payload);
    }

    // Unsaved work this browser kept, restored when the page opened (judge.js
    // saves it): one edit, so Ctrl+Z goes back to the saved version.
    restored(payload) {
      this.past.push(this.current);
      this.future = [];
      this.group = null;
      this.current = copy(payload);
      this.load(copy(payload));
    }

    undo() { this.travel(this.past, this.future, "Undone"); }

    redo() { this.travel(this.future, this.past, "Redone"); }

    travel(from, to, word) {
      if (!from.length) {
        this.say(word === "Undone" ? "Nothing to undo." : "Nothing to redo.");
        return;
      }
      to.push(this.current);
      this.current = from.pop();
      this.group = null;
      this.load(copy(this.current));
      this.judgment.changed(copy(this.current));
    }

    // The page still holds what it opened with, on a topic never saved.
    untouched() { return this.neverSaved && same(this.payload(), this.start); }

    async submit() {
      if (this.readonly || this.confirming) return false;
      const state = this.summary();
      if (!state.ready) {
        this.say(state.problem || "Not everything is done yet.");
        return false;
      }
      const payload = this.payload();
      this.confirming = true;
      try {
        if (!(await Concord.confirm({ title: "Submit this judgment?", summary: state.text }))) return false;
        if (this.untouched() && !(await Concord.confirm({
          title: "Submit it untouched?",
          summary: this.untouchedText,
          note: "Submit only if this is really your judgment.",
          ok: "Submit as it is",
          focus: "back",
        }))) return false;
      } finally {
        this.confirming = false;
      }
      if (await this.judgment.submit(payload)) this.judgment.goNext();
      return true;
    }
  };
})();
