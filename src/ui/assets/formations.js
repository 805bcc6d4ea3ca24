// The dashboard's formation views: the formations and their runs, and a
// formation run drawn as its graph, each node coloured by its live state.
// It uses app.js's helpers (loaded first); like them, it sets what the
// server says as text only.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// An SVG element, as h() makes HTML ones.
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) if (value !== null && value !== undefined) el.setAttribute(key, value);
  for (const child of children.flat(Infinity)) if (child !== null && child !== undefined) el.append(child);
  return el;
}

async function formationsView() {
  const params = new URLSearchParams(location.search);
  const formations = h("div", {id: "formations"}), runs = h("div", {id: "formation-runs"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Formations"), formations,
    section("Formation runs", runs));
  const query = new URLSearchParams({order: "desc", limit: PAGE});
  if (params.get("after")) query.set("after", params.get("after"));
  await every(3000, async () => {
    const [all, page] = await Promise.all([api("/formations"), api(`/formation-runs?${query}`)]);
    const names = new Map(all.map((f) => [f.id, f.name]));
    formations.replaceChildren(all.length ? table(["Formation", "Nodes", "~Edges", "~Created"], all,
      (f) => [h("span", {title: f.id}, f.name), f.nodes.length, f.edges.length, when(f.created_at)],
      (f) => ({"data-formation": f.id})) : h("p", {class: "muted"}, "No formation yet: POST /formations makes one."));
    runs.replaceChildren(table(["Formation run", "Formation", "Status", "Nodes", "~Created"], page.formation_runs,
      (r) => [idLink("formation-runs", r.id), names.get(r.formation_id) || shortId(r.formation_id), badge(r.status),
        `${r.nodes.filter((n) => n.status === "succeeded").length}/${r.nodes.length} done`, when(r.created_at)],
      (r) => ({"data-formation-run": r.id})), pager(params, page.next_after));
  });
}

// Columns by depth (a node one column right of its deepest input), rows in
// the formation's order within a column.
function layout(nodes, edges) {
  const depth = new Map(nodes.map((n) => [n.node, 0]));
  for (let pass = 0; pass < nodes.length; pass++) {
    for (const e of edges) depth.set(e.to, Math.max(depth.get(e.to), depth.get(e.from) + 1));
  }
  const rows = new Map(), place = new Map();
  for (const n of nodes) {
    const column = depth.get(n.node), row = rows.get(column) || 0;
    rows.set(column, row + 1);
    place.set(n.node, {x: 20 + column * 190, y: 20 + row * 80});
  }
  const width = 20 + (Math.max(...depth.values()) + 1) * 190, height = 20 + Math.max(...rows.values()) * 80;
  return {place, width, height};
}

function drawGraph(run) {
  const {place, width, height} = layout(run.nodes, run.edges);
  const lines = run.edges.map((e) => {
    const a = place.get(e.from), b = place.get(e.to);
    return s("path", {class: "edge", d: `M${a.x + 150} ${a.y + 25} C${a.x + 170} ${a.y + 25}, ${b.x - 20} ${b.y + 25}, ${b.x} ${b.y + 25}`});
  });
  const boxes = run.nodes.map((n) => {
    const {x, y} = place.get(n.node);
    return s("g", {class: "node", "data-node": n.node, "data-status": n.status, transform: `translate(${x} ${y})`},
      s("rect", {width: 150, height: 50, rx: 8}),
      s("text", {x: 10, y: 20, class: "name"}, n.node),
      s("text", {x: 10, y: 38, class: "state"}, `${n.kind} · ${n.status}`));
  });
  // Drawn at its own size (a graph of one node is not blown up to the
  // page's width), and narrowed with the screen.
  return s("svg", {id: "graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "the formation's graph"},
    s("defs"), lines, boxes);
}

// A node's state as the graph and the table show it.
function showNode(graph, list, node) {
  const box = graph.querySelector(`g[data-node="${CSS.escape(node.node)}"]`);
  if (box) {
    box.dataset.status = node.status;
    box.querySelector(".state").textContent = `${node.kind} · ${node.status}`;
  }
  const row = list.querySelector(`tr[data-node="${CSS.escape(node.node)}"]`);
  if (row) row.replaceWith(nodeRow(node));
}

function nodeRow(node) {
  const work = node.run_id ? idLink("runs", node.run_id) : node.fleet_run_id ? idLink("fleet-runs", node.fleet_run_id) : "—";
  const said = node.error || (node.output === undefined ? "" : pretty(node.output));
  return h("tr", {"data-node": node.node, "data-status": node.status}, h("td", {}, node.node), h("td", {}, node.kind),
    h("td", {}, badge(node.status)), h("td", {}, work), h("td", {class: "wide"}, h("span", {class: "muted"}, said.slice(0, 160))));
}

async function formationRunView(id) {
  const path = `/formation-runs/${encodeURIComponent(id)}`;
  const about = h("div"), holder = h("div", {class: "graph"}), list = h("tbody");
  const indicator = h("span", {class: "live", id: "live"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Formation run ", h("code", {}, id)), about,
    h("h2", {}, "Graph ", indicator), holder,
    section("Nodes", h("table", {}, h("thead", {}, h("tr", {}, ["Node", "Kind", "Status", "Work", "Output"].map((c) => h("th", {}, c)))), list)));
  const nodes = new Map();
  let ended = false;
  const refresh = async () => {
    const run = await api(path);
    ended = TERMINAL.includes(run.status);
    about.replaceChildren(fields([["Status", h("span", {id: "run-status"}, badge(run.status))], ["Formation", h("code", {}, run.formation_id)],
      ["Name", run.name], ["Created", when(run.created_at)], ["Finished", when(run.finished_at)],
      run.error && ["Error", h("span", {class: "error"}, run.error), true],
      run.outputs && ["Outputs", h("pre", {class: "output", id: "outputs"}, pretty(run.outputs)), true]]),
      TERMINAL.includes(run.status) ? "" : h("button", {type: "button", class: "danger", id: "cancel-formation-run",
        onclick: () => api(`${path}/cancel`, {method: "POST"}).then(refresh, report)}, "Cancel formation run"));
    if (!holder.firstChild) holder.append(drawGraph(run));
    if (!list.firstChild) list.append(...run.nodes.map(nodeRow));
    for (const node of run.nodes) { nodes.set(node.node, node); showNode(holder.firstChild, list, node); }
  };
  await refresh();
  // A node whose run comes to wait for a person writes nothing to this log:
  // while the run goes on, the page reads it again every few seconds.
  every(3000, async () => { if (!ended) await refresh(); });
  // Node states come from the log: each `node_started` and `node_finished` moves one.
  follow(`${path}/events`, path, (e) => {
    const node = nodes.get(e.node);
    // A start moves a pending node only: a replayed start must not undo the
    // `waiting` that reading the run showed.
    if (e.type === "node_started" && node && node.status === "pending") {
      Object.assign(node, {status: "running", run_id: e.run_id, fleet_run_id: e.fleet_run_id});
      showNode(holder.firstChild, list, node);
    }
    if (e.type === "node_finished" && node) {
      Object.assign(node, {status: e.status, output: e.output, error: e.error});
      showNode(holder.firstChild, list, node);
    }
    if (e.type === "done") refresh().catch(report);
  }, indicator);
}

Object.assign(VIEWS, {formations: formationsView, "formation-run": formationRunView});
EVENT_TYPES.push("formation_queued", "node_started", "node_finished");
