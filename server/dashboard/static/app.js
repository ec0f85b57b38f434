// Berth dashboard: reloads the live parts of a page in place, shows the
// queue chart's values under the pointer, follows the decision stream,
// and a few keys. No framework, no build step, nothing fetched from
// anywhere but berthd.
"use strict";

(function () {
  // Live parts ([data-live], with data-refresh seconds) are reloaded
  // from the same address with ?part=live, which answers those parts
  // alone, while the page is visible and nobody is typing into them.
  const live = document.querySelectorAll("[data-live]");
  const every = Math.min(...[...live].map(el => Number(el.dataset.refresh) || Infinity));
  if (live.length && isFinite(every) && every > 0) {
    setInterval(async function () {
      if (document.hidden) return;
      const focused = document.activeElement;
      if (focused && focused.closest("[data-live]") && focused.tagName !== "A") return;
      const url = new URL(location.href);
      url.searchParams.set("part", "live");
      try {
        const resp = await fetch(url, { credentials: "same-origin", cache: "no-store" });
        if (!resp.ok) return;
        const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        for (const fresh of doc.querySelectorAll("[data-live]")) {
          const old = document.getElementById(fresh.id);
          if (old) old.replaceWith(fresh);
        }
        document.dispatchEvent(new Event("berth:refreshed"));
      } catch (e) {
        // berthd unreachable for a moment: keep what is shown.
      }
    }, every * 1000);
  }

  // "/" goes to the page's filter, as in most list UIs.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    const filter = document.getElementById("filter");
    if (filter) { ev.preventDefault(); filter.focus(); filter.select(); }
  });

  chart();
  decisions();
})();

// chart shows, under the pointer or with the arrow keys, the counts of
// the sample nearest in time (from /api/queue).
function chart() {
  let data = null, index = -1;
  async function load() {
    try {
      const resp = await fetch("/api/queue", { credentials: "same-origin", cache: "no-store" });
      if (resp.ok) data = await resp.json();
    } catch (e) { data = null; }
  }
  function show(svg, i) {
    const tip = document.getElementById("chart-tip");
    const cursor = document.getElementById("chart-cursor");
    if (!data || !data.samples || !tip || !cursor) return;
    index = Math.max(0, Math.min(data.samples - 1, i));
    const width = Number(svg.dataset.width);
    const x = data.samples > 1 ? width * index / (data.samples - 1) : 0;
    cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
    cursor.setAttribute("visibility", "visible");
    tip.textContent = "";
    const title = document.createElement("strong");
    title.textContent = data.times[index] + " UTC";
    tip.appendChild(title);
    data.series.forEach(function (name, s) {
      const line = document.createElement("div");
      line.className = "key s-" + name;
      line.textContent = name + ": " + data.counts[s][index] + " pods";
      tip.appendChild(line);
    });
    tip.hidden = false;
  }
  function hide() {
    const tip = document.getElementById("chart-tip");
    const cursor = document.getElementById("chart-cursor");
    if (tip) tip.hidden = true;
    if (cursor) cursor.setAttribute("visibility", "hidden");
  }
  function wire() {
    const svg = document.getElementById("queue-chart");
    if (!svg || svg.dataset.wired) return;
    svg.dataset.wired = "1";
    svg.setAttribute("tabindex", "0");
    load();
    svg.addEventListener("mousemove", function (ev) {
      if (!data || !data.samples) return;
      const m = svg.getScreenCTM();
      if (!m) return;
      const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
      const x = pt.x - Number(svg.dataset.left);
      show(svg, Math.round(x / Number(svg.dataset.width) * (data.samples - 1)));
    });
    svg.addEventListener("mouseleave", hide);
    svg.addEventListener("blur", hide);
    svg.addEventListener("keydown", function (ev) {
      if (!data || !data.samples) return;
      const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[ev.key];
      if (step === undefined) return;
      ev.preventDefault();
      show(svg, index < 0 ? data.samples - 1 : index + (isFinite(step) ? step : step > 0 ? data.samples : -data.samples));
    });
  }
  wire();
  document.addEventListener("berth:refreshed", wire);
}

// decisions follows the decision stream into the decisions table.
function decisions() {
  const table = document.getElementById("decisions");
  if (!table) return;
  const body = table.tBodies[0];
  const maxRows = Number(table.dataset.maxRows) || 200;
  const status = document.getElementById("stream-status");
  function setStatus(text, cls) {
    status.textContent = text;
    status.className = "status " + cls;
  }

  function cell(row, text, cls) {
    const td = row.insertCell();
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }

  // The backlog a stream starts with is not news: only decisions arriving
  // a moment after the stream went live are flashed.
  let liveSince = Infinity;
  // A stream that starts again (its backlog) may repeat decisions shown.
  let newest = 0;
  function addDecision(d) {
    if (d.revision <= newest) return;
    newest = d.revision;
    const row = document.createElement("tr");
    if (Date.now() - liveSince > 1000) row.className = "new";
    row.dataset.revision = d.revision;
    cell(row, d.revision, "num");
    cell(row, d.time, "nowrap");
    cell(row, d.type, "t-" + d.type);
    const pod = row.insertCell();
    pod.className = "nowrap";
    const link = document.createElement("a");
    link.href = "/pods/" + encodeURIComponent(d.namespace) + "/" + encodeURIComponent(d.name);
    link.textContent = d.namespace + "/" + d.name;
    pod.appendChild(link);
    const node = row.insertCell();
    node.className = "nowrap";
    if (d.node) {
      const a = document.createElement("a");
      a.href = "/nodes/" + encodeURIComponent(d.node);
      a.textContent = d.node;
      node.appendChild(a);
    }
    cell(row, d.detail || "");
    body.insertBefore(row, body.firstChild);
    while (body.rows.length > maxRows) body.deleteRow(body.rows.length - 1);
  }

  // EventSource reconnects on its own, sending the id of the last
  // decision received, so the stream resumes where it stopped.
  const source = new EventSource(table.dataset.stream || "/decisions/stream");
  source.addEventListener("ready", function () {
    if (liveSince === Infinity) liveSince = Date.now();
    setStatus("live", "live");
  });
  source.addEventListener("decision", function (ev) { addDecision(JSON.parse(ev.data)); });
  source.addEventListener("gap", function (ev) {
    setStatus("live (decisions before revision " + ev.data + " were compacted away)", "live");
  });
  source.addEventListener("failed", function (ev) { setStatus(ev.data, "down"); });
  source.onerror = function () { setStatus("reconnecting…", "down"); };
}
