// Wingman's dashboard. Each view is drawn from the public JSON API, and live
// runs and fleet runs are followed through their SSE routes, as any client
// would. Everything that comes from the server is set as text, never as
// HTML, so nothing a run prints can run in this page.
"use strict";

const main = document.getElementById("main");
const PAGE = 50;
const TERMINAL = ["succeeded", "failed", "cancelled", "interrupted"];
const STATUSES = ["queued", "running", "waiting", ...TERMINAL];
const EVENT_TYPES = ["run_queued", "run_started", "run_handed_back", "run_resumed", "step_started", "text_delta",
  "thinking_delta", "tool_call", "tool_result", "step_completed", "step_restarted", "approval_requested", "approval_decided",
  "tool_calls_requested", "tool_results_received", "tool_source_unavailable", "steered", "step_output_exceeded",
  "rate_limited", "budget_exhausted", "loop_detected", "compaction_started", "compaction_completed", "subagent_started",
  "subagent_finished", "done", "fleet_queued", "result"];

// ---------- Elements ----------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

const shortId = (id) => (id ? "…" + id.slice(-8) : "—");
const idLink = (base, id) => (id ? h("a", {href: `/ui/${base}/${encodeURIComponent(id)}`, title: id}, h("code", {}, shortId(id))) : "—");
const badge = (status) => h("span", {class: "status", "data-status": status}, status);
const pretty = (value) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));
const section = (title, ...children) => h("section", {}, h("h2", {}, title), ...children);
// Labelled values; a third element `true` gives a long one a line of its own.
const fields = (pairs) => h("dl", {class: "fields"},
  pairs.filter((p) => p).map(([k, v, full]) => h("div", {class: full ? "full" : null}, h("dt", {}, k), h("dd", {}, v ?? "—"))));

function when(time) {
  if (!time) return "—";
  const seconds = Math.round((Date.now() - new Date(time).getTime()) / 1000);
  const size = Math.abs(seconds);
  const amount = size < 90 ? `${size} s` : size < 5400 ? `${Math.round(size / 60)} min` :
    size < 172800 ? `${Math.round(size / 3600)} h` : `${Math.round(size / 86400)} days`;
  return h("time", {datetime: time, title: new Date(time).toLocaleString()}, seconds >= 0 ? `${amount} ago` : `in ${amount}`);
}

// A table whose columns marked "~" are hidden on narrow screens.
function table(columns, items, cells, rowAttrs) {
  const wide = (i) => (columns[i].startsWith("~") ? "wide" : null);
  const head = h("tr", {}, columns.map((c, i) => h("th", {class: wide(i)}, c.replace(/^~/, ""))));
  const rows = items.map((item) => h("tr", rowAttrs ? rowAttrs(item) : {}, cells(item).map((c, i) => h("td", {class: wide(i)}, c))));
  if (!rows.length) rows.push(h("tr", {}, h("td", {class: "empty", colspan: columns.length}, "Nothing here.")));
  return h("div", {class: "scroll"}, h("table", {}, h("thead", {}, head), h("tbody", {}, rows)));
}

// ---------- Access: the token, kept for this browser session ----------

const TOKEN = "wingman_token";

function token() {
  const match = document.cookie.match(/(?:^|;\s*)wingman_token=([^;]*)/);
  return sessionStorage.getItem(TOKEN) || (match ? decodeURIComponent(match[1]) : null);
}

// The header carries the token of every fetch; the cookie carries it for
// EventSource, which cannot send headers. The server takes the cookie for
// reads only, so a page of another site cannot use it to change anything.
function keepToken(value) {
  sessionStorage.setItem(TOKEN, value);
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${TOKEN}=${encodeURIComponent(value)}; path=/; SameSite=Strict${secure}`;
}

function forgetToken() {
  sessionStorage.removeItem(TOKEN);
  document.cookie = `${TOKEN}=; path=/; max-age=0; SameSite=Strict`;
}

class NeedsToken extends Error {}

async function api(path, {method = "GET", body} = {}) {
  const headers = {Accept: "application/json"};
  const held = token();
  if (held) headers.Authorization = `Bearer ${held}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  if (answer.status === 401) {
    askToken(held ? "That token is not this server's." : null);
    throw new NeedsToken();
  }
  const data = answer.status === 204 ? null : await answer.json().catch(() => null);
  if (!answer.ok) throw new Error(data && data.error ? data.error : `${answer.status} ${answer.statusText}`);
  return data;
}

// What only an admin's key may read (the queue's detail, the workers),
// or null for another key, whose pages then say so instead of failing.
async function adminView(path) {
  try {
    return await api(path);
  } catch (e) {
    if (e instanceof NeedsToken || !/admin key/.test(e.message)) throw e;
    return null;
  }
}

// Every event of a log: a JSON read answers a page at a time.
async function allEvents(path) {
  const all = [];
  for (;;) {
    const after = all.length ? all[all.length - 1].seq : 0;
    const page = await api(`${path}?after=${after}&limit=10000`);
    all.push(...page);
    if (page.length < 10000) return all;
  }
}

function askToken(problem) {
  stopAll();
  if (document.getElementById("token-form")) return;
  forgetToken();
  drawAuth();
  delete main.dataset.drawn;
  const input = h("input", {id: "token", type: "password", autocomplete: "current-password", required: true});
  const submit = (e) => {
    e.preventDefault();
    keepToken(input.value.trim());
    start();
  };
  main.replaceChildren(h("form", {id: "token-form", class: "card", onsubmit: submit},
    h("h1", {}, "Access token"),
    h("p", {}, "This server asks for its access token (its --auth-token). It is kept for this browser session."),
    problem && h("p", {class: "error"}, problem),
    h("label", {for: "token"}, "Token"), input, h("button", {type: "submit"}, "Continue")));
  input.focus();
}

function drawAuth() {
  const slot = document.getElementById("auth");
  const forget = () => { forgetToken(); location.reload(); };
  slot.replaceChildren(token() ? h("button", {type: "button", onclick: forget}, "Forget token") : "");
}

// ---------- Live parts: timers paused while the tab is hidden, streams ----------

let cleanups = [];

function stopAll() {
  for (const stop of cleanups) stop();
  cleanups = [];
}

function report(error) {
  if (error instanceof NeedsToken) return;
  const banner = document.getElementById("problem");
  if (banner) banner.textContent = error ? `The server said: ${error.message}` : "";
}

// Calls `draw` now and every `ms` while the tab is visible (and at once when
// it becomes visible again), never two at a time.
function every(ms, draw) {
  let busy = false;
  const tick = async () => {
    if (document.hidden || busy) return;
    busy = true;
    try { await draw(); report(null); } catch (e) { report(e); } finally { busy = false; }
  };
  const timer = setInterval(tick, ms);
  const onShow = () => { if (!document.hidden) tick(); };
  document.addEventListener("visibilitychange", onShow);
  cleanups.push(() => { clearInterval(timer); document.removeEventListener("visibilitychange", onShow); });
  return tick();
}

// Follows a log's SSE route. The browser reconnects a broken stream by itself
// and resumes after the last `id:` it saw (Last-Event-ID); if it gives up (the
// server answered something else than a stream while restarting), the stream
// is opened again after the last seq seen. An event is handled once: the log
// is dense and in order, so anything at or below the last seq is a replay.
function follow(path, probe, onEvent, indicator) {
  let last = 0, source = null, timer = null, finished = false;
  const state = (s, text) => { indicator.dataset.state = s; indicator.textContent = text; };
  const open = () => {
    source = new EventSource(last ? `${path}?after=${last}` : path);
    source.onopen = () => { state("open", "● live"); report(null); };
    source.onerror = () => {
      if (finished) return;
      state("closed", "○ reconnecting…");
      if (source.readyState !== EventSource.CLOSED) return;
      timer = setTimeout(() => api(probe).then(open, (e) => { report(e); if (!(e instanceof NeedsToken)) open(); }), 1500);
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        const event = JSON.parse(message.data);
        if (event.seq <= last) return;
        last = event.seq;
        if (type === "done") { finished = true; source.close(); state("done", "finished"); }
        onEvent(event);
      });
    }
  };
  open();
  cleanups.push(() => { finished = true; clearTimeout(timer); source.close(); });
}

// ---------- Pieces shared by views ----------

function pager(params, next, label = "Older") {
  const here = new URLSearchParams(params);
  const page = Number(here.get("page") || 1);
  const first = new URLSearchParams(here); first.delete("after"); first.delete("page");
  const onward = new URLSearchParams(here); onward.set("after", next || ""); onward.set("page", page + 1);
  return h("div", {class: "pager"},
    page > 1 && h("a", {href: `?${first}`, id: "first-page"}, "« First page"),
    h("span", {class: "muted", id: "page-number"}, `Page ${page}`),
    next != null && h("a", {href: `?${onward}`, id: "next-page", rel: "next"}, `${label} »`));
}

function runsTable(runs) {
  return table(["Run", "Status", "~Kind", "~Session", "~Steps", "Created"], runs,
    (r) => [idLink("runs", r.id), badge(r.status), r.kind, idLink("sessions", r.session_id), r.steps, when(r.created_at)],
    (r) => ({"data-run": r.id, "data-status": r.status}));
}

function toolBlock(name, input, attrs) {
  return h("div", {class: "tool", ...attrs}, h("span", {class: "name"}, name), h("pre", {class: "input"}, shownInput(input)));
}

// A call's input as a person reads it: a command as a shell line, the rest as JSON.
function shownInput(input) {
  return input && typeof input.command === "string" ? `$ ${input.command}` : pretty(input);
}

// Marks a call drawn in the timeline as run with a person's input, keeping
// what the model asked beside it.
function markEdited(container, decided) {
  const block = container.querySelector(`.step > .tool[data-call="${CSS.escape(decided.call_id)}"]`);
  if (!block || block.dataset.edited) return;
  block.dataset.edited = "true";
  block.querySelector("pre.input").textContent = shownInput(decided.input);
  block.append(h("div", {class: "edited muted"}, "edited by a person; the model asked: ",
    h("code", {}, shownInput(decided.original_input))));
}

// The buttons that decide the calls a run waits on: one choice per call
// (approve, edit its input, reject); the decisions go when every call has one.
function approvalBox(runId, calls) {
  const chosen = new Map(), edits = new Map();
  const note = h("input", {class: "note", placeholder: "A message for a rejection (optional)"});
  const said = h("p", {class: "muted"});
  let box = null;
  const send = async () => {
    box.querySelectorAll("button, textarea").forEach((b) => { b.disabled = true; });
    const decisions = calls.map((c) => {
      const decision = chosen.get(c.call_id);
      if (decision === "edit") return {call_id: c.call_id, decision, input: edits.get(c.call_id)};
      return decision === "reject" && note.value ? {call_id: c.call_id, decision, message: note.value} : {call_id: c.call_id, decision};
    });
    try {
      await api(`/runs/${encodeURIComponent(runId)}/approve`, {method: "POST", body: {decisions}});
      box.classList.add("decided");
      said.textContent = "Decided: the run is queued again.";
    } catch (e) {
      said.textContent = e.message;
      box.querySelectorAll("button, textarea").forEach((b) => { b.disabled = false; });
    }
  };
  const choose = (call, decision, pressed) => {
    chosen.set(call.call_id, decision);
    pressed.parentNode.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", b === pressed));
    if (chosen.size === calls.length) send();
  };
  const choice = (call, decision, label) => h("button", {type: "button", class: decision, "data-call": call.call_id,
    onclick: (e) => choose(call, decision, e.target)}, label);
  const editor = (call) => {
    const input = h("textarea", {class: "edit-input", "data-call": call.call_id, rows: 4, hidden: true,
      "aria-label": `The input ${call.call_id} runs with`}, pretty(call.input));
    const use = h("button", {type: "button", class: "edit-confirm", "data-call": call.call_id, hidden: true,
      onclick: (e) => {
        let parsed;
        try { parsed = JSON.parse(input.value); } catch (err) { said.textContent = `Not JSON: ${err.message}`; return; }
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) { said.textContent = "The input must be a JSON object."; return; }
        said.textContent = "";
        edits.set(call.call_id, parsed);
        choose(call, "edit", e.target.parentNode.querySelector("button.edit"));
      }}, "Run with this input");
    const open = h("button", {type: "button", class: "edit", "data-call": call.call_id,
      onclick: () => { input.hidden = false; use.hidden = false; input.focus(); }}, "Edit");
    return {open, input, use};
  };
  box = h("div", {class: "approval", "data-run": runId},
    h("h3", {}, calls.length > 1 ? "These calls wait for a decision" : "This call waits for a decision"),
    calls.map((c) => {
      const edit = editor(c);
      return h("div", {}, toolBlock(c.name, c.input),
        h("div", {class: "actions"}, choice(c, "approve", "Approve"), edit.open, choice(c, "reject", "Reject"), edit.input, edit.use));
    }),
    note, said);
  return box;
}

// The form that answers the calls of client tools a run waits on: an output
// and an "is an error" box per call, and one button that sends every result.
// It is drawn like a decision's box and marked "decided" once sent.
function toolResultsBox(runId, calls) {
  const said = h("p", {class: "muted"});
  const fieldsOf = calls.map((c) => ({call: c,
    output: h("textarea", {class: "result-output", "data-call": c.call_id, rows: 3, "aria-label": `Output of ${c.call_id}`}),
    error: h("input", {type: "checkbox", class: "result-error", "data-call": c.call_id})}));
  const button = h("button", {type: "submit", class: "send"}, calls.length > 1 ? "Send the results" : "Send the result");
  const send = async (e) => {
    e.preventDefault();
    button.disabled = true;
    const results = fieldsOf.map((f) => ({call_id: f.call.call_id, output: f.output.value, is_error: f.error.checked}));
    try {
      await api(`/runs/${encodeURIComponent(runId)}/tool-results`, {method: "POST", body: {results}});
      box.classList.add("decided");
      said.textContent = "Sent: the run is queued again.";
    } catch (err) {
      said.textContent = err.message;
      button.disabled = false;
    }
  };
  const box = h("form", {class: "approval tool-results", "data-run": runId, onsubmit: send},
    h("h3", {}, calls.length > 1 ? "These client tool calls wait for their results" : "This client tool call waits for its result"),
    fieldsOf.map((f) => h("div", {class: "result", "data-call": f.call.call_id}, toolBlock(f.call.name, f.call.input),
      f.output, h("label", {}, f.error, " is an error"))),
    h("div", {class: "actions"}, button), said);
  return box;
}

// What a waiting run asks for: the newest of its requests, a person's
// decision (`approval_requested`) or tool results (`tool_calls_requested`).
function newestRequest(events) {
  return events.filter((e) => e.type === "approval_requested" || e.type === "tool_calls_requested").pop();
}

// The box that answers a request: decisions, or tool results.
const answerBox = (runId, request) =>
  (request.type === "tool_calls_requested" ? toolResultsBox : approvalBox)(runId, request.calls);

function history(messages) {
  if (!messages.length) return h("p", {class: "muted"}, "No messages yet.");
  // Tool results travel in `user` messages, as the original API shows them.
  const role = (m) => (m.content.length && m.content.every((b) => b.type === "tool_result") ? "tool results" : m.role);
  return h("div", {}, messages.map((m) => h("div", {class: "message"}, h("div", {class: "role"}, role(m)),
    m.content.map((block) => {
      if (block.type === "text") return h("div", {class: "text"}, block.text);
      if (block.type === "compaction") {
        // A marker: what the agent is sent from here on.
        const what = `compacted: ${block.summarized_messages} messages summarized, ${block.pruned_results} tool `
          + `results pruned (${block.tokens_before} → ${block.tokens_after} tokens)`;
        return h("div", {class: "compaction"}, h("div", {class: "muted"}, what),
          block.summary ? h("div", {class: "text"}, block.summary) : "");
      }
      if (block.type === "tool_use") return toolBlock(block.name, block.input);
      if (block.type === "tool_result") {
        const output = typeof block.content === "string" ? block.content : pretty(block.content);
        return h("pre", {class: "output", "data-error": !!block.is_error}, output);
      }
      return h("pre", {}, pretty(block));
    }))));
}

// ---------- Views ----------

async function queueView() {
  const cards = h("div", {class: "cards"});
  const why = h("div", {class: "cards"});
  const flow = h("div");
  const budgets = h("div");
  const workers = h("div");
  const recent = h("div");
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Queue"), cards,
    section("Why queued runs are not running", why), section("Priorities, keys and what starts next", flow),
    section("Provider budgets", budgets), section("Workers and their leases", workers), section("Latest runs", recent));
  const card = (n, label, href, title) => h(href ? "a" : "div", {class: "card", href, title, "data-count": label}, h("span", {class: "n"}, n), h("span", {class: "label"}, label));
  await every(2000, async () => {
    const [health, listed, waiting, latest, queue] = await Promise.all([api("/health"), adminView("/workers"),
      api("/runs?status=waiting&limit=100"), api("/runs?order=desc&limit=10"), adminView("/queue?next=10")]);
    const waits = waiting.runs.length + (waiting.next_after ? "+" : "");
    cards.replaceChildren(card(health.queue.queued, "queued", "/ui/runs?status=queued"),
      card(health.queue.running, "running", "/ui/runs?status=running"), card(waits, "waiting", "/ui/approvals"),
      card(health.queue.workers, "live workers"));
    recent.replaceChildren(runsTable(latest.runs), h("p", {}, h("a", {href: "/ui/runs"}, "All runs »")));
    if (!queue || !listed) {
      const note = () => h("p", {class: "muted", "data-admin-only": ""}, "Shown to an admin's key: it counts every owner's work.");
      for (const part of [why, flow, budgets, workers]) part.replaceChildren(note());
      return;
    }
    const q = queue.queued;
    why.replaceChildren(card(q.ready, "ready", null, "Each waits for a worker with room"),
      card(q.session_busy, "session busy", null, "Behind an unfinished run of their session, which runs its messages one at a time"),
      card(q.fleet_at_cap, "fleet at cap", null, "Fleet tasks behind their fleet's worker_count"),
      card(q.key_at_limit, "key at limit", null, "Held: their concurrency key has as many runs running as its limit"),
      card(q.rate_limited, "rate limited", null, "Handed back until their provider budget's share comes within reach"));
    flow.replaceChildren(
      table(["Priority", "Queued", "Running"], queue.by_priority, (p) => [p.priority, p.queued, p.running],
        (p) => ({"data-priority": p.priority})),
      queue.keys.length ? table(["Concurrency key", "Limit", "Running", "Queued", "Held"], queue.keys,
        (k) => [h("code", {}, k.key), k.limit, k.running, k.queued, k.held], (k) => ({"data-key": k.key})) : "",
      table(["Next to start", "Priority", "Key", "Queued"], queue.next,
        (r) => [idLink("runs", r.run_id), r.priority, r.concurrency_key ? h("code", {}, r.concurrency_key) : "—", when(r.queued_at)],
        (r) => ({"data-next": r.run_id})));
    budgets.replaceChildren(queue.budgets.length ? budgetsTable(queue.budgets)
      : h("p", {class: "muted"}, "No provider limits declared or learned."));
    workers.replaceChildren(table(["Worker", "Status", "Lease expires", "~Started", "Runs it holds"], listed.workers,
      (w) => [h("span", {title: w.id}, w.name, " ", h("code", {class: "muted"}, shortId(w.id))), badge(w.status),
        w.status === "stopped" ? "—" : when(w.lease_expires_at), when(w.started_at),
        w.runs.length ? w.runs.map((id) => [idLink("runs", id), " "]) : h("span", {class: "muted"}, "none")],
      (w) => ({"data-worker": w.id, "data-status": w.status})));
  });
}

// Provider budgets: the limits in force (marked when learned from the
// provider), a pause, and the inferences waiting for their share.
function budgetsTable(budgets) {
  const limit = (n, learned) => (n === undefined ? "—"
    : learned === n ? [String(n), " ", h("span", {class: "muted", title: "Learned from the provider"}, "learned")] : String(n));
  return table(["Budget", "Requests/min", "Tokens/min", "At once", "Paused until", "Waiting", "In flight"], budgets,
    (b) => [h("code", {}, b.name), limit(b.requests_per_minute, b.learned_requests_per_minute),
      limit(b.tokens_per_minute, b.learned_tokens_per_minute), b.declared?.max_concurrent ?? "—",
      b.paused_until ? when(b.paused_until) : "—", b.waiting, b.in_flight],
    (b) => ({"data-budget": b.name, "data-paused": !!b.paused_until}));
}

async function runsView() {
  const params = new URLSearchParams(location.search);
  const status = h("select", {name: "status", id: "status-filter", onchange: (e) => e.target.form.submit()},
    h("option", {value: ""}, "any status"), STATUSES.map((s) => h("option", {value: s, selected: params.get("status") === s}, s)));
  const session = h("input", {name: "session_id", placeholder: "session ID", value: params.get("session_id") || ""});
  const fleetRun = h("input", {name: "fleet_run_id", placeholder: "fleet run ID", value: params.get("fleet_run_id") || ""});
  const list = h("div");
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Runs"),
    h("form", {class: "filters", method: "get", action: "/ui/runs"}, status, session, fleetRun, h("button", {}, "Filter")), list);
  const query = new URLSearchParams({order: "desc", limit: PAGE});
  for (const key of ["status", "session_id", "fleet_run_id", "after"]) if (params.get(key)) query.set(key, params.get(key));
  await every(3000, async () => {
    const page = await api(`/runs?${query}`);
    list.replaceChildren(runsTable(page.runs), pager(params, page.next_after));
  });
}

async function runView(id) {
  const path = `/runs/${encodeURIComponent(id)}`;
  const summary = h("div");
  const actions = h("div", {class: "actions"});
  const events = h("div", {class: "timeline", id: "events"});
  const indicator = h("span", {class: "live", id: "live"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Run ", h("code", {}, id)), summary,
    actions, h("h2", {}, "Events ", indicator), events);
  let controlled = false;
  const refresh = async () => {
    const run = await api(path);
    summary.replaceChildren(fields([["Status", badge(run.status)], ["Kind", run.kind], ["Attempt", run.attempt],
      ["Agent", h("code", {}, run.agent_id)], ["Session", idLink("sessions", run.session_id)],
      run.fleet_run_id && ["Fleet run", [idLink("fleet-runs", run.fleet_run_id), ` task ${run.task_index}`]],
      run.parent_run_id && ["Parent run", h("span", {id: "parent-run"}, idLink("runs", run.parent_run_id),
        ` call ${run.parent_call_id}`)],
      run.children && run.children.length && ["Sub-agents", h("ul", {id: "children", class: "children"},
        run.children.map((c) => h("li", {"data-child": c.run_id}, idLink("runs", c.run_id), " ", badge(c.status),
          h("span", {class: "muted"}, ` call ${c.call_id}`)))), true],
      run.input.retry_of && ["Retry of", h("span", {id: "retry-of"}, idLink("runs", run.input.retry_of.run_id),
        ` from step ${run.input.retry_of.from_step}`)],
      ["Message", h("div", {class: "text"}, run.input.message), true], ["Created", when(run.created_at)],
      ["Started", when(run.started_at)], ["Finished", when(run.finished_at)], ["Steps", run.steps],
      ["Tokens", `${run.usage.input_tokens} in, ${run.usage.output_tokens} out`],
      run.error && ["Error", h("span", {class: "error"}, run.error), true],
      run.response && ["Response", h("div", {class: "text"}, run.response), true]]));
    summary.dataset.status = run.status;
    // Drawn once, so a message being typed survives the refreshes.
    if (TERMINAL.includes(run.status)) {
      if (controlled !== "ended") actions.replaceChildren(...retryControls(run));
      controlled = "ended";
    } else {
      if (!controlled) actions.replaceChildren(...controls(path, refresh));
      controlled = true;
    }
  };
  await refresh();
  const lifecycle = ["run_started", "run_handed_back", "run_resumed", "approval_requested", "approval_decided",
    "tool_calls_requested", "tool_results_received", "subagent_started", "subagent_finished", "done"];
  const draw = timeline(events, id);
  follow(`${path}/events`, path, (event) => {
    draw(event);
    if (lifecycle.includes(event.type)) refresh().catch(report);
  }, indicator);
}

function controls(path, refresh) {
  const message = h("input", {placeholder: "Steer: a message for its next step", required: true});
  const steer = async (e) => {
    e.preventDefault();
    try { await api(`${path}/steer`, {method: "POST", body: {message: message.value}}); message.value = ""; } catch (err) { report(err); }
  };
  const cancel = async () => {
    try { await api(`${path}/cancel`, {method: "POST"}); await refresh(); } catch (err) { report(err); }
  };
  return [h("form", {class: "filters", onsubmit: steer}, message, h("button", {}, "Steer")),
    h("button", {type: "button", class: "danger", onclick: cancel}, "Cancel run")];
}

// Marks a box that waited for an answer as answered, its controls off.
function closeBox(box) {
  if (!box) return;
  box.classList.add("decided");
  box.querySelectorAll("button, textarea, input").forEach((b) => { b.disabled = true; });
}

// Draws a run's events as they come: each step's text as it streams, tool
// calls with their results, the rest as one line each. Every element carries
// the seq of the event it shows.
function timeline(container, runId) {
  const steps = new Map(), calls = new Map();
  let waiting = null;
  const step = (n) => {
    if (!steps.has(n)) {
      const box = h("section", {class: "step", "data-step": n}, h("h3", {}, `Step ${n}`));
      steps.set(n, {box, text: null, thinking: null});
      container.append(box);
    }
    return steps.get(n);
  };
  const line = (event, ...detail) => h("div", {class: "event", "data-seq": event.seq, "data-type": event.type},
    h("span", {class: "type"}, event.type.replace(/_/g, " ")), detail.length ? " · " : "", detail);
  // Who took a person's action: the key's owner, and its name if it has one.
  const by = (event) => event.by ? ` — by ${event.by.owner}${event.by.name ? ` (${event.by.name})` : ""}` : "";
  return (e) => {
    const answer = e.type === "approval_decided" || e.type === "tool_results_received";
    const s = e.step !== undefined && !answer ? step(e.step) : null;
    switch (e.type) {
      case "step_started": {
        const head = s.box.firstChild;
        if (head.dataset.seq) s.box.append(line(e)); else head.dataset.seq = e.seq;
        break;
      }
      case "text_delta":
        if (!s.text) { s.text = h("div", {class: "text"}); s.box.append(s.text); }
        s.text.append(h("span", {"data-seq": e.seq}, e.text));
        break;
      case "thinking_delta":
        if (!s.thinking) { s.thinking = h("div", {class: "text thinking", title: "thinking"}); s.box.append(s.thinking); }
        s.thinking.append(h("span", {"data-seq": e.seq}, e.text));
        break;
      case "step_restarted":
        s.box.querySelectorAll(".text span").forEach((span) => span.classList.add("void"));
        s.text = null;
        s.thinking = null;
        s.box.append(line(e, `attempt ${e.attempt}: ${e.reason || "the step starts over"}; the text above is void`));
        break;
      case "tool_call": {
        const output = h("pre", {class: "output muted"}, "running…");
        calls.set(e.call_id, output);
        s.box.append(toolBlock(e.name, e.input, {"data-seq": e.seq, "data-call": e.call_id}), output);
        break;
      }
      case "tool_result": {
        const output = h("pre", {class: "output", "data-seq": e.seq, "data-error": !!e.is_error}, e.output);
        const placeholder = calls.get(e.call_id);
        if (placeholder) placeholder.replaceWith(output); else s.box.append(output);
        calls.set(e.call_id, output);
        break;
      }
      case "step_completed":
        s.box.append(line(e, `${e.stop_reason}, ${e.usage.input_tokens} in / ${e.usage.output_tokens} out`));
        break;
      case "approval_requested":
        s.box.append(line(e, `${e.calls.length} call(s) wait for a person`));
        waiting = approvalBox(runId, e.calls);
        s.box.append(waiting);
        break;
      case "approval_decided":
        closeBox(waiting);
        container.append(line(e, e.decisions.map((d) => `${d.call_id}: ${d.decision}`).join(", ") + by(e)));
        e.decisions.filter((d) => d.decision === "edit").forEach((d) => markEdited(container, d));
        break;
      case "tool_calls_requested":
        s.box.append(line(e, `${e.calls.length} call(s) wait for their results from the client`));
        waiting = toolResultsBox(runId, e.calls);
        s.box.append(waiting);
        break;
      case "tool_results_received":
        // Each output came before this, as the call's tool_result.
        closeBox(waiting);
        container.append(line(e, e.call_ids.join(", ") + by(e)));
        break;
      case "run_started": container.append(line(e, `attempt ${e.attempt}, worker ${e.worker_id}`)); break;
      case "steered": container.append(line(e, e.message + by(e))); break;
      case "subagent_started":
        s.box.append(line(e, "run ", idLink("runs", e.child_run_id), ` answers ${e.call_id}`));
        break;
      case "subagent_finished":
        s.box.append(line(e, "run ", idLink("runs", e.child_run_id), " ", badge(e.status)));
        break;
      case "tool_source_unavailable": s.box.append(line(e, `MCP server ${e.server}: ${e.error}`)); break;
      case "step_output_exceeded": container.append(line(e, `${e.bytes} bytes streamed, over ${e.limit}`)); break;
      case "rate_limited":
        container.append(line(e, `waits for ${e.budget} (${e.reason.replaceAll("_", " ")}) until ${e.until}`));
        break;
      case "budget_exhausted":
        container.append(line(e, e.owner !== undefined
          ? `owner ${e.owner} spent $${e.spent_usd} of $${e.limit_usd} today (max_cost_usd_per_day)`
          : e.limit_usd !== undefined ? `spent $${e.spent_usd} of $${e.limit_usd}`
          : `spent ${e.spent_tokens} tokens of ${e.limit_tokens}`));
        break;
      case "loop_detected": container.append(line(e, `${e.name} called ${e.repeats} times in a row`)); break;
      case "step_reused": {
        const calls = e.tool_calls.map((c) => `${c.name}${c.is_error ? " (error)" : ""}`).join(", ");
        step(e.step).box.append(line(e, "taken from run ", idLink("runs", e.from_run_id), calls ? `: ${calls}` : ""));
        break;
      }
      case "compaction_started": container.append(line(e, `${e.reason}: about ${e.tokens_before} tokens`)); break;
      case "compaction_completed":
        container.append(line(e, `${e.tokens_before} → ${e.tokens_after} tokens; ${e.summarized_messages} messages `
          + `summarized, ${e.pruned_results} tool results pruned`));
        break;
      case "done": container.append(line(e, badge(e.status), e.error ? ` ${e.error}` : "", by(e))); break;
      default: container.append(line(e));
    }
  };
}

async function sessionsView() {
  const params = new URLSearchParams(location.search);
  const list = h("div");
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Sessions"), list);
  const query = new URLSearchParams({order: "desc", limit: PAGE});
  if (params.get("after")) query.set("after", params.get("after"));
  await every(5000, async () => {
    const sessions = await api(`/sessions?${query}`);
    const next = sessions.length === PAGE ? sessions[sessions.length - 1].id : null;
    list.replaceChildren(table(["Session", "Title", "~Agent", "Messages", "Updated"], sessions,
      (s) => [idLink("sessions", s.id), s.title || "—", h("code", {}, shortId(s.agent_id)), s.history.length, when(s.updated_at)],
      (s) => ({"data-session": s.id})), pager(params, next));
  });
}

async function sessionView(id) {
  const path = `/sessions/${encodeURIComponent(id)}`;
  // `?branch=N` or `?at=<run>`: the history as it was then.
  const params = new URLSearchParams(location.search);
  const query = params.get("branch") ? `?branch=${encodeURIComponent(params.get("branch"))}`
    : params.get("at") ? `?at=${encodeURIComponent(params.get("at"))}` : "";
  const shown = params.get("branch") ? `of branch ${params.get("branch")}, as it was set aside`
    : params.get("at") ? "as it was after that run" : null;
  const about = h("div"), talk = h("div", {id: "history"}), runs = h("div"), branches = h("div"), actions = h("div");
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Session ", h("code", {}, id)), about,
    section("History", talk), section("Branches", branches), section("Fork or rewind", actions),
    section("Runs, newest first", runs));
  let controlled = false;
  const draw = async () => {
    const [session, page] = await Promise.all([api(`${path}${query}`),
      api(`/runs?session_id=${encodeURIComponent(id)}&order=desc&limit=20`)]);
    about.replaceChildren(fields([["Title", session.title], ["Agent", h("code", {}, session.agent_id || "—")],
      ["Created", when(session.created_at)], ["Work dir", h("code", {}, session.work_dir), true],
      ["Metadata", h("code", {}, JSON.stringify(session.metadata)), true]]));
    talk.replaceChildren(history(session.history));
    // Redrawn only when they change, so that a link is not replaced under a click.
    const listed = JSON.stringify([session.forked_from, session.branches]);
    if (listed !== branches.dataset.listed) branches.replaceChildren(branchesOf(id, session, shown));
    branches.dataset.listed = listed;
    if (!controlled) actions.replaceChildren(branchControls(id, page.runs, draw));
    controlled = page.runs.some((r) => TERMINAL.includes(r.status));
    runs.replaceChildren(runsTable(page.runs),
      page.next_after ? h("a", {href: `/ui/runs?session_id=${encodeURIComponent(id)}`}, "Every run of this session »") : "");
  };
  await every(4000, draw);
}

function progressOf(p) {
  const done = p.succeeded + p.failed + p.cancelled;
  return h("span", {}, h("progress", {max: p.total || 1, value: done}), ` ${done}/${p.total}`);
}

async function fleetsView() {
  const params = new URLSearchParams(location.search);
  const fleets = h("div"), runs = h("div");
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Fleets"), fleets,
    section("Fleet runs, newest first", runs));
  const query = new URLSearchParams({order: "desc", limit: PAGE});
  if (params.get("after")) query.set("after", params.get("after"));
  await every(3000, async () => {
    const [defined, page] = await Promise.all([api("/fleets"), api(`/fleet-runs?${query}`)]);
    const names = new Map(defined.map((f) => [f.id, f.name]));
    fleets.replaceChildren(table(["Fleet", "Status", "~Agent", "At once"], defined,
      (f) => [h("span", {title: f.id}, f.name), badge(f.status), h("code", {}, shortId(f.agent_id)), f.worker_count || "no cap"]));
    runs.replaceChildren(table(["Fleet run", "Fleet", "Status", "Progress", "~Created"], page.fleet_runs,
      (r) => [idLink("fleet-runs", r.id), names.get(r.fleet_id) || shortId(r.fleet_id), badge(r.status), progressOf(r.progress), when(r.created_at)],
      (r) => ({"data-fleet-run": r.id})), pager(params, page.next_after));
  });
}

async function fleetRunView(id) {
  const path = `/fleet-runs/${encodeURIComponent(id)}`;
  const params = new URLSearchParams(location.search);
  const about = h("div"), bar = h("progress", {id: "progress", max: 1, value: 0}), count = h("span", {id: "progress-text"});
  const tasks = h("div"), indicator = h("span", {class: "live", id: "live"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Fleet run ", h("code", {}, id)), about,
    h("h2", {}, "Progress ", indicator), bar, count, section("Tasks", tasks),
    h("p", {}, h("a", {href: `/ui/runs?fleet_run_id=${encodeURIComponent(id)}`, id: "as-runs"}, "Its tasks among the runs »")));
  const query = new URLSearchParams({limit: 100});
  if (params.get("after")) query.set("after", params.get("after"));
  const refresh = async () => {
    const run = await api(`${path}?${query}`);
    about.replaceChildren(fields([["Status", badge(run.status)], ["Fleet", h("code", {}, run.fleet_id)],
      ["At once", run.worker_count || "no cap"], ["Created", when(run.created_at)], ["Finished", when(run.finished_at)]]),
      TERMINAL.includes(run.status) ? "" : h("button", {type: "button", class: "danger", onclick: () => api(`${path}/cancel`, {method: "POST"}).then(refresh, report)}, "Cancel fleet run"));
    tasks.replaceChildren(table(["Task", "Status", "Run", "~Response"], run.tasks,
      (t) => [t.task_index, badge(t.status), idLink("runs", t.run_id), h("span", {class: "muted"}, (t.error || t.response || "").slice(0, 120))],
      (t) => ({"data-task": t.task_index})), pager(params, run.next_after, "Next tasks"));
  };
  await refresh();
  // Progress comes from the log: `fleet_queued` says how many tasks, each
  // `result` ends one.
  const counts = {total: 0, succeeded: 0, failed: 0, cancelled: 0};
  const show = () => {
    const done = counts.succeeded + counts.failed + counts.cancelled;
    bar.max = counts.total || 1; bar.value = done;
    count.dataset.done = done; count.dataset.total = counts.total;
    count.textContent = ` ${done}/${counts.total} done · ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.cancelled} cancelled`;
  };
  follow(`${path}/events`, path, (e) => {
    if (e.type === "fleet_queued") counts.total = e.tasks;
    if (e.type === "result" && e.status in counts) {
      counts[e.status] += 1;
      const row = tasks.querySelector(`tr[data-task="${e.task_index}"] td:nth-child(2)`);
      if (row) row.replaceChildren(badge(e.status));
    }
    if (e.type === "done") { Object.assign(counts, {succeeded: e.succeeded, failed: e.failed, cancelled: e.cancelled}); refresh().catch(report); }
    show();
  }, indicator);
}

async function approvalsView() {
  const list = h("div", {id: "approvals"}), more = h("p", {class: "muted"});
  main.replaceChildren(h("div", {id: "problem", class: "problem"}), h("h1", {}, "Runs waiting for a person"), list, more);
  const cards = new Map();
  await every(3000, async () => {
    const page = await api("/runs?status=waiting&limit=50");
    more.textContent = page.next_after ? "More runs wait: these are the 50 that have waited longest." : "";
    const ids = new Set(page.runs.map((r) => r.id));
    for (const [id, card] of cards) if (!ids.has(id) && !card.querySelector(".approval.decided")) { card.remove(); cards.delete(id); }
    // A card already answered is drawn again when its run asks for something
    // new (tool results after a decision, say): a request of a higher seq.
    for (const run of page.runs) {
      const shown = cards.get(run.id);
      if (shown && !shown.querySelector(".approval.decided")) continue;
      const events = await allEvents(`/runs/${encodeURIComponent(run.id)}/events`);
      const asked = newestRequest(events);
      if (!asked || (shown && Number(shown.dataset.seq) >= asked.seq)) continue;
      const card = h("div", {class: "card", "data-run": run.id, "data-seq": asked.seq},
        h("p", {}, "Run ", idLink("runs", run.id), " of session ", idLink("sessions", run.session_id), " · waiting ", when(run.updated_at)),
        h("div", {class: "text muted"}, run.input.message), answerBox(run.id, asked));
      if (shown) shown.replaceWith(card); else list.append(card);
      cards.set(run.id, card);
    }
    if (!cards.size) list.replaceChildren(h("p", {class: "muted", id: "none-waiting"}, "No run waits for a decision or for tool results."));
    else list.querySelector("#none-waiting")?.remove();
  });
}

// ---------- Start ----------

const VIEWS = {queue: queueView, runs: runsView, run: runView, sessions: sessionsView, session: sessionView,
  fleets: fleetsView, "fleet-run": fleetRunView, approvals: approvalsView};

async function start() {
  stopAll();
  drawAuth();
  // /ui/runs/{id}: the ID is the path's fourth part.
  const id = decodeURIComponent(location.pathname.split("/")[3] || "");
  try {
    await VIEWS[document.body.dataset.view](id);
    // The view's first draw is done (a mark tests and scripts can wait for).
    if (!document.getElementById("token-form")) main.dataset.drawn = "yes";
  } catch (e) {
    if (e instanceof NeedsToken) return;
    main.prepend(h("p", {class: "problem"}, `The server said: ${e.message}`));
  }
}

// After every script of the page has run (formations.js adds its views).
document.addEventListener("DOMContentLoaded", start);
