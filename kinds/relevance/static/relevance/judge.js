// Graded relevance page: one document at a time beside the query; number keys
// grade (and move on), j/k move, Enter submits. Saving, offline work and the
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
  const grades = Object.assign({}, judgment.payload.grades || {});
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
    remaining.textContent = left ? `${left} of ${docs.length} documents left to grade.` : "Every document is graded: press Enter to submit.";
    submitButton.disabled = left > 0 || judgment.readonly;
  }

  function show(index) {
    focus = Math.min(docs.length - 1, Math.max(0, index));
    render();
    if (docs.length) docs[focus].focus({ preventScroll: false });
  }

  function grade(value) {
    if (!docs.length || value >= buttons.length) return;
    grades[docs[focus].dataset.id] = value;
    judgment.changed({ grades: { ...grades } });
    if (focus < docs.length - 1) show(focus + 1);
    else render();
  }

  async function submit() {
    if (submitButton.disabled) return;
    if (await judgment.submit({ grades: { ...grades } })) judgment.goNext();
  }

  buttons.forEach((button) => button.addEventListener("click", () => grade(Number(button.dataset.grade))));
  dots.forEach((dot) => dot.addEventListener("click", () => show(Number(dot.dataset.index))));
  submitButton.addEventListener("click", submit);

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    const key = event.key;
    if (key === "j" || key === "ArrowDown" || key === "ArrowRight") { show(focus + 1); event.preventDefault(); }
    else if (key === "k" || key === "ArrowUp" || key === "ArrowLeft") { show(focus - 1); event.preventDefault(); }
    else if (/^[0-9]$/.test(key)) { grade(Number(key)); event.preventDefault(); }
    else if (key === "Enter") { submit(); event.preventDefault(); }
  });

  Object.assign(grades, judgment.payload.grades || {});
  show(focus);
});
