// Nugget pyramids page. Part 1: label each nugget vital or okay from the
// target and the nugget list alone ("snap judgments", Lin & Demner-Fushman
// section 5): v / o, then on to the next unlabelled nugget. Part 2: for each
// response (run names hidden), tick the nuggets it contains and mark it
// done; only responses marked done go into the payload, so an empty list
// always means "contains none", never "not looked at yet". The keys, the key
// help, undo/redo and the confirm step: static/annotate/keys.js.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const page = document.getElementById("nuggets");
  const submitButton = document.getElementById("submit-judgment");
  const remaining = document.getElementById("remaining");
  const judgment = new Concord.Judgment(root);
  const editable = !judgment.readonly;

  const labelRows = Array.from(document.querySelectorAll("#label-list .nugget"));
  const matchRows = Array.from(document.querySelectorAll("#match-list .match-nugget"));
  const responses = Array.from(document.querySelectorAll("#matching .response"));
  const chips = Array.from(document.querySelectorAll("#response-chips .response-chip"));
  const nuggetIds = labelRows.map((li) => li.dataset.id);
  const responseIds = responses.map((el) => el.dataset.id);

  const tasks = new Set(page.dataset.tasks.split(",").map((t) => t.trim()));
  const doLabels = tasks.has("labels");
  const doMatches = tasks.has("matches") && responses.length > 0;

  const saved = judgment.payload || {};
  let labels = {};
  let matches = {};  // response id -> Set of nugget ids, for responses marked done
  function read(from) {
    labels = {};
    matches = {};
    Object.entries(from.labels || {}).forEach(([id, value]) => {
      if (nuggetIds.includes(id) && (value === "vital" || value === "okay")) labels[id] = value;
    });
    Object.entries(from.matches || {}).forEach(([id, found]) => {
      if (responseIds.includes(id) && Array.isArray(found)) matches[id] = new Set(found.filter((n) => nuggetIds.includes(n)));
    });
  }
  read(saved);
  const ticks = {};  // response id -> Set: ticked in a response not yet marked done (kept in the page only)

  const labelled = () => nuggetIds.filter((id) => id in labels).length;
  const judged = () => responseIds.filter((id) => id in matches).length;
  const labelsDone = () => !doLabels || labelled() === nuggetIds.length;
  const matchesDone = () => !doMatches || judged() === responseIds.length;
  const matchingLocked = () => doLabels && !labelsDone();

  let part = doLabels && !(labelsDone() && doMatches && !matchesDone()) ? "labels" : "matches";
  let labelFocus = Math.max(0, nuggetIds.findIndex((id) => !(id in labels)));
  let current = Math.max(0, responseIds.findIndex((id) => !(id in matches)));
  let matchFocus = 0;

  function payload() {
    const outLabels = {};
    nuggetIds.forEach((id) => { if (id in labels) outLabels[id] = labels[id]; });
    const outMatches = {};
    responseIds.forEach((id) => { if (id in matches) outMatches[id] = nuggetIds.filter((n) => matches[id].has(n)); });
    return { labels: outLabels, matches: outMatches };
  }

  const save = () => judging.edited(payload());

  // What response `current` contains as shown: its saved set once done, else the ticks so far.
  function shownSet() {
    const id = responseIds[current];
    if (id in matches) return matches[id];
    if (!(id in ticks)) ticks[id] = new Set();
    return ticks[id];
  }

  function render() {
    document.getElementById("parts").hidden = !(doLabels && doMatches);
    document.querySelectorAll(".part-tab").forEach((tab) => tab.setAttribute("aria-selected", String(tab.dataset.part === part)));
    document.querySelector('[data-count="labels"]').textContent = `${labelled()}/${nuggetIds.length}`;
    document.querySelector('[data-count="matches"]').textContent = `${judged()}/${responseIds.length}`;
    document.getElementById("labelling").hidden = !(doLabels && part === "labels");
    document.getElementById("matching").hidden = !(doMatches && part === "matches");
    if (doLabels) renderLabels();
    if (doMatches) renderMatching();

    const left = [];
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    if (!labelsDone()) left.push(`${plural(nuggetIds.length - labelled(), "nugget")} to label`);
    if (!matchesDone()) left.push(`${plural(responseIds.length - judged(), "response")} to mark done`);
    if (left.length) remaining.textContent = `Still to do: ${left.join(", ")}.`;
    else if (!doLabels && !doMatches) remaining.textContent = `This question has no responses to judge: ${judgment.submitHint}`;
    else remaining.textContent = `Everything is done: ${judgment.submitHint}`;
    submitButton.disabled = left.length > 0 || !editable;
  }

  function renderLabels() {
    labelRows.forEach((li, index) => {
      const value = labels[li.dataset.id];
      li.classList.toggle("focused", part === "labels" && index === labelFocus);
      li.classList.toggle("is-vital", value === "vital");
      li.classList.toggle("is-okay", value === "okay");
      li.querySelector(".vital").setAttribute("aria-pressed", String(value === "vital"));
      li.querySelector(".okay").setAttribute("aria-pressed", String(value === "okay"));
    });
    document.getElementById("label-progress").textContent = `${labelled()} of ${nuggetIds.length} nuggets labelled`;
  }

  function renderMatching() {
    const locked = matchingLocked();
    document.getElementById("matching-locked").hidden = !locked;
    document.getElementById("matching-body").hidden = locked;
    const id = responseIds[current];
    const done = id in matches;
    const found = shownSet();
    responses.forEach((el, index) => { el.hidden = index !== current; });
    chips.forEach((chip, index) => {
      const chipId = responseIds[index];
      const isDone = chipId in matches;
      chip.classList.toggle("current", index === current);
      chip.classList.toggle("done", isDone);
      chip.classList.toggle("started", !isDone && ticks[chipId] !== undefined && ticks[chipId].size > 0);
      chip.setAttribute("aria-current", String(index === current));
      chip.setAttribute("aria-label", `Response ${index + 1}: ${isDone ? "done" : "not done yet"}`);
    });
    matchRows.forEach((li, index) => {
      li.classList.toggle("focused", part === "matches" && index === matchFocus);
      li.setAttribute("aria-checked", String(found.has(li.dataset.id)));
    });
    document.getElementById("response-heading").textContent = `Response ${current + 1} of ${responseIds.length}`;
    const state = document.getElementById("response-state");
    state.textContent = done ? `done: ${found.size} nugget${found.size === 1 ? "" : "s"}` : "not done yet";
    state.classList.toggle("done", done);
    document.getElementById("response-done").classList.toggle("is-done", done);
    document.getElementById("previous-response").disabled = current === 0;
    document.getElementById("next-response").disabled = current === responseIds.length - 1;
    document.getElementById("match-progress").textContent = `${judged()} of ${responseIds.length} responses done`;
  }

  function focusRow(rows, index) {
    if (!rows[index]) return;
    rows[index].focus({ preventScroll: true });
    rows[index].scrollIntoView({ block: "nearest" });
  }

  function showPart(next) {
    if (next === part || (next === "labels" && !doLabels) || (next === "matches" && !doMatches)) return;
    part = next;
    render();
    if (part === "labels") focusRow(labelRows, labelFocus);
    else if (!matchingLocked()) focusRow(matchRows, matchFocus);
  }

  // -- part 1: labels ----------------------------------------------------

  function moveLabel(step) {
    labelFocus = Math.min(labelRows.length - 1, Math.max(0, labelFocus + step));
    render();
    focusRow(labelRows, labelFocus);
  }

  // The next nugget without a label after `index`, wrapping round; when every
  // nugget has one (corrections), simply the next nugget.
  function nextUnlabelled(index) {
    const order = [...nuggetIds.keys()].slice(index + 1).concat([...nuggetIds.keys()].slice(0, index));
    const free = order.find((i) => !(nuggetIds[i] in labels));
    return free !== undefined ? free : Math.min(index + 1, nuggetIds.length - 1);
  }

  function label(index, value) {
    if (!editable) return;
    const wasDone = labelsDone();
    labels[nuggetIds[index]] = value;
    save();
    labelFocus = nextUnlabelled(index);
    if (!wasDone && labelsDone() && doMatches && !matchesDone()) {
      // Part 1 just finished: on to part 2.
      part = "matches";
      render();
      focusRow(matchRows, matchFocus);
      return;
    }
    render();
    focusRow(labelRows, labelFocus);
  }

  // -- part 2: matches ---------------------------------------------------

  function moveMatch(step) {
    matchFocus = Math.min(matchRows.length - 1, Math.max(0, matchFocus + step));
    render();
    focusRow(matchRows, matchFocus);
  }

  function goToResponse(index) {
    if (index < 0 || index >= responseIds.length) return;
    current = index;
    matchFocus = 0;
    render();
    document.querySelector(".response-column").scrollTop = 0;
    focusRow(matchRows, matchFocus);
  }

  function toggle(index) {
    if (!editable) return;
    const id = responseIds[current];
    const found = shownSet();
    const nugget = nuggetIds[index];
    if (found.has(nugget)) found.delete(nugget);
    else found.add(nugget);
    matchFocus = index;
    if (id in matches) save();  // a response not yet done is saved when it is marked done
    render();
    focusRow(matchRows, matchFocus);
  }

  function markDone() {
    if (!editable) return;
    const id = responseIds[current];
    if (!(id in matches)) {
      matches[id] = shownSet();
      delete ticks[id];
      save();
    }
    const order = [...responseIds.keys()].slice(current + 1).concat([...responseIds.keys()].slice(0, current));
    const next = order.find((i) => !(responseIds[i] in matches));
    if (next !== undefined) goToResponse(next);
    else render();
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  function summary() {
    const left = [];
    if (!labelsDone()) left.push(`${plural(nuggetIds.length - labelled(), "nugget")} to label`);
    if (!matchesDone()) left.push(`${plural(responseIds.length - judged(), "response")} to mark done`);
    if (left.length) return { ready: false, problem: `Still to do: ${left.join(", ")}.` };
    const parts = [];
    if (doLabels) {
      const vital = nuggetIds.filter((id) => labels[id] === "vital").length;
      parts.push(`${plural(nuggetIds.length, "nugget")} labelled (${vital} vital, ${nuggetIds.length - vital} okay)`);
    }
    if (doMatches) {
      const found = responseIds.reduce((n, id) => n + matches[id].size, 0);
      parts.push(`${responseIds.length} of ${responseIds.length} responses done (${plural(found, "nugget")} found in them)`);
    }
    return { ready: true, text: parts.length ? `${parts.join("; ")}.` : "This question has nothing to judge." };
  }

  // -- mouse ---------------------------------------------------------------

  labelRows.forEach((li, index) => {
    li.addEventListener("click", (event) => {
      const button = event.target.closest(".choice");
      if (button) label(index, button.dataset.value);
      else { labelFocus = index; render(); focusRow(labelRows, labelFocus); }
    });
  });
  matchRows.forEach((li, index) => li.addEventListener("click", () => toggle(index)));
  chips.forEach((chip, index) => chip.addEventListener("click", () => goToResponse(index)));
  document.querySelectorAll(".part-tab").forEach((tab) => tab.addEventListener("click", () => showPart(tab.dataset.part)));
  document.getElementById("previous-response").addEventListener("click", () => goToResponse(current - 1));
  document.getElementById("next-response").addEventListener("click", () => goToResponse(current + 1));
  document.getElementById("response-done").addEventListener("click", markDone);

  // -- keyboard --------------------------------------------------------------

  const inLabels = () => part === "labels";
  const inMatches = () => part === "matches" && doMatches && !matchingLocked();
  const keys = [];
  if (doLabels && doMatches) {
    keys.push(
      { keys: ["l"], does: "part 1 (vital or okay)", run: () => showPart("labels") },
      { keys: ["m"], does: "part 2 (nuggets in responses)", run: () => showPart("matches") },
    );
  }
  keys.push(
    { keys: ["j", "ArrowDown"], does: "next nugget", run: () => (inLabels() ? moveLabel(1) : moveMatch(1)), when: () => inLabels() || inMatches() },
    { keys: ["k", "ArrowUp"], does: "previous nugget", run: () => (inLabels() ? moveLabel(-1) : moveMatch(-1)), when: () => inLabels() || inMatches() },
  );
  if (doLabels) {
    keys.push(
      { keys: ["v"], does: "vital, then on to the next unlabelled nugget", run: () => label(labelFocus, "vital"), when: inLabels, edits: true },
      { keys: ["o"], does: "okay, then on to the next unlabelled nugget", run: () => label(labelFocus, "okay"), when: inLabels, edits: true },
    );
  }
  if (doMatches) {
    keys.push(
      { keys: [" ", "x"], does: "tick or untick: the response contains the nugget", run: () => toggle(matchFocus), when: inMatches, edits: true },
      { keys: ["d"], does: "done with this response (nothing ticked: it contains none), on to the next one", run: markDone, when: inMatches, edits: true },
      { keys: ["[", "PageUp"], does: "previous response", run: () => goToResponse(current - 1), when: inMatches },
      { keys: ["]", "PageDown"], does: "next response", run: () => goToResponse(current + 1), when: inMatches },
    );
  }

  const judging = new Concord.JudgePage({
    judgment,
    keys,
    payload,
    load: (from) => { read(from); render(); },
    summary,
    untouched: "No nugget is labelled and no response is marked done.",
  });

  render();
  if (part === "labels") focusRow(labelRows, labelFocus);
  else if (doMatches && !matchingLocked()) focusRow(matchRows, matchFocus);
});
