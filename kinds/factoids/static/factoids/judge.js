// Factoid analysis page (van Halteren & Teufel, section 3). The annotator
// builds their own factoid inventory (define, edit, split into finer
// factoids when a summary holds only part of one, merge back, delete) and
// marks which factoids each summary sentence contains. Everything works from
// the keyboard: j/k move through the sentences of all summaries, a factoid's
// number (its place in the whole inventory, the same while a search filters
// the list) toggles it on the focused sentence, "/" searches; a mark clears
// the search. The keys, the key help, undo/redo and the confirm step:
// static/annotate/keys.js. In Phase 2 the server's list of discrepancies with the other
// annotators (nothing of theirs but where they disagree) leads to the
// sentences concerned.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const byId = (id) => document.getElementById(id);
  const root = byId("judge");
  const page = byId("factoids");
  const list = byId("factoid-list");
  const search = byId("factoid-search");
  const statusLine = byId("factoid-status");
  const countLine = byId("factoid-count");
  const submitButton = byId("submit-judgment");
  const newButton = byId("new-factoid");
  const noFactoids = byId("no-factoids");
  const noMatches = byId("no-matches");
  const pickPrompt = byId("pick-prompt");
  const rowTemplate = byId("factoid-row-template");
  const partTemplate = byId("part-template");
  const dialog = byId("factoid-dialog");
  const dialogForm = byId("dialog-form");
  const dialogFields = byId("dialog-fields");
  const dialogError = byId("dialog-error");
  const dialogOk = byId("dialog-ok");
  const addPartButton = byId("dialog-add-part");
  const judgment = new Concord.Judgment(root);
  const editable = !judgment.readonly;
  page.classList.toggle("readonly", !editable);

  // The order j/k walk: model summaries, then machine summaries (the template's order).
  const sentences = Array.from(page.querySelectorAll(".factoid-sentence"));
  const sentenceById = new Map(sentences.map((el) => [el.dataset.id, el]));
  const labelOf = (sid) => sentenceById.get(sid)?.dataset.label || sid;
  const ID = /^[^\s/]{1,200}$/;  // kinds/base.py: ids go into URLs and whitespace-separated formats
  const MAX_TEXT = 1000;

  let factoids = [];      // [{id, text}] in inventory order
  let marks = new Map();  // sentence id -> Set of factoid ids
  let focusId = sentences.length ? sentences[0].dataset.id : null;
  let query = "";
  let choice = 0;         // the match Enter in the search box acts on
  let pending = null;     // {action, first?}: e/s/m/d waiting for a factoid number or click
  let digits = "";
  let digitTimer = null;
  let dialogSubmit = null;
  let menuFor = null;     // the factoid whose action menu is open
  let lastSent = null;

  // -- state ---------------------------------------------------------------

  function load(saved) {
    factoids = [];
    marks = new Map();
    const known = new Set();
    (saved.factoids || []).forEach((f) => {
      if (f && typeof f.id === "string" && !known.has(f.id)) {
        known.add(f.id);
        factoids.push({ id: f.id, text: String(f.text ?? "") });
      }
    });
    Object.entries(saved.marks || {}).forEach(([sid, found]) => {
      if (!sentenceById.has(sid) || !Array.isArray(found)) return;
      const kept = found.filter((fid) => known.has(fid));
      if (kept.length) marks.set(sid, new Set(kept));
    });
  }

  const factoidById = (fid) => factoids.find((f) => f.id === fid) || null;
  const marksOf = (sid) => marks.get(sid) || new Set();
  const isMarked = (sid, fid) => marksOf(sid).has(fid);

  function setMark(sid, fid, on) {
    const set = new Set(marksOf(sid));
    if (on) set.add(fid);
    else set.delete(fid);
    if (set.size) marks.set(sid, set);
    else marks.delete(sid);
  }

  // Every mark of `from` becomes marks of all of `to` (rename, split, merge).
  function replaceInMarks(from, to) {
    marks.forEach((set, sid) => {
      if (!set.has(from)) return;
      set.delete(from);
      to.forEach((fid) => set.add(fid));
      if (!set.size) marks.delete(sid);
    });
  }

  function payload() {
    const order = factoids.map((f) => f.id);
    const out = {};
    sentences.forEach((el) => {
      const set = marks.get(el.dataset.id);
      if (set && set.size) out[el.dataset.id] = order.filter((fid) => set.has(fid));
    });
    return { factoids: factoids.map((f) => ({ id: f.id, text: f.text })), marks: out };
  }

  function changed() {
    render();
    const next = payload();
    const text = JSON.stringify(next);
    if (text !== lastSent) {
      lastSent = text;
      judging.edited(next);
    }
  }

  function nextFreeId() {
    let highest = 0;
    factoids.forEach((f) => {
      const match = /^F(\d+)/.exec(f.id);
      if (match) highest = Math.max(highest, Number(match[1]));
    });
    return `F${highest + 1}`;
  }

  // -- the list as filtered ---------------------------------------------------

  // Every word must occur in the id or the text; an exact id comes first so
  // "/F3 Enter" finds F3 rather than F13 or a text mentioning it.
  function filtered() {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return factoids;
    const found = factoids.filter((f) => {
      const haystack = `${f.id} ${f.text}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
    const exact = found.filter((f) => f.id.toLowerCase() === query.trim().toLowerCase());
    return exact.concat(found.filter((f) => !exact.includes(f)));
  }

  // -- rendering -------------------------------------------------------------

  function render() {
    const uses = new Map();
    marks.forEach((set) => set.forEach((fid) => uses.set(fid, (uses.get(fid) || 0) + 1)));
    const textOf = new Map(factoids.map((f) => [f.id, f.text]));
    const order = factoids.map((f) => f.id);

    sentences.forEach((el) => {
      const sid = el.dataset.id;
      const focused = sid === focusId;
      el.classList.toggle("focused", focused);
      el.tabIndex = focused ? 0 : -1;
      const set = marksOf(sid);
      el.classList.toggle("is-marked", set.size > 0);
      el.classList.toggle("has-discrepancy", openDiscrepancyAt(sid));
      el.querySelector(".chips").replaceChildren(...order.filter((fid) => set.has(fid)).map((fid) => {
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.textContent = fid;
        chip.title = `${fid}: ${textOf.get(fid)}`;
        return chip;
      }));
    });

    const shown = filtered();
    choice = Math.max(0, Math.min(choice, shown.length - 1));
    const searching = document.activeElement === search || query.trim() !== "";
    list.classList.toggle("picking", Boolean(pending));
    list.replaceChildren(...shown.map((f, index) => {
      const row = rowTemplate.content.firstElementChild.cloneNode(true);
      const on = focusId !== null && isMarked(focusId, f.id);
      const count = uses.get(f.id) || 0;
      row.dataset.id = f.id;
      row.classList.toggle("on", on);
      row.classList.toggle("chosen", searching && index === choice);
      row.classList.toggle("picked", Boolean(pending && pending.first === f));
      const toggle = row.querySelector(".factoid-toggle");
      toggle.setAttribute("aria-pressed", String(on));
      const number = factoids.indexOf(f) + 1;
      row.dataset.number = String(number);
      // The name starts with the visible text (id, text, uses), then the state.
      toggle.setAttribute("aria-label", `${number}: ${f.id} ${f.text} ${count} sentence${count === 1 ? "" : "s"}; ${on ? "marked" : "not marked"} on ${labelOf(focusId)}`);
      row.querySelector(".factoid-number").textContent = String(number);
      row.querySelector(".factoid-id").textContent = f.id;
      row.querySelector(".factoid-text").textContent = f.text;
      const usesEl = row.querySelector(".factoid-uses");
      usesEl.textContent = String(count);
      usesEl.title = `marked on ${count} sentence${count === 1 ? "" : "s"}`;
      const menuButton = row.querySelector(".factoid-menu-button");
      menuButton.setAttribute("aria-label", `Actions for ${f.id}`);
      menuButton.setAttribute("aria-expanded", String(menuFor === f.id));
      row.querySelector(".factoid-tools").hidden = menuFor !== f.id;
      return row;
    }));

    const chosenRow = list.querySelector(".factoid.chosen");
    if (chosenRow && document.activeElement === search) chosenRow.scrollIntoView({ block: "nearest" });
    noFactoids.hidden = factoids.length > 0;
    noMatches.hidden = factoids.length === 0 || shown.length > 0;
    countLine.textContent = query.trim() ? `${shown.length} of ${factoids.length}` : `(${factoids.length})`;
    pickPrompt.hidden = !pending;
    pickPrompt.textContent = pending ? promptFor(pending) : "";
    renderDiscrepancies();

    if (!sayTimer) statusLine.textContent = summaryLine();
    submitButton.disabled = !editable || factoids.length === 0;
    newButton.disabled = !editable;
  }

  function summaryLine() {
    const marked = sentences.filter((el) => marksOf(el.dataset.id).size > 0).length;
    return `${factoids.length} factoid${factoids.length === 1 ? "" : "s"}; ${marked} of ${sentences.length} sentences have factoids marked.` +
      (factoids.length === 0 ? " A submission needs at least one factoid." : "");
  }

  let sayTimer = null;
  function say(text) {
    statusLine.textContent = text;
    clearTimeout(sayTimer);
    sayTimer = setTimeout(() => { sayTimer = null; render(); }, 4000);
  }

  // -- focus -----------------------------------------------------------------

  function focusSentence(options = {}) {
    const el = sentenceById.get(focusId);
    if (el) el.focus(options);
  }

  function focusOn(sid, options = {}) {
    if (!sentenceById.has(sid)) return;
    focusId = sid;
    render();
    focusSentence(options);
  }

  function step(delta) {
    if (!sentences.length) return;
    const index = sentences.indexOf(sentenceById.get(focusId));
    focusOn(sentences[Math.min(sentences.length - 1, Math.max(0, index + delta))].dataset.id);
  }

  // -- marking ---------------------------------------------------------------

  function toggle(fid) {
    if (!editable || focusId === null) return;
    const on = !isMarked(focusId, fid);
    setMark(focusId, fid, on);
    say(`${fid} ${on ? "marked on" : "taken off"} ${labelOf(focusId)}.`);
    changed();
  }

  // A factoid chosen by number, search or click: toggled, or handed to the
  // action waiting for it. The search has done its job: it clears, so the
  // list shown is the whole inventory again.
  function choose(factoid) {
    if (query) clearSearch();
    if (pending) pick(factoid);
    else toggle(factoid.id);
  }

  // Numbers above 9: the digits typed in quick succession.
  function digit(d) {
    clearTimeout(digitTimer);
    digits += d;
    if (Number(digits) * 10 <= factoids.length) {
      statusLine.textContent = `${digits}…`;
      digitTimer = setTimeout(commitDigits, 700);
    } else {
      commitDigits();
    }
  }

  function commitDigits() {
    clearTimeout(digitTimer);
    if (!digits) return;
    const number = Number(digits);
    digits = "";
    const factoid = factoids[number - 1];
    if (factoid) choose(factoid);
    else say(factoids.length ? `There is no factoid ${number}.` : "No factoids yet: press n to define one.");
  }

  // -- e / s / m / d, then a number (or a click) -----------------------------

  const PROMPTS = {
    edit: "Edit which factoid?",
    split: "Split which factoid?",
    merge: "Merge which two factoids? First the one to keep:",
    delete: "Delete which factoid?",
  };

  function promptFor(p) {
    const question = p.action === "merge" && p.first ? `Merge which factoid into ${p.first.id}?` : PROMPTS[p.action];
    return `${question} Type its number or click it (Esc cancels).`;
  }

  function startPick(action, first = null) {
    if (!editable) return;
    if (!factoids.length) { say("No factoids yet: press n to define one."); return; }
    if (action === "merge" && factoids.length < 2) { say("Merging needs two factoids."); return; }
    pending = { action, first };
    render();
  }

  function cancelPick() {
    pending = null;
    render();
  }

  function pick(factoid) {
    const { action, first } = pending;
    if (action === "merge" && !first) {
      pending.first = factoid;
      render();
      return;
    }
    pending = null;
    render();
    if (action === "edit") openEdit(factoid);
    else if (action === "split") openSplit(factoid);
    else if (action === "delete") openDelete(factoid);
    else if (factoid === first) say("Pick a different factoid to merge.");
    else openMerge(first, factoid);
  }

  // -- the dialog: new, edit, split, merge, delete ----------------------------

  // parts: [{id, text}] shown as id + text fields; taken: ids the parts must
  // not use (the rest of the inventory); apply(parts, extras) does the change.
  function openDialog({ title, intro, ok, parts = [], taken = new Set(), extraPart = null, apply, danger = false, extra = null }) {
    pending = null;
    menuFor = null;
    byId("dialog-title").textContent = title;
    byId("dialog-intro").textContent = intro || "";
    dialogOk.textContent = ok;
    dialogOk.classList.toggle("danger", danger);
    dialogFields.replaceChildren();
    parts.forEach((p) => addPart(p, parts.length));
    if (extra) dialogFields.appendChild(extra);
    addPartButton.hidden = !extraPart;
    addPartButton.onclick = extraPart ? () => {
      const rows = dialogFields.querySelectorAll(".dialog-part");
      const row = addPart(extraPart(currentParts()), rows.length + 1);
      row.querySelector(".part-text").focus();
    } : null;
    dialogError.textContent = "";
    dialogSubmit = () => {
      const values = currentParts();
      const problem = problemWith(values, taken, { final: true });
      if (problem) { showProblem(problem, { focus: true }); return; }
      apply(values);
      dialog.close("done");
    };
    dialogFields.oninput = () => {
      const problem = problemWith(currentParts(), taken, { final: false });
      showProblem(problem);
    };
    dialog.showModal();
    const first = dialogFields.querySelector(".part-text") || dialogOk;
    first.focus();
    if (first.select) first.select();
  }

  function addPart({ id, text }, total) {
    const row = partTemplate.content.firstElementChild.cloneNode(true);
    const index = dialogFields.querySelectorAll(".dialog-part").length + 1;
    const idInput = row.querySelector(".part-id");
    const textInput = row.querySelector(".part-text");
    idInput.value = id;
    textInput.value = text;
    const which = total > 1 ? ` of part ${index}` : "";
    idInput.setAttribute("aria-label", `Id${which}`);
    textInput.setAttribute("aria-label", `Text${which}`);
    if (total > 1) row.dataset.part = String(index);
    const before = dialogFields.querySelector(".dialog-extra");
    dialogFields.insertBefore(row, before);
    return row;
  }

  const currentParts = () => Array.from(dialogFields.querySelectorAll(".dialog-part")).map((row) => ({
    id: row.querySelector(".part-id").value.trim(),
    text: row.querySelector(".part-text").value.trim(),
    row,
  }));

  // Id problems show while typing; an empty text only when it is submitted.
  function problemWith(parts, taken, { final }) {
    const seen = new Set();
    for (const part of parts) {
      const idInput = part.row.querySelector(".part-id");
      if (!ID.test(part.id)) {
        if (final || part.id) return { input: idInput, message: part.id ? `“${part.id}” cannot be an id: no spaces or “/”, at most 200 characters.` : "Give the factoid an id." };
      } else if (taken.has(part.id) || seen.has(part.id)) {
        return { input: idInput, message: `${part.id} is already taken: ids must be unique.` };
      }
      seen.add(part.id);
      const textInput = part.row.querySelector(".part-text");
      if (final && !part.text) return { input: textInput, message: "Give the factoid a short text." };
      if (part.text.length > MAX_TEXT) return { input: textInput, message: `At most ${MAX_TEXT} characters.` };
    }
    return null;
  }

  function showProblem(problem, { focus = false } = {}) {
    dialogFields.querySelectorAll("input").forEach((input) => input.removeAttribute("aria-invalid"));
    dialogError.textContent = problem ? problem.message : "";
    if (!problem) return;
    problem.input.setAttribute("aria-invalid", "true");
    if (focus) problem.input.focus();
  }

  const othersThan = (...excluded) => new Set(factoids.filter((f) => !excluded.includes(f)).map((f) => f.id));

  function openNew(text = "") {
    if (!editable) return;
    let markBox = null;
    let extra = null;
    if (focusId !== null) {
      extra = document.createElement("label");
      extra.className = "dialog-extra";
      markBox = document.createElement("input");
      markBox.type = "checkbox";
      markBox.checked = true;
      extra.append(markBox, ` Mark it on sentence ${labelOf(focusId)}`);
    }
    const target = focusId;
    openDialog({
      title: "New factoid",
      intro: "A short statement of one piece of information; split it later if a summary holds only part of it.",
      ok: "Add",
      parts: [{ id: nextFreeId(), text }],
      taken: othersThan(),
      extra,
      apply: ([part]) => {
        factoids.push({ id: part.id, text: part.text });
        if (markBox && markBox.checked) setMark(target, part.id, true);
        clearSearch();
        say(`${part.id} added${markBox && markBox.checked ? ` and marked on ${labelOf(target)}` : ""}.`);
        changed();
      },
    });
  }

  function openEdit(factoid) {
    openDialog({
      title: `Edit ${factoid.id}`,
      ok: "Save",
      parts: [factoid],
      taken: othersThan(factoid),
      apply: ([part]) => {
        if (part.id !== factoid.id) replaceInMarks(factoid.id, [part.id]);
        factoid.id = part.id;
        factoid.text = part.text;
        say(`${factoid.id} saved.`);
        changed();
      },
    });
  }

  function partIds(base, count, taken) {
    const ids = [];
    for (let k = 1; ids.length < count; k += 1) {
      const id = `${base}.${k}`;
      if (!taken.has(id)) ids.push(id);
    }
    return ids;
  }

  // Section 3: "split a factoid into finer ones when a new summary includes
  // only part of it". Every sentence that had it gets all the parts; the
  // annotator then takes off the parts a sentence does not contain.
  function openSplit(factoid) {
    const taken = othersThan(factoid);
    const uses = sentences.filter((el) => isMarked(el.dataset.id, factoid.id)).length;
    openDialog({
      title: `Split ${factoid.id}`,
      intro: `“${factoid.text}” becomes finer factoids; ${uses ? `the ${uses} sentence${uses === 1 ? "" : "s"} marked with it get${uses === 1 ? "s" : ""} every part (take off the parts a sentence lacks)` : "it is marked on no sentence yet"}. Parts left without a text are dropped, from the third on.`,
      ok: "Split",
      parts: partIds(factoid.id, 2, taken).map((id) => ({ id, text: factoid.text })),
      taken,
      extraPart: (current) => ({ id: partIds(factoid.id, 1, new Set([...taken, ...current.map((p) => p.id)]))[0], text: "" }),
      apply: (parts) => {
        factoids.splice(factoids.indexOf(factoid), 1, ...parts.map((p) => ({ id: p.id, text: p.text })));
        replaceInMarks(factoid.id, parts.map((p) => p.id));
        say(`${factoid.id} split into ${parts.map((p) => p.id).join(", ")}.`);
        changed();
      },
    });
    // The third part onwards may stay empty: drop it rather than refuse.
    const check = dialogSubmit;
    dialogSubmit = () => {
      currentParts().forEach((p, index) => { if (index >= 2 && !p.text) p.row.remove(); });
      check();
    };
  }

  function openMerge(first, second) {
    openDialog({
      title: `Merge ${second.id} into ${first.id}`,
      intro: `${second.id}'s marks move to ${first.id}; ${second.id} disappears.`,
      ok: "Merge",
      parts: [{ id: first.id, text: `${first.text}; ${second.text}` }],
      taken: othersThan(first, second),
      apply: ([part]) => {
        replaceInMarks(second.id, [part.id]);
        if (part.id !== first.id) replaceInMarks(first.id, [part.id]);
        factoids.splice(factoids.indexOf(second), 1);
        first.id = part.id;
        first.text = part.text;
        say(`${second.id} merged into ${first.id}.`);
        changed();
      },
    });
  }

  function openDelete(factoid) {
    const uses = sentences.filter((el) => isMarked(el.dataset.id, factoid.id)).length;
    openDialog({
      title: `Delete ${factoid.id}?`,
      intro: `“${factoid.text}” and its marks on ${uses} sentence${uses === 1 ? "" : "s"} are deleted.`,
      ok: "Delete",
      danger: true,
      apply: () => {
        factoids.splice(factoids.indexOf(factoid), 1);
        replaceInMarks(factoid.id, []);
        say(`${factoid.id} deleted.`);
        changed();
      },
    });
  }

  dialogForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (dialogSubmit) dialogSubmit();
  });
  byId("dialog-cancel").addEventListener("click", () => dialog.close("cancel"));
  dialog.addEventListener("close", () => {
    dialogSubmit = null;
    render();
    focusSentence({ preventScroll: true });
  });

  // -- search ------------------------------------------------------------------

  function clearSearch() {
    query = "";
    search.value = "";
    choice = 0;
  }

  search.addEventListener("input", () => { query = search.value; choice = 0; render(); });
  search.addEventListener("focus", render);
  search.addEventListener("blur", render);
  search.addEventListener("keydown", (event) => {
    const key = event.key;
    if (key === "ArrowDown" || key === "ArrowUp") {
      choice += key === "ArrowDown" ? 1 : -1;
      render();
    } else if (key === "Enter") {
      const factoid = filtered()[choice];
      if (factoid) {
        clearSearch();
        choose(factoid);
        if (!dialog.open) focusSentence();
      } else if (query.trim() && editable && !pending) {
        openNew(query.trim());
      }
    } else if (key === "Escape") {
      focusSentence();  // the filter stays: its numbers work from the sentences
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  });

  // -- Phase 2: discrepancies ----------------------------------------------------

  const discrepancyScript = byId("discrepancies");
  const discrepancies = (discrepancyScript ? JSON.parse(discrepancyScript.textContent) || [] : [])
    .filter((d) => d && sentenceById.has(d.sentence));
  const discrepancyList = byId("discrepancy-list");
  let initialMarks = null;
  let currentDiscrepancy = -1;

  // Whether the annotator has since changed what the item is about; keeping
  // a mark as it is remains a legitimate answer, so nothing is forced.
  function addressed(d) {
    if (d.kind === "you-only" && d.factoid) return !isMarked(d.sentence, d.factoid);
    if (d.kind === "other-only" && d.factoid) return isMarked(d.sentence, d.factoid);
    const before = initialMarks.get(d.sentence) || "";
    return [...marksOf(d.sentence)].sort().join(" ") !== before;
  }

  const openDiscrepancyAt = (sid) => discrepancies.some((d) => d.sentence === sid && !addressed(d));

  function renderDiscrepancies() {
    if (!discrepancyList) return;
    byId("no-discrepancies").hidden = discrepancies.length > 0;
    const open = discrepancies.filter((d) => !addressed(d)).length;
    byId("discrepancy-count").textContent = discrepancies.length ? `(${open} of ${discrepancies.length} open)` : "";
    discrepancyList.replaceChildren(...discrepancies.map((d, index) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "discrepancy";
      button.dataset.index = String(index);
      button.dataset.sentence = d.sentence;
      button.dataset.kind = d.kind;
      if (d.factoid) button.dataset.factoid = d.factoid;
      button.classList.toggle("addressed", addressed(d));
      button.classList.toggle("current", index === currentDiscrepancy);
      const where = document.createElement("span");
      where.className = "discrepancy-where";
      where.textContent = labelOf(d.sentence);
      const kind = document.createElement("span");
      kind.className = `discrepancy-kind ${d.kind}`;
      kind.textContent = d.kind === "you-only" ? "only you" : "only the other(s)";
      const message = document.createElement("span");
      message.className = "discrepancy-message";
      message.textContent = d.message || "";
      const state = document.createElement("span");
      state.className = "discrepancy-state";
      state.textContent = addressed(d) ? "changed" : "";
      button.append(where, kind, message, state);
      li.appendChild(button);
      return li;
    }));
  }

  function goToDiscrepancy(index) {
    const d = discrepancies[index];
    if (!d) return;
    currentDiscrepancy = index;
    focusOn(d.sentence);
    sentenceById.get(d.sentence).scrollIntoView({ block: "center" });
  }

  function nextDiscrepancy() {
    if (!discrepancies.length) return;
    const here = sentences.indexOf(sentenceById.get(focusId));
    const after = discrepancies.findIndex((d, index) => {
      const at = sentences.indexOf(sentenceById.get(d.sentence));
      return at > here || (at === here && index > currentDiscrepancy);
    });
    goToDiscrepancy(after >= 0 ? after : 0);
  }

  if (discrepancyList) {
    discrepancyList.addEventListener("click", (event) => {
      const button = event.target.closest(".discrepancy");
      if (button) goToDiscrepancy(Number(button.dataset.index));
    });
  }

  // -- mouse -----------------------------------------------------------------------

  sentences.forEach((el) => el.addEventListener("click", () => {
    if (focusId !== el.dataset.id) { focusId = el.dataset.id; render(); }
  }));

  list.addEventListener("click", (event) => {
    const row = event.target.closest(".factoid");
    if (!row || !editable) return;
    const factoid = factoidById(row.dataset.id);
    if (!factoid) return;
    const tool = event.target.closest(".tool");
    if (event.target.closest(".factoid-menu-button")) {
      menuFor = menuFor === factoid.id ? null : factoid.id;
      render();
      if (menuFor) list.querySelector(`.factoid[data-id="${CSS.escape(menuFor)}"] .tool`).focus();
      return;
    }
    menuFor = null;
    if (!tool) {
      choose(factoid);
      if (!dialog.open) focusSentence({ preventScroll: true });
    } else if (tool.dataset.action === "edit") openEdit(factoid);
    else if (tool.dataset.action === "split") openSplit(factoid);
    else if (tool.dataset.action === "delete") openDelete(factoid);
    else { startPick("merge", factoid); focusSentence({ preventScroll: true }); }
    render();
  });

  // The action menu closes on a click elsewhere or Esc.
  document.addEventListener("click", (event) => {
    if (menuFor && !event.target.closest(".factoid-tools, .factoid-menu-button")) { menuFor = null; render(); }
  });
  list.addEventListener("keydown", (event) => {
    if (!menuFor || !event.target.closest(".factoid-tools")) return;
    const tools = Array.from(event.target.closest(".factoid-tools").querySelectorAll(".tool"));
    const here = tools.indexOf(event.target);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      tools[(here + (event.key === "ArrowDown" ? 1 : tools.length - 1)) % tools.length].focus();
    } else if (event.key === "Escape" || event.key === "Tab") {
      menuFor = null;
      render();
      focusSentence();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  });

  newButton.addEventListener("click", () => openNew());

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  function summary() {
    if (!factoids.length) return { ready: false, problem: "A submission needs at least one factoid: press n to define one." };
    const marked = sentences.filter((el) => marksOf(el.dataset.id).size > 0).length;
    const used = new Set();
    marks.forEach((set) => set.forEach((fid) => used.add(fid)));
    const unused = factoids.filter((f) => !used.has(f.id)).length;
    return {
      ready: true,
      text: `${plural(factoids.length, "factoid")}, marked on ${marked} of ${sentences.length} sentences` +
        (unused ? `; ${plural(unused, "factoid")} marked on no sentence.` : "."),
    };
  }

  // -- keys ---------------------------------------------------------------------------

  function escape() {
    if (pending) cancelPick();
    else { clearSearch(); render(); }
  }

  const keys = [
    { keys: ["j", "ArrowDown"], does: "next sentence, across the summaries", run: () => step(1) },
    { keys: ["k", "ArrowUp"], does: "previous sentence", run: () => step(-1) },
    {
      keys: ["0-9"],
      does: "mark or unmark that factoid on the focused sentence: its number in the list, the same while searching (type 1 then 2 for 12)",
      run: (event) => digit(event.key),
    },
    {
      keys: ["/"],
      does: "search the factoids; ↓ / ↑ choose, Enter marks or unmarks the chosen one and clears the search, Esc goes back to the sentences (the filter stays until Esc again or a mark)",
      run: () => { search.focus(); search.select(); },
    },
    { keys: ["Escape"], does: "cancel the action waiting for a number, or clear the search", run: escape, when: () => Boolean(pending || query) },
  ];
  if (discrepancies.length) keys.push({ keys: ["g"], does: "go to the next discrepancy", run: nextDiscrepancy });
  keys.push(
    { keys: ["n"], does: "new factoid, marked on the focused sentence", run: () => openNew(), edits: true },
    { keys: ["e"], does: "edit a factoid: then its number (or click it)", run: () => startPick("edit"), edits: true },
    { keys: ["s"], does: "split a factoid into finer ones: then its number", run: () => startPick("split"), edits: true },
    { keys: ["m"], does: "merge: the number of the factoid to keep, then of the one merged into it", run: () => startPick("merge"), edits: true },
    { keys: ["d", "Delete"], does: "delete a factoid: then its number", run: () => startPick("delete"), edits: true },
  );

  load(judgment.payload || {});
  initialMarks = new Map(sentences.map((el) => [el.dataset.id, [...marksOf(el.dataset.id)].sort().join(" ")]));
  lastSent = JSON.stringify(payload());
  const judging = new Concord.JudgePage({
    judgment,
    keys,
    payload,
    load: (from) => {
      pending = null;
      menuFor = null;
      load(from);
      lastSent = JSON.stringify(payload());
      render();
    },
    summary,
    untouched: "No factoid has been defined.",
    say,
  });

  // Before any key of the page: an open action menu closes, and typed
  // digits end at the first key that is not one.
  document.addEventListener("keydown", (event) => {
    if (Concord.Keys.ignored(event)) return;
    if (menuFor) { menuFor = null; render(); }
    if (!/^[0-9]$/.test(event.key)) commitDigits();
  }, { capture: true });

  render();
  focusSentence();
  page.dataset.ready = "true";
});
