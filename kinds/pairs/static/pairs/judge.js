// Pair adjudication page: j/k move, y/n judge, Enter submits.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const items = Array.from(document.querySelectorAll("#candidates .candidate"));
  const remaining = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  const matches = Object.assign({}, judgment.payload.matches || {});
  let focus = Math.max(0, items.findIndex((li) => !(li.dataset.id in matches)));

  function render() {
    items.forEach((li, index) => {
      const value = matches[li.dataset.id];
      li.classList.toggle("focused", index === focus);
      li.classList.toggle("is-match", value === true);
      li.classList.toggle("is-nomatch", value === false);
      li.querySelector(".yes").setAttribute("aria-pressed", String(value === true));
      li.querySelector(".no").setAttribute("aria-pressed", String(value === false));
    });
    const left = items.filter((li) => !(li.dataset.id in matches)).length;
    remaining.textContent = left ? `${left} of ${items.length} candidates left to judge.` : "Every candidate is judged: press Enter to submit.";
    submitButton.disabled = left > 0 || judgment.readonly;
  }

  function move(step) {
    focus = Math.min(items.length - 1, Math.max(0, focus + step));
    items[focus].focus({ preventScroll: false });
    render();
  }

  function decide(index, value) {
    matches[items[index].dataset.id] = value;
    judgment.changed({ matches: { ...matches } });
    focus = index;
    render();
  }

  async function submit() {
    if (submitButton.disabled) return;
    if (await judgment.submit({ matches: { ...matches } })) judgment.goNext();
  }

  items.forEach((li, index) => {
    li.querySelectorAll(".choice").forEach((button) =>
      button.addEventListener("click", () => decide(index, button.dataset.value === "true")));
  });
  submitButton.addEventListener("click", submit);

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    const key = event.key;
    if (key === "j" || key === "ArrowDown") { move(1); event.preventDefault(); }
    else if (key === "k" || key === "ArrowUp") { move(-1); event.preventDefault(); }
    else if (key === "y" || key === "n") {
      decide(focus, key === "y");
      if (focus < items.length - 1) move(1);
      event.preventDefault();
    } else if (key === "Enter") { submit(); event.preventDefault(); }
  });

  Object.assign(matches, judgment.payload.matches || {});
  render();
  if (items.length) items[focus].focus();
});
