// Preference page: one pair of the topic at a time, its outputs as A (left) and B (right),
// never the systems' names. ← A is better, ↓ tie, → B is better, x both bad (where offered):
// each records the verdict, with the sides shown, and moves on to the next pair; j / k move
// between pairs; the reason box (where asked) belongs to the pair shown. The keys, the key
// help, undo/redo and the confirm step: static/annotate/keys.js; saving, offline work and the
// 409 merge: static/annotate/judge.js, as on every judging page.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const outputs = new Map(JSON.parse(document.getElementById("pref-outputs").textContent).map((o) => [o.id, o.text]));
  const pairs = JSON.parse(document.getElementById("pref-pairs").textContent);
  const shown = JSON.parse(document.getElementById("pref-shown").textContent);
  const sideA = document.getElementById("side-a");
  const sideB = document.getElementById("side-b");
  const position = document.getElementById("pair-position");
  const remaining = document.getElementById("remaining");
  const reason = document.getElementById("pref-reason");
  const buttons = Array.from(document.querySelectorAll(".pref-choices .pref-choice"));
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  const WORDS = { left: "A better", right: "B better", tie: "tie", both_bad: "both bad" };
  let verdicts = new Map();
  let focus = 0;

  function read(payload) {
    verdicts = new Map((payload.verdicts || []).map((v) => [v.pair, { ...v }]));
  }

  function sidesOf(pair) {
    const verdict = verdicts.get(pair);
    if (verdict && Number.isInteger(verdict.left) && Number.isInteger(verdict.right)) return [verdict.left, verdict.right];
    const given = shown[pair];
    if (given) return given;
    const [low, high] = pair.split("-").map(Number);
    return [low, high];
  }

  const left = () => pairs.filter((pair) => !verdicts.has(pair)).length;
  const current = () => pairs[focus];
  const payload = () => ({ verdicts: pairs.filter((pair) => verdicts.has(pair)).map((pair) => ({ ...verdicts.get(pair) })) });

  function render() {
    if (!pairs.length) return;
    const pair = current();
    const [a, b] = sidesOf(pair);
    sideA.textContent = outputs.get(a) ?? "";
    sideB.textContent = outputs.get(b) ?? "";
    const verdict = verdicts.get(pair);
    const choice = verdict ? verdict.choice : null;
    buttons.forEach((button) => button.setAttribute("aria-pressed", String(button.dataset.choice === choice)));
    sideA.parentElement.classList.toggle("is-chosen", choice === "left");
    sideB.parentElement.classList.toggle("is-chosen", choice === "right");
    position.textContent = `Pair ${focus + 1} of ${pairs.length}` + (verdict ? `: ${WORDS[choice]}` : "");
    if (reason && document.activeElement !== reason) reason.value = verdict && verdict.reason ? verdict.reason : "";
    if (reason) reason.disabled = judgment.readonly || !verdict;
    remaining.textContent = left() ? `${left()} of ${pairs.length} pairs left to judge.` : `Every pair is judged: ${judgment.submitHint}`;
    submitButton.disabled = left() > 0 || judgment.readonly;
  }

  function show(index) {
    focus = Math.min(pairs.length - 1, Math.max(0, index));
    render();
  }

  function choose(choice) {
    if (judgment.readonly || !pairs.length) return;
    const pair = current();
    const [a, b] = sidesOf(pair);
    const before = verdicts.get(pair);
    const verdict = { pair, left: a, right: b, choice };
    if (before && before.reason) verdict.reason = before.reason;
    verdicts.set(pair, verdict);
    judging.edited(payload());
    const next = pairs.findIndex((p, k) => k > focus && !verdicts.has(p));
    if (next >= 0) show(next);
    else render();
  }

  function summary() {
    if (left()) return { ready: false, problem: `${pairs.length - left()} of ${pairs.length} pairs judged: judge the other ${left()} first.` };
    const counts = new Map();
    pairs.forEach((pair) => {
      const word = WORDS[verdicts.get(pair).choice];
      counts.set(word, (counts.get(word) || 0) + 1);
    });
    return { ready: true, text: `${pairs.length} of ${pairs.length} pairs judged: ${Array.from(counts, ([word, n]) => `${n} ${word}`).join(", ")}.` };
  }

  read(judgment.payload);  // before the page is built: its undo starts from this payload
  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      { keys: ["ArrowLeft"], does: "A (left) is better, then on to the next pair", run: () => choose("left"), edits: true },
      { keys: ["ArrowRight"], does: "B (right) is better, then on to the next pair", run: () => choose("right"), edits: true },
      { keys: ["ArrowDown"], does: "a tie, then on to the next pair", run: () => choose("tie"), edits: true },
      ...(buttons.some((b) => b.dataset.choice === "both_bad")
        ? [{ keys: ["x"], does: "both are bad, then on to the next pair", run: () => choose("both_bad"), edits: true }]
        : []),
      { keys: ["j"], does: "next pair", run: () => show(focus + 1) },
      { keys: ["k"], does: "previous pair", run: () => show(focus - 1) },
    ],
    payload,
    load: (given) => { read(given); render(); },
    summary,
    untouched: "No pair has been judged.",
  });

  buttons.forEach((button) => button.addEventListener("click", () => choose(button.dataset.choice)));
  document.getElementById("pref-previous").addEventListener("click", () => show(focus - 1));
  document.getElementById("pref-next").addEventListener("click", () => show(focus + 1));
  if (reason) {
    reason.addEventListener("input", () => {
      const verdict = verdicts.get(current());
      if (!verdict || judgment.readonly) return;
      const text = reason.value;
      if (text.trim()) verdict.reason = text;
      else delete verdict.reason;
      judging.edited(payload());
    });
  }

  show(Math.max(0, pairs.findIndex((pair) => !verdicts.has(pair))));
});
