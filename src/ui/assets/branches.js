// The dashboard's rewind, fork and retry: a session's branches and where it
// was forked from, the forms that fork or rewind it at one of its runs, and
// a failed run's Retry. It uses app.js's helpers (loaded first); like them,
// it sets what the server says as text only.
"use strict";

EVENT_TYPES.push("step_reused");

// A session's origin and its branches, each with a link that reads it as it
// was set aside. `shown` says which history the page shows.
function branchesOf(id, session, shown) {
  const base = `/ui/sessions/${encodeURIComponent(id)}`;
  const origin = session.forked_from && h("p", {id: "forked-from"}, "Forked from session ",
    idLink("sessions", session.forked_from.session_id),
    session.forked_from.run_id ? [" at the end of run ", idLink("runs", session.forked_from.run_id)] : "");
  const note = shown && h("p", {id: "shown-history", class: "muted"}, `The history ${shown}. `,
    h("a", {href: base}, "The history as it is now »"));
  const list = session.branches.length ? h("ul", {id: "branches", class: "children"}, session.branches.map((b) =>
    h("li", {"data-branch": b.branch}, h("a", {href: `${base}?branch=${b.branch}`}, `Branch ${b.branch}`),
      " set aside after ", b.after_run_id ? ["run ", idLink("runs", b.after_run_id)] : "the start",
      h("span", {class: "muted"}, ` · ${b.runs.length} run(s), ${b.messages} message(s) · `), when(b.created_at))))
    : h("p", {class: "muted"}, "No branch: nothing was rewound.");
  return h("div", {}, origin || "", note || "", list);
}

// Fork or rewind the session at one of its ended runs (newest first). Drawn
// once, so a choice survives the page's refreshes; `refresh` redraws the rest.
function branchControls(id, runs, refresh) {
  const path = `/sessions/${encodeURIComponent(id)}`;
  const ended = runs.filter((r) => TERMINAL.includes(r.status));
  if (!ended.length) return h("p", {class: "muted"}, "Fork and rewind name a run that has ended; none has yet.");
  const at = h("select", {id: "branch-at"}, ended.map((r) => h("option", {value: r.id},
    `${shortId(r.id)} · ${r.status} · ${(r.input.message || r.kind).slice(0, 40)}`)));
  const fork = async () => {
    try {
      const made = await api(`${path}/fork`, {method: "POST", body: {at: at.value}});
      location.assign(`/ui/sessions/${encodeURIComponent(made.id)}`);
    } catch (err) { report(err); }
  };
  const rewind = async () => {
    try { await api(`${path}/rewind`, {method: "POST", body: {to: at.value}}); await refresh(); } catch (err) { report(err); }
  };
  return h("div", {class: "filters"}, h("label", {}, "At the end of run ", at),
    h("button", {type: "button", id: "fork", onclick: fork}, "Fork here"),
    h("button", {type: "button", id: "rewind", class: "danger", onclick: rewind,
      title: "Set the history after this run aside as a branch; the next message continues from here"}, "Rewind here"));
}

// A failed, cancelled or interrupted message's Retry, from the step asked
// (by default its first step that is not whole): opens the new run.
function retryControls(run) {
  if (run.kind !== "message" || !["failed", "cancelled", "interrupted"].includes(run.status)) return [];
  const from = h("input", {id: "retry-from", type: "number", min: 1, placeholder: "from step (default: the first not done)"});
  const retry = async () => {
    try {
      const body = from.value ? {from_step: Number(from.value)} : {};
      const made = await api(`/runs/${encodeURIComponent(run.id)}/retry`, {method: "POST", body});
      location.assign(`/ui/runs/${encodeURIComponent(made.run_id)}`);
    } catch (err) { report(err); }
  };
  return [h("div", {class: "filters"}, from, h("button", {type: "button", id: "retry", onclick: retry}, "Retry"))];
}
