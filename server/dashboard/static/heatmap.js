// Berth dashboard: the nodes heatmap. One canvas, one cell a node, drawn
// from /api/heatmap read page after page; no DOM element per node, so
// 50,000 nodes draw as fast as 500.
"use strict";

(function () {
  const section = document.getElementById("heatmap");
  const canvas = document.getElementById("heat-canvas");
  if (!section || !canvas) return;
  const tip = document.getElementById("heat-tip");
  const status = document.getElementById("heat-status");
  const color = section.dataset.color;
  const resources = ["cpu", "memory", "pods", "devices"];
  const css = getComputedStyle(document.documentElement);
  const v = name => css.getPropertyValue(name).trim();

  // The heatmap re-reads its nodes as often as the page's live parts
  // refresh (less often in a large fleet; never with ?refresh=0).
  const refreshAfter = Number(section.dataset.refresh) || 0;
  let nodes = [], groups = [], states = [], layout = null, focus = -1;

  // load reads every page of the heatmap from one snapshot: the page's
  // own the first time (in data-src), a fresh one after.
  let loads = 0;
  async function load() {
    let from = 0, snap = loads++ ? "" : new URL(section.dataset.src, location.href).searchParams.get("snap") || "";
    const all = [], names = [], index = new Map();
    for (;;) {
      const url = new URL(section.dataset.src, location.href);
      url.searchParams.set("from", from);
      url.searchParams.delete("snap");
      if (snap) url.searchParams.set("snap", snap);
      const resp = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (resp.status === 401) throw new Error("the session ended: reload the page to log in again");
      const page = await resp.json();
      if (!resp.ok) throw new Error(page.error || resp.statusText);
      snap = page.snapshot;
      states = page.states;
      const local = page.groups.map(function (g) {
        let i = index.get(g);
        if (i === undefined) { i = names.length; names.push(g); index.set(g, i); }
        return i;
      });
      for (const n of page.nodes) { n[1] = local[n[1]]; all.push(n); }
      if (!page.next) break;
      from = page.next;
    }
    // Grouped by a label of nearly every node (a hostname), the groups
    // would be as many as the nodes: draw them together then.
    if (names.length > maxGroups) {
      for (const n of all) n[1] = 0;
      names.splice(0, names.length, "all nodes (" + names.length.toLocaleString("en") + " groups, too many to draw apart)");
    }
    nodes = all;
    groups = names;
  }
  const maxGroups = 200;

  // fill is the colour of node n.
  const palette = {};
  function fill(n) {
    if (color === "state") {
      for (let b = 0; b < states.length; b++) if (n[6] & (1 << b)) return palette["st-" + states[b]];
      return palette["st-ok"];
    }
    const p = n[2 + resources.indexOf(color)];
    if (p < 0) return palette.na;
    if (p > 100) return palette.over;
    return palette["h" + Math.round(p / 10)];
  }

  // Cells shrink as the fleet grows: 16 px for a few hundred nodes, 5 px
  // (4 and a gap) from 10,000 on.
  function pitch(count) {
    if (count <= 500) return 16;
    if (count <= 2000) return 11;
    if (count <= 10000) return 7;
    return 5;
  }

  const headerHeight = 20;

  // place lays the groups out: each a title line, then its cells in rows.
  function place(width) {
    const size = pitch(nodes.length);
    const cols = Math.max(1, Math.floor(width / size));
    const blocks = [];
    let y = 0, start = 0;
    while (start < nodes.length) {
      let end = start;
      while (end < nodes.length && nodes[end][1] === nodes[start][1]) end++;
      const rows = Math.ceil((end - start) / cols);
      blocks.push({ group: nodes[start][1], start: start, end: end, top: y + headerHeight });
      y += headerHeight + rows * size + 6;
      start = end;
    }
    return { size: size, cols: cols, blocks: blocks, height: Math.max(y, headerHeight) };
  }

  function where(i) {
    const b = layout.blocks.find(b => i >= b.start && i < b.end);
    const k = i - b.start;
    return { x: (k % layout.cols) * layout.size, y: b.top + Math.floor(k / layout.cols) * layout.size, block: b };
  }

  function draw() {
    const started = performance.now();
    for (const k of ["na", "over", "st-ok", "st-notready", "st-pressure", "st-cordoned", "st-tainted"]) palette[k] = v("--" + k);
    for (let i = 0; i <= 10; i++) palette["h" + i] = v("--h" + i);
    const wrap = canvas.parentElement, box = getComputedStyle(wrap);
    const width = Math.max(200, wrap.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight));
    layout = place(width);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(layout.height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = layout.height + "px";
    const ctx = canvas.getContext("2d");
    ctx.scale(ratio, ratio);
    ctx.clearRect(0, 0, width, layout.height);
    const gap = layout.size >= 7 ? 2 : 1, cell = layout.size - gap;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (const b of layout.blocks) {
      ctx.fillStyle = v("--fg");
      ctx.fillText(groups[b.group] + " · " + (b.end - b.start).toLocaleString("en") + " nodes" + summary(b), 0, b.top - headerHeight / 2);
      for (let i = b.start; i < b.end; i++) {
        const k = i - b.start;
        const x = (k % layout.cols) * layout.size, y = b.top + Math.floor(k / layout.cols) * layout.size;
        ctx.fillStyle = fill(nodes[i]);
        ctx.fillRect(x, y, cell, cell);
      }
      // Beyond allocatable: a dot too, so that it does not rest on colour.
      if (color !== "state") {
        ctx.fillStyle = v("--fg");
        for (let i = b.start; i < b.end; i++) {
          if (nodes[i][2 + resources.indexOf(color)] <= 100) continue;
          const k = i - b.start;
          const x = (k % layout.cols) * layout.size, y = b.top + Math.floor(k / layout.cols) * layout.size;
          const dot = Math.max(1, Math.floor(cell / 3));
          ctx.fillRect(x + (cell - dot) / 2, y + (cell - dot) / 2, dot, dot);
        }
      }
    }
    const drawn = performance.now();
    canvas.dataset.cells = nodes.length;
    canvas.dataset.groups = groups.length;
    canvas.dataset.drawMs = Math.round(drawn - started);
    if (!canvas.dataset.renderMs) canvas.dataset.renderMs = Math.round(drawn);
    canvas.setAttribute("aria-label", "Heatmap of " + nodes.length.toLocaleString("en") + " nodes in " + groups.length +
      " groups; use the arrow keys to move from node to node and Enter to open one");
    status.textContent = nodes.length ? nodes.length.toLocaleString("en") + " nodes in " + groups.length + " groups." :
      "No node matches.";
    placeFocus();
  }

  // summary is a group's mean use of the resource coloured by, or its
  // count of nodes in a state.
  function summary(b) {
    if (color === "state") {
      let bad = 0;
      for (let i = b.start; i < b.end; i++) if (nodes[i][6]) bad++;
      return bad ? " · " + bad + " not ok" : "";
    }
    const r = 2 + resources.indexOf(color);
    let sum = 0, n = 0;
    for (let i = b.start; i < b.end; i++) if (nodes[i][r] >= 0) { sum += nodes[i][r]; n++; }
    return n ? " · " + color + " " + Math.round(sum / n) + "% on average" : "";
  }

  function describe(n) {
    const lines = [n[0], groups[n[1]]];
    resources.forEach(function (r, i) { if (n[2 + i] >= 0) lines.push(r + " " + n[2 + i] + "%"); });
    const st = states.filter((s, b) => n[6] & (1 << b));
    lines.push(st.length ? st.join(", ") : "ok");
    return lines;
  }

  function showTip(i, x, y) {
    tip.textContent = "";
    describe(nodes[i]).forEach(function (line, k) {
      const el = document.createElement(k === 0 ? "strong" : "div");
      el.textContent = line;
      tip.appendChild(el);
    });
    tip.style.left = Math.min(x + 12, canvas.clientWidth - 180) + "px";
    tip.style.top = (y + 12) + "px";
    tip.hidden = false;
  }

  function hit(ev) {
    if (!layout) return -1;
    const rect = canvas.getBoundingClientRect();
    const x = ev.clientX - rect.left, y = ev.clientY - rect.top;
    for (const b of layout.blocks) {
      if (y < b.top) continue;
      const row = Math.floor((y - b.top) / layout.size), col = Math.floor(x / layout.size);
      const i = b.start + row * layout.cols + col;
      if (col < layout.cols && i < b.end && y < b.top + Math.ceil((b.end - b.start) / layout.cols) * layout.size) return i;
    }
    return -1;
  }

  function open(i) { location.href = "/nodes/" + encodeURIComponent(nodes[i][0]); }

  canvas.addEventListener("mousemove", function (ev) {
    const i = hit(ev);
    const rect = canvas.getBoundingClientRect();
    if (i < 0) { tip.hidden = true; canvas.style.cursor = ""; return; }
    canvas.style.cursor = "pointer";
    showTip(i, ev.clientX - rect.left, ev.clientY - rect.top);
  });
  canvas.addEventListener("mouseleave", function () { if (focus < 0 || document.activeElement !== canvas) tip.hidden = true; });
  canvas.addEventListener("click", function (ev) { const i = hit(ev); if (i >= 0) open(i); });

  // The focused cell: a ring drawn by an element over the canvas.
  const ring = document.createElement("div");
  ring.className = "heat-focus";
  ring.hidden = true;
  canvas.parentElement.appendChild(ring);
  function placeFocus() {
    if (focus < 0 || focus >= nodes.length || !layout) { ring.hidden = true; return; }
    const p = where(focus);
    ring.style.left = (p.x - 2) + "px";
    ring.style.top = (p.y - 2) + "px";
    ring.style.width = ring.style.height = (layout.size + 2) + "px";
    ring.hidden = false;
    showTip(focus, p.x, p.y);
    status.textContent = describe(nodes[focus]).join(", ");
  }
  canvas.addEventListener("focus", function () { if (focus < 0 && nodes.length) { focus = 0; placeFocus(); } });
  canvas.addEventListener("blur", function () { ring.hidden = true; tip.hidden = true; });
  canvas.addEventListener("keydown", function (ev) {
    if (!nodes.length) return;
    const p = where(Math.max(focus, 0));
    const cols = layout.cols;
    let next = focus;
    switch (ev.key) {
      case "ArrowRight": next = focus + 1; break;
      case "ArrowLeft": next = focus - 1; break;
      case "ArrowDown": next = focus + cols < p.block.end ? focus + cols : p.block.end; break;
      case "ArrowUp": next = focus - cols >= p.block.start ? focus - cols : p.block.start - 1; break;
      case "Home": next = 0; break;
      case "End": next = nodes.length - 1; break;
      case "Enter": open(focus); return;
      default: return;
    }
    ev.preventDefault();
    focus = Math.max(0, Math.min(nodes.length - 1, next));
    placeFocus();
  });

  async function refresh() {
    try {
      await load();
      draw();
    } catch (e) {
      status.textContent = "The nodes could not be read: " + e.message;
    }
    if (refreshAfter > 0) setTimeout(function again() {
      if (document.hidden) { setTimeout(again, 2000); return; }
      refresh();
    }, refreshAfter * 1000);
  }
  let resizing = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () { if (nodes.length) draw(); }, 150);
  });
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function () { if (nodes.length) draw(); });
  refresh();
})();
