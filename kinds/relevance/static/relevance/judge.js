// Graded relevance page: one document at a time beside the query; number keys
// grade (and move on), j/k move, Enter asks to confirm, then submits. Saving, offline work and the
// 409 merge are static/annotate/judge.js's, as on every judging page.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const docs = Array.from(document.querySelectorAll("#documents .relevance-doc"));
  const buttons = Array.from(document.querySelectorAll(".relevance-grades .relevance-grade"));
  const dots = Array.from(document.querySelectorAll(".relevance-strip .relevance-dot"));
  const position = document.getElementById("doc-position");
  const remaining = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  let grades = Object.assign({}, judgment.payload.grades || {});
  let focus = Math.max(0, docs.findIndex((li) => !(li.dataset.id in grades)));

  function render() {
    docs.forEach((li, index) => {
      li.hidden = index !== focus;
      li.classList.toggle("is-graded", li.dataset.id in grades);
    });
    dots.forEach((dot, index) => {
      dot.classList.toggle("focused", index === focus);
      dot.classList.toggle("is-graded", docs[index].dataset.id in grades);
      dot.setAttribute("aria-current", String(index === focus));
    });
    const current = docs.length ? grades[docs[focus].dataset.id] : undefined;
    buttons.forEach((button) => button.setAttribute("aria-pressed", String(Number(button.dataset.grade) === current)));
    if (docs.length) position.textContent = `Document ${focus + 1} of ${docs.length}`;
    const left = docs.filter((li) => !(li.dataset.id in grades)).length;
    remaining.textContent = left ? `${left} of ${docs.length} documents left to grade.` : `Every document is graded: ${judgment.submitHint}`;
    submitButton.disabled = left > 0 || judgment.readonly;
  }

  function show(index) {
    focus = Math.min(docs.length - 1, Math.max(0, index));
    render();
    if (docs.length) docs[focus].focus({ preventScroll: false });
  }

  function grade(value) {
    if (!docs.length || value >= buttons.length || judgment.readonly) return;
    grades[docs[focus].dataset.id] = value;
    judging.edited({ grades: { ...grades } });
    if (focus < docs.length - 1) show(focus + 1);
    else render();
  }

  const labels = buttons.map((button) => button.textContent.replace(/^\s*\d+\s*/, "").trim());
  function summary() {
    const left = docs.filter((li) => !(li.dataset.id in grades)).length;
    if (left) return { ready: false, problem: `${docs.length - left} of ${docs.length} documents graded: grade the other ${left} first.` };
    const counts = labels.map((label, value) => [label, docs.filter((li) => grades[li.dataset.id] === value).length]);
    return {
      ready: true,
      text: `${docs.length} of ${docs.length} documents graded: ${counts.map(([label, n]) => `${n} ${label}`).join(", ")}.`,
    };
  }

  const last = Math.min(9, buttons.length - 1);
  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      {
        keys: [`0-${last}`],
        does: `grade the document (${labels.map((label, value) => `${value} ${label}`).join(", ")}), then on to the next one`,
        run: (event) => grade(Number(event.key)),
        edits: true,
      },
      { keys: ["j", "ArrowDown", "ArrowRight"], does: "next document", run: () => show(focus + 1) },
      { keys: ["k", "ArrowUp", "ArrowLeft"], does: "previous document", run: () => show(focus - 1) },
    ],
    payload: () => ({ grades: { ...grades } }),
    load: (payload) => { grades = Object.assign({}, payload.grades || {}); render(); },
    summary,
    untouched: "No document has been graded.",
  });

  buttons.forEach((button) => button.addEventListener("click", () => grade(Number(button.dataset.grade))));
  dots.forEach((dot) => dot.addEventListener("click", () => show(Number(dot.dataset.index))));

  Object.assign(grades, judgment.payload.grades || {});
  show(focus);
});
