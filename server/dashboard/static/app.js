// Berth dashboard: reloads the live part of a page in place, and follows
// the decision stream. No framework, no build step, nothing fetched from
// anywhere but berthd.
"use strict";

(function () {
  const main = document.getElementById("main");

  // Pages with data-refresh reload their <main> every so many seconds
  // while they are visible.
  const every = Number(main && main.dataset.refresh);
  if (every > 0) {
    setInterval(async function () {
      if (document.hidden) return;
      // Someone typing into a filter keeps what they type.
      const focused = document.activeElement;
      if (focused && main.contains(focused) && (focused.tagName === "INPUT" || focused.tagName === "SELECT")) return;
      try {
        const resp = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
        if (!resp.ok) return;
        const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        const fresh = doc.getElementById("main");
        if (fresh) main.innerHTML = fresh.innerHTML;
      } catch (e) {
        // berthd unreachable for a moment: keep what is shown.
      }
    }, every * 1000);
  }

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
    cell(row, d.node || "", "nowrap");
    cell(row, d.detail || "");
    body.insertBefore(row, body.firstChild);
    while (body.rows.length > maxRows) body.deleteRow(body.rows.length - 1);
  }

  // EventSource reconnects on its own, sending the id of the last
  // decision received, so the stream resumes where it stopped.
  const source = new EventSource("/decisions/stream");
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
})();
