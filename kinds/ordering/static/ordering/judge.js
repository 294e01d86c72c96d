// Ordering page: drag and drop (SortableJS) or the keyboard; autosaved drafts.
// The keys, the key help, undo/redo and the confirm step: static/annotate/keys.js.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const list = document.getElementById("items");
  const status = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  const byId = new Map(Array.from(list.children).map((li) => [li.dataset.id, li]));

  let focus = 0;
  let grabbed = false;
  const items = () => Array.from(list.children);
  const order = () => items().map((li) => li.dataset.id);

  function arrange(ids) {
    (ids || []).forEach((id) => byId.has(id) && list.appendChild(byId.get(id)));
  }

  function render() {
    items().forEach((li, index) => {
      li.querySelector(".rank").textContent = String(index + 1);
      li.classList.toggle("focused", index === focus);
      li.classList.toggle("grabbed", grabbed && index === focus);
      li.setAttribute("aria-grabbed", String(grabbed && index === focus));
    });
    status.textContent = grabbed
      ? "Item picked up: move it with the arrow keys, Space to put it down."
      : `${items().length} items. Drag, or focus one and press Space to move it.`;
    submitButton.disabled = judgment.readonly;
  }

  function changed() {
    judging.edited({ order: order() });
    render();
  }

  function step(delta) {
    const all = items();
    const target = Math.min(all.length - 1, Math.max(0, focus + delta));
    if (target === focus) return;
    if (grabbed) {
      if (judgment.readonly) return;
      const moving = all[focus];
      if (delta < 0) list.insertBefore(moving, all[target]);
      else list.insertBefore(moving, all[target].nextSibling);
      focus = target;
      changed();
    } else {
      focus = target;
      render();
    }
    items()[focus].focus();
  }

  function putDown() { grabbed = false; render(); }

  function summary() {
    const texts = items().map((li) => li.querySelector(".text").textContent.trim());
    if (!texts.length) return { ready: true, text: "No items to order." };
    return { ready: true, text: `${texts.length} items in your order: first “${texts[0]}”, last “${texts[texts.length - 1]}”.` };
  }

  arrange(judgment.payload.order);
  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      { keys: ["Enter", "Escape"], does: "with an item picked up: put it down", run: putDown, when: () => grabbed },
      { keys: ["ArrowDown", "j"], does: "focus the next item; with an item picked up, move it down", run: () => step(1) },
      { keys: ["ArrowUp", "k"], does: "focus the previous item; with an item picked up, move it up", run: () => step(-1) },
      { keys: [" "], does: "pick up / put down the focused item", run: () => { grabbed = !grabbed; render(); }, edits: true },
    ],
    payload: () => ({ order: order() }),
    load: (payload) => {
      const id = items()[focus]?.dataset.id;
      arrange(payload.order);
      grabbed = false;
      focus = Math.max(0, order().indexOf(id));
      render();
      items()[focus]?.focus();
    },
    summary,
    untouched: "This is the shuffled starting order: you have not moved any item.",
  });

  if (!judgment.readonly) {
    Sortable.create(list, {
      animation: 120,
      onStart: () => { grabbed = false; },
      onEnd: (event) => { focus = event.newIndex; changed(); },
    });
  }
  items().forEach((li) => li.addEventListener("click", () => { focus = items().indexOf(li); render(); }));

  render();
  if (items().length) items()[0].focus();
});
