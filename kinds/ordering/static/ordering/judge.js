// Ordering page: drag and drop (SortableJS) or the keyboard; autosaved drafts.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const list = document.getElementById("items");
  const status = document.getElementById("remaining");
  const submitButton = document.getElementById("submit-judgment");
  const judgment = new Concord.Judgment(root);
  const byId = new Map(Array.from(list.children).map((li) => [li.dataset.id, li]));
  (judgment.payload.order || []).forEach((id) => byId.has(id) && list.appendChild(byId.get(id)));

  let focus = 0;
  let grabbed = false;
  const items = () => Array.from(list.children);
  const order = () => items().map((li) => li.dataset.id);

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
    judgment.changed({ order: order() });
    render();
  }

  function step(delta) {
    const all = items();
    const target = Math.min(all.length - 1, Math.max(0, focus + delta));
    if (target === focus) return;
    if (grabbed) {
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

  async function submit() {
    if (submitButton.disabled) return;
    if (await judgment.submit({ order: order() })) judgment.goNext();
  }

  if (!judgment.readonly) {
    Sortable.create(list, {
      animation: 120,
      onStart: () => { grabbed = false; },
      onEnd: (event) => { focus = event.newIndex; changed(); },
    });
  }
  items().forEach((li, index) => li.addEventListener("click", () => { focus = items().indexOf(li); render(); }));
  submitButton.addEventListener("click", submit);

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || judgment.readonly) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    const key = event.key;
    if (key === "ArrowDown" || key === "j") { step(1); event.preventDefault(); }
    else if (key === "ArrowUp" || key === "k") { step(-1); event.preventDefault(); }
    else if (key === " ") { grabbed = !grabbed; render(); event.preventDefault(); }
    else if (key === "Escape") { grabbed = false; render(); }
    else if (key === "Enter") {
      event.preventDefault();
      if (grabbed) { grabbed = false; render(); } else submit();
    }
  });

  render();
  if (items().length) items()[0].focus();
});
