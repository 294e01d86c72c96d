// Sentence clustering page: sentences move between the documents (no
// cluster: irrelevant) and numbered clusters, by drag and drop (SortableJS),
// by tapping a sentence then a cluster (phones: no long drag; a bar at the
// bottom of the screen offers the clusters too), or the keyboard; rules 3
// and 4 of the guidelines are checked live. The keys, the key help, undo/redo and the confirm step: static/annotate/keys.js.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("judge");
  const page = document.getElementById("clustering");
  const clusterBox = document.getElementById("clusters");
  const template = document.getElementById("cluster-template");
  const noClusters = document.getElementById("no-clusters");
  const statusLine = document.getElementById("cluster-status");
  const problemList = document.getElementById("rule-problems");
  const submitButton = document.getElementById("submit-judgment");
  const newClusterButton = document.getElementById("new-cluster");
  const judgment = new Concord.Judgment(root);
  const blocking = page.dataset.rules === "block";
  const editable = !judgment.readonly;

  const sentences = Array.from(page.querySelectorAll(".pool .sentence"));  // topic order
  const byId = new Map(sentences.map((el) => [el.dataset.id, el]));
  const pools = new Map(Array.from(page.querySelectorAll(".pool")).map((ul) => [ul.dataset.document, ul]));
  page.querySelectorAll(".pool").forEach((ul) => {
    Array.from(ul.children).forEach((el, index) => {
      el.querySelector(".sentence-tag").textContent = `${el.dataset.docTag}.${index + 1}`;
    });
  });

  // Clusters in importance order; each knows its element, list and input.
  const clusters = [];
  let focusId = sentences.length ? sentences[0].dataset.id : null;
  let picked = null; // the tapped sentence waiting for a cluster (tap it again to let go)
  // Set when a drag starts, cleared by the next press: whatever click the
  // browser sends at the end of a drag is then never taken for a tap.
  let dragged = false;
  let lastSent = null;
  const pickBar = document.getElementById("pick-bar");

  const sortableOptions = (extra) => ({
    group: "sentences",
    animation: 120,
    // A finger held still drags; a swipe scrolls the page and a tap chooses the sentence.
    delay: 250,
    delayOnTouchOnly: true,
    ghostClass: "sentence-ghost",
    chosenClass: "sentence-chosen",
    // A drag lets go of a tapped sentence: the bar would hide the bottom clusters.
    onStart: () => { dragged = true; picked = null; renderPickBar(); },
    onEnd: (event) => { focusId = event.item.dataset.id; changed(); },
    ...extra,
  });

  const membersOf = (cluster) => Array.from(cluster.list.children).map((el) => el.dataset.id);
  const clusterOf = (id) => clusters.find((c) => c.list.contains(byId.get(id))) || null;
  const documentsOf = (cluster) => new Set(membersOf(cluster).map((id) => byId.get(id).dataset.document));
  // The order the keys move through: the documents, then the clusters.
  const flatOrder = () => Array.from(page.querySelectorAll(".sentence-list .sentence"));

  function addCluster(ids = [], description = "") {
    const el = template.content.firstElementChild.cloneNode(true);
    const cluster = { el, list: el.querySelector(".cluster-sentences"), input: el.querySelector(".cluster-description") };
    cluster.input.value = description;
    ids.forEach((id) => byId.has(id) && cluster.list.appendChild(byId.get(id)));
    clusterBox.appendChild(el);
    clusters.push(cluster);
    if (editable) {
      cluster.sortable = Sortable.create(cluster.list, sortableOptions({}));
      cluster.input.addEventListener("input", () => changed({ group: cluster }));
    } else {
      cluster.input.readOnly = true;
    }
    cluster.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        focusSentence();
      }
    });
    // Tapping a cluster (not its controls or a sentence in it) takes the chosen sentence in.
    el.addEventListener("click", (event) => {
      if (!picked || dragged || event.target.closest("input, button, .sentence")) return;
      putPicked(clusters.indexOf(cluster) + 1);
    });
    el.querySelector(".move-up").addEventListener("click", () => moveCluster(cluster, -1));
    el.querySelector(".move-down").addEventListener("click", () => moveCluster(cluster, 1));
    el.querySelector(".delete-cluster").addEventListener("click", () => deleteCluster(cluster));
    return cluster;
  }

  function moveCluster(cluster, delta) {
    const from = clusters.indexOf(cluster);
    const to = from + delta;
    if (!editable || to < 0 || to >= clusters.length) return;
    clusters.splice(from, 1);
    clusters.splice(to, 0, cluster);
    clusters.forEach((c) => clusterBox.appendChild(c.el));
    changed();
  }

  function deleteCluster(cluster) {
    if (!editable || cluster.list.children.length) return;
    cluster.sortable.destroy();
    cluster.el.remove();
    clusters.splice(clusters.indexOf(cluster), 1);
    changed();
    focusSentence();
  }

  // Sentences in no cluster go back to their own document, in reading order,
  // wherever they were dropped.
  function tidyPools() {
    sentences.forEach((el) => {
      if (!clusterOf(el.dataset.id)) pools.get(el.dataset.document).appendChild(el);
    });
  }

  // Taking a sentence out, the focus moves on to the one after it (the rest
  // of its cluster); putting one in, the focus stays with it, so that e
  // describes the cluster it just went into.
  function neighbourOf(id) {
    const order = flatOrder();
    const index = order.indexOf(byId.get(id));
    const next = order[index + 1] || order[index - 1];
    return next ? next.dataset.id : id;
  }

  function putInto(number, { scroll = true } = {}) {
    if (!focusId) return;
    const cluster = clusters[number - 1];
    if (!cluster) {
      say(`There is no cluster ${number}: press c to create one.`);
      return;
    }
    if (clusterOf(focusId) === cluster) return;
    cluster.list.appendChild(byId.get(focusId));
    changed();
    say(`Sentence ${byId.get(focusId).querySelector(".sentence-tag").textContent} is in cluster ${number}: e describes it.`);
    focusSentence({ scroll });
  }

  function takeOut({ scroll = true } = {}) {
    if (!focusId || !clusterOf(focusId)) return;
    const next = neighbourOf(focusId);
    pools.get(byId.get(focusId).dataset.document).appendChild(byId.get(focusId));
    focusId = next;
    changed();
    focusSentence({ scroll });
  }

  function step(delta) {
    const order = flatOrder();
    if (!order.length) return;
    const index = order.indexOf(byId.get(focusId));
    focusId = order[Math.min(order.length - 1, Math.max(0, index + delta))].dataset.id;
    render();
    focusSentence();
  }

  function focusSentence({ scroll = true } = {}) {
    const el = byId.get(focusId);
    if (el) el.focus({ preventScroll: !scroll });
  }

  // -- tap a sentence, then a cluster ----------------------------------------------------

  function pick(id) {
    if (dragged) return;
    focusId = id;
    picked = editable && picked !== id ? id : null;
    render();
  }

  function putPicked(number) {
    focusId = picked;
    picked = null;
    putInto(number, { scroll: false });
  }

  function pickAction(label, run, aria) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    if (aria) button.setAttribute("aria-label", aria);
    button.addEventListener("click", run);
    return button;
  }

  function renderPickBar() {
    sentences.forEach((el) => el.classList.toggle("picked", el.dataset.id === picked));
    page.classList.toggle("picking", Boolean(picked));
    pickBar.hidden = !picked;
    if (!picked) return;
    const tag = byId.get(picked).querySelector(".sentence-tag").textContent;
    document.getElementById("pick-text").textContent = `Sentence ${tag} chosen: tap a cluster, or put it into`;
    const actions = clusters.map((cluster, index) =>
      pickAction(String(index + 1), () => putPicked(index + 1), `Cluster ${index + 1}${cluster.input.value ? `: ${cluster.input.value}` : ""}`));
    actions.push(pickAction("New cluster", () => { newCluster(); putPicked(clusters.length); }));
    if (clusterOf(picked)) actions.push(pickAction("Leave out", () => { focusId = picked; picked = null; takeOut({ scroll: false }); }));
    actions.push(pickAction("Cancel", () => { picked = null; render(); }));
    document.getElementById("pick-actions").replaceChildren(...actions);
  }

  let sayTimer = null;
  function say(text) {
    statusLine.textContent = text;
    clearTimeout(sayTimer);
    sayTimer = setTimeout(render, 4000);
  }

  // Empty clusters stay on the page but are not sent: the server refuses them.
  function payload() {
    const kept = clusters.filter((c) => c.list.children.length);
    return { clusters: kept.map(membersOf), descriptions: kept.map((c) => c.input.value.trim()) };
  }

  // Mirrors rule_violations in kinds/clustering/data.py.
  function problemOf(cluster, number) {
    const size = cluster.list.children.length;
    if (size === 0) return null;
    if (size < 2) return { rule: 4, message: `cluster ${number} has one sentence; a cluster needs at least two (rule 4)` };
    if (documentsOf(cluster).size < 2) {
      return { rule: 3, message: `cluster ${number} has sentences from one document only; it needs two or more documents (rule 3)` };
    }
    return null;
  }

  function render() {
    const problems = [];
    clusters.forEach((cluster, index) => {
      const number = index + 1;
      const size = cluster.list.children.length;
      const problem = problemOf(cluster, number);
      if (problem) problems.push(problem);
      cluster.el.dataset.number = String(number);
      cluster.el.classList.toggle("is-empty", size === 0);
      cluster.el.classList.toggle("breaks-rule", Boolean(problem));
      if (problem) cluster.el.dataset.rule = String(problem.rule);
      else delete cluster.el.dataset.rule;
      cluster.el.querySelector(".cluster-number").textContent = String(number);
      cluster.input.setAttribute("aria-label", `Description of cluster ${number}`);
      cluster.list.setAttribute("aria-label", `Sentences of cluster ${number}`);
      const up = cluster.el.querySelector(".move-up");
      const down = cluster.el.querySelector(".move-down");
      const remove = cluster.el.querySelector(".delete-cluster");
      up.setAttribute("aria-label", `Move cluster ${number} up`);
      down.setAttribute("aria-label", `Move cluster ${number} down`);
      remove.setAttribute("aria-label", `Delete cluster ${number}`);
      up.disabled = !editable || index === 0;
      down.disabled = !editable || index === clusters.length - 1;
      remove.disabled = !editable || size > 0;
      remove.title = size > 0 ? "Only an empty cluster can be deleted" : "Delete this empty cluster";
      const note = cluster.el.querySelector(".cluster-note");
      note.textContent = problem ? problem.message
        : size === 0 ? `Empty: drag sentences here${number <= 9 ? `, or press ${number} on a focused sentence` : ""}.` : "";
      note.classList.toggle("rule-message", Boolean(problem));
    });
    pools.forEach((ul) => ul.closest(".document").classList.toggle("all-clustered", ul.children.length === 0));
    noClusters.hidden = clusters.length > 0;

    sentences.forEach((el) => {
      const focused = el.dataset.id === focusId;
      el.classList.toggle("focused", focused);
      el.tabIndex = focused ? 0 : -1;
    });

    problemList.replaceChildren(...problems.map((p) => {
      const li = document.createElement("li");
      li.textContent = p.message.charAt(0).toUpperCase() + p.message.slice(1) + ".";
      return li;
    }));
    problemList.classList.toggle("blocking", blocking);
    renderPickBar();

    const used = payload().clusters;
    const clustered = used.reduce((n, c) => n + c.length, 0);
    statusLine.textContent = `${clustered} of ${sentences.length} sentences in ${used.length} cluster${used.length === 1 ? "" : "s"}; ` +
      `${sentences.length - clustered} left out as irrelevant.` +
      (used.length === 0 ? " Submit needs at least one cluster."
        : problems.length && blocking ? " Fix the rules flagged below to submit."
          : problems.length ? " You may submit, but mind the warnings below." : "");
    submitButton.disabled = !editable || used.length === 0 || (blocking && problems.length > 0);
  }

  function changed({ group = null } = {}) {
    tidyPools();
    render();
    const next = payload();
    const text = JSON.stringify(next);
    if (text !== lastSent) {
      lastSent = text;
      judging.edited(next, { group });
    }
  }

  // Undo and redo: the clusters rebuilt from a payload.
  function load(saved) {
    clusters.forEach((cluster) => {
      if (cluster.sortable) cluster.sortable.destroy();
      cluster.el.remove();
    });
    clusters.length = 0;
    (saved.clusters || []).forEach((ids, index) => addCluster(ids, (saved.descriptions || [])[index] || ""));
    tidyPools();
    lastSent = JSON.stringify(payload());
    render();
    focusSentence();
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  function summary() {
    const used = payload().clusters;
    const problems = clusters.map((c, index) => problemOf(c, index + 1)).filter(Boolean);
    if (!used.length) return { ready: false, problem: "Submit needs at least one cluster with sentences in it." };
    if (blocking && problems.length) return { ready: false, problem: "Submit is blocked: fix the rules flagged below first." };
    const clustered = used.reduce((n, c) => n + c.length, 0);
    const undescribed = payload().descriptions.filter((d) => !d).length;
    return {
      ready: true,
      text: `${plural(used.length, "cluster")}, ${plural(sentences.length - clustered, "sentence")} left out, ` +
        `${plural(problems.length, "rule warning")}` + (undescribed ? `, ${undescribed} without a description.` : "."),
    };
  }

  function describe() {
    const here = focusId ? clusterOf(focusId) : null;
    if (here) here.input.focus();
    else say("This sentence is in no cluster: put it into one first.");
  }

  function moveHere(delta) {
    const here = focusId ? clusterOf(focusId) : null;
    if (here) moveCluster(here, delta);
    focusSentence();
  }

  function newCluster() {
    if (!editable) return;
    addCluster();
    render();
    const number = clusters.length;
    say(number <= 9 ? `Cluster ${number} created: press ${number} to put the focused sentence into it.`
      : `Cluster ${number} created: drag sentences into it.`);
    return clusters[number - 1];
  }

  const saved = judgment.payload || {};
  (saved.clusters || []).forEach((ids, index) => addCluster(ids, (saved.descriptions || [])[index] || ""));
  lastSent = JSON.stringify(payload());
  tidyPools();
  if (editable) {
    pools.forEach((ul) => Sortable.create(ul, sortableOptions({ sort: false })));
  }

  page.addEventListener("pointerdown", () => { dragged = false; }, true);
  sentences.forEach((el) => el.addEventListener("click", () => pick(el.dataset.id)));
  newClusterButton.disabled = !editable;
  // With the mouse, the next thing to do is usually to name the cluster.
  newClusterButton.addEventListener("click", () => { const cluster = newCluster(); if (cluster) cluster.input.focus(); });

  const judging = new Concord.JudgePage({
    judgment,
    keys: [
      { keys: ["j", "ArrowDown"], does: "next sentence", run: () => step(1) },
      { keys: ["k", "ArrowUp"], does: "previous sentence", run: () => step(-1) },
      { keys: ["Escape"], does: "let go of a tapped sentence", run: () => { picked = null; render(); }, when: () => Boolean(picked), help: false },
      { keys: ["1-9"], does: "put the focused sentence into that cluster (the focus stays with it)", run: (event) => putInto(Number(event.key)), edits: true },
      { keys: ["0", "x"], does: "take it out of its cluster (irrelevant)", run: takeOut, edits: true },
      { keys: ["c"], does: "new cluster", run: newCluster, edits: true },
      { keys: ["e"], does: "describe the focused sentence's cluster; Enter or Esc to come back", run: describe, edits: true },
      { keys: ["Shift+ArrowUp"], does: "move the focused sentence's cluster up (more important)", run: () => moveHere(-1), edits: true },
      { keys: ["Shift+ArrowDown"], does: "move the focused sentence's cluster down (less important)", run: () => moveHere(1), edits: true },
    ],
    payload,
    load,
    summary,
    untouched: "No sentence is in a cluster.",
    say,
  });

  render();
  focusSentence();
});
