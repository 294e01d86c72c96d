// Pair adjudication page: j/k move, y/n judge; Enter asks to confirm, then submits.
// The keys, the key help, undo/redo and the confirm step: static/annotate/keys.js.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const items = Array.from(document.querySelectorAll("#candidates .candidate"));
  const remaining = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  let matches = Object.assign({}, judgment.payload.matches || {});
  let focus = Math.max(0, items.findIndex((li) => !(li.dataset.id in matches)));
  const left = () => items.filter((li) => !(li.dataset.id in matches)).length;

  function render() {
    items.forEach((li, index) => {
      const value = matches[li.dataset.id];
      li.classList.toggle("focused", index === focus);
      li.classList.toggle("is-match", value === true);
      li.classList.toggle("is-nomatch", value === false);
      li.querySelector(".yes").setAttribute("aria-pressed", String(value === true));
      li.querySelector(".no").setAttribute("aria-pressed", String(value === false));
    });
    remaining.textContent = left() ? `${left()} of ${items.length} candidates left to judge.` : `Every candidate is judged: ${judgment.submitHint}`;
    submitButton.disabled = left() > 0 || judgment.readonly;
  }

  function move(step) {
    focus = Math.min(items.length - 1, Math.max(0, focus + step));
    items[focus].focus({ preventScroll: false });
    render();
  }

  function decide(index, value) {
    if (judgment.readonly) return;
    matches[items[index].dataset.id] = value;
    judging.edited({ matches: { ...matches } });
    focus = index;
    render();
  }

  function judgeAndMove(value) {
    decide(focus, value);
    if (focus < items.length - 1) move(1);
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "es"}`;
  function summary() {
    if (left()) return { ready: false, problem: `${items.length - left()} of ${items.length} candidates judged: judge the other ${left()} first.` };
    const yes = items.filter((li) => matches[li.dataset.id] === true).length;
    return { ready: true, text: `${items.length} of ${items.length} candidates judged: ${plural(yes, "match")}, ${items.length - yes} no match.` };
  }

  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      { keys: ["j", "ArrowDown"], does: "next candidate", run: () => move(1) },
      { keys: ["k", "ArrowUp"], does: "previous candidate", run: () => move(-1) },
      { keys: ["y"], does: "match, then on to the next candidate", run: () => judgeAndMove(true), edits: true },
      { keys: ["n"], does: "no match, then on to the next candidate", run: () => judgeAndMove(false), edits: true },
    ],
    payload: () => ({ matches: { ...matches } }),
    load: (payload) => { matches = Object.assign({}, payload.matches || {}); render(); },
    summary,
    untouched: "No candidate has been judged.",
  });

  items.forEach((li, index) => {
    li.querySelectorAll(".choice").forEach((button) =>
      button.addEventListener("click", () => decide(index, button.dataset.value === "true")));
  });

  render();
  if (items.length) items[focus].focus();
});
