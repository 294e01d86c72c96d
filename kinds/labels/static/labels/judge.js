// Labels page: every item of the topic in a list, one focused; a label's key (1-9, then
// letters; a numeric scale's own numbers) labels it and moves on, 0 (or x) is "can't tell"
// where the campaign allows it, j/k or the arrows move, Enter asks to confirm, then submits.
// The keys, the key help, undo/redo and the confirm step: static/annotate/keys.js; saving,
// offline work and the 409 merge: static/annotate/judge.js, as on every judging page.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const items = Array.from(document.querySelectorAll("#items .labels-item"));
  const buttons = Array.from(document.querySelectorAll(".labels-choices .labels-choice"));
  const values = JSON.parse(document.getElementById("scale-values").textContent);
  const position = document.getElementById("item-position");
  const remaining = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  let labels = Object.assign({}, judgment.payload.labels || {});
  let focus = Math.max(0, items.findIndex((li) => !(li.dataset.id in labels)));
  const left = () => items.filter((li) => !(li.dataset.id in labels)).length;
  const shown = (value) => (value === null ? "can’t tell" : String(value));
  const indexOf = (value) => (value === null ? -1 : values.findIndex((v) => v === value));

  function render() {
    items.forEach((li, index) => {
      const id = li.dataset.id;
      li.classList.toggle("focused", index === focus);
      li.classList.toggle("is-labelled", id in labels);
      li.querySelector(".labels-chosen").textContent = id in labels ? shown(labels[id]) : "";
    });
    const current = items.length && items[focus].dataset.id in labels ? indexOf(labels[items[focus].dataset.id]) : null;
    buttons.forEach((button) => button.setAttribute("aria-pressed", String(Number(button.dataset.index) === current)));
    if (items.length) position.textContent = `Item ${focus + 1} of ${items.length}`;
    remaining.textContent = left() ? `${left()} of ${items.length} items left to label.` : `Every item is labelled: ${judgment.submitHint}`;
    submitButton.disabled = left() > 0 || judgment.readonly;
  }

  function show(index) {
    focus = Math.min(items.length - 1, Math.max(0, index));
    render();
    if (items.length) items[focus].focus({ preventScroll: false });
  }

  function label(index, choice) {
    if (judgment.readonly || !items.length) return;
    labels[items[index].dataset.id] = choice < 0 ? null : values[choice];
    judging.edited({ labels: { ...labels } });
    focus = index;
    if (focus < items.length - 1) show(focus + 1);
    else render();
  }

  function summary() {
    if (left()) return { ready: false, problem: `${items.length - left()} of ${items.length} items labelled: label the other ${left()} first.` };
    const counts = new Map();
    items.forEach((li) => {
      const text = shown(labels[li.dataset.id]);
      counts.set(text, (counts.get(text) || 0) + 1);
    });
    return {
      ready: true,
      text: `${items.length} of ${items.length} items labelled: ${Array.from(counts, ([text, n]) => `${n} ${text}`).join(", ")}.`,
    };
  }

  const keyed = buttons.filter((button) => button.dataset.key);
  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      ...keyed.map((button) => ({
        keys: [button.dataset.key],
        does: `label the item ${button.textContent.replace(/^\s*\S+\s*/, "").trim()}, then on to the next one`,
        run: () => label(focus, Number(button.dataset.index)),
        edits: true,
      })),
      { keys: ["j", "ArrowDown", "ArrowRight"], does: "next item", run: () => show(focus + 1) },
      { keys: ["k", "ArrowUp", "ArrowLeft"], does: "previous item", run: () => show(focus - 1) },
    ],
    payload: () => ({ labels: { ...labels } }),
    load: (payload) => { labels = Object.assign({}, payload.labels || {}); render(); },
    summary,
    untouched: "No item has been labelled.",
  });

  buttons.forEach((button) => button.addEventListener("click", () => label(focus, Number(button.dataset.index))));
  items.forEach((li, index) => li.addEventListener("click", () => show(index)));

  show(focus);
});
