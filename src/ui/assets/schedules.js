// The dashboard's schedules view: every schedule with when it ticks next,
// a button to pause or resume it, and what its latest ticks submitted.
// It uses app.js's helpers (loaded first); like them, it sets what the
// server says as text only.
"use strict";

function scheduleWhen(s) {
  return s.cron ? `cron ${s.cron} (${s.timezone || "UTC"})` : `every ${s.every}`;
}

function scheduleTarget(t) {
  if (t.session_id) return h("span", {}, "message to ", idLink("sessions", t.session_id));
  if (t.fleet_id) return `fleet ${shortId(t.fleet_id)} (${t.tasks.length} tasks)`;
  return `formation ${shortId(t.formation_id)}`;
}

// What a tick made: a link to its run, fleet run or formation run, or why it was skipped.
function tickResult(t) {
  const pages = {run: "runs", fleet_run: "fleet-runs", formation_run: "formation-runs"};
  if (t.id) return h("span", {}, when(t.tick_at), " → ", idLink(pages[t.kind], t.id));
  return h("span", {class: "muted"}, when(t.tick_at), " skipped: ", t.skipped || "");
}

async function schedulesView() {
  const list = h("div", {id: "schedules"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Schedules"), list);
  const refresh = async () => {
    const all = await api("/schedules");
    const latest = await Promise.all(all.map((s) => api(`/schedules/${encodeURIComponent(s.id)}/runs?limit=5`)));
    const ticks = new Map(all.map((s, i) => [s.id, latest[i].ticks]));
    const toggle = (s) => h("button", {type: "button", class: "toggle", "data-schedule": s.id,
      onclick: () => api(`/schedules/${encodeURIComponent(s.id)}/${s.paused ? "resume" : "pause"}`, {method: "POST"})
        .then(refresh, report)}, s.paused ? "Resume" : "Pause");
    list.replaceChildren(all.length ? table(["Schedule", "When", "Target", "Overlap", "Next tick", "Latest ticks", ""], all,
      (s) => [h("span", {title: s.id}, s.name), scheduleWhen(s), scheduleTarget(s.target), s.overlap,
        s.paused ? badge("paused") : when(s.next_tick_at),
        h("div", {class: "ticks"}, ticks.get(s.id).map((t) => h("div", {}, tickResult(t)))), toggle(s)],
      (s) => ({"data-schedule": s.id, "data-paused": String(s.paused)}))
      : h("p", {class: "muted"}, "No schedule yet: POST /schedules makes one."));
  };
  await every(3000, refresh);
}

Object.assign(VIEWS, {schedules: schedulesView});
