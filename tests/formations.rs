//! Formations through the real binaries, on both backends: the seed's two
//! examples (a chain with a function between two agents; outline → a fleet
//! of researchers → assembly) run to their exact outputs; bad graphs and
//! inputs are refused and write nothing; a cancel stops what runs and starts
//! nothing new; a SIGKILL storm mid-formation starts each node once.

mod common;

use std::time::Duration;

use common::storm::storm;
use common::{assert_dense, report_figure, Api, Backend, Process, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(120);

async fn formation(api: &Api, body: Value) -> String {
    let (status, formation) = api.post("/formations", body).await;
    assert_eq!(status, 201, "create formation: {formation}");
    formation["id"].as_str().unwrap().to_string()
}

/// Runs a formation with `input` and waits for its end (`?wait=true`).
async fn run_to_end(api: &Api, formation: &str, input: Value) -> Value {
    let (status, answer) = api.post(&format!("/formations/{formation}/run?wait=true"), json!({"input": input})).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

fn node<'a>(run: &'a Value, id: &str) -> &'a Value {
    run["nodes"].as_array().unwrap().iter().find(|n| n["node"] == id).unwrap_or_else(|| panic!("no node {id}: {run}"))
}

fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            format!(
                "{}{}",
                e["type"].as_str().unwrap(),
                e["node"].as_str().map(|n| format!(":{n}")).unwrap_or_default()
            )
        })
        .collect()
}

/// An agent that answers `text` whatever it is asked.
fn says(name: &str, text: &str) -> Value {
    json!({"name": name, "options": {"script": [{"text": text}]}})
}

on_both_backends! {
async fn a_chain_with_a_function_between_two_agents(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let api = server.api();
    let drafter = api.create_agent(says("drafter", r#"{"title": "Owls at night", "points": ["eyes", "wings"]}"#)).await;
    let writer = api.create_agent(json!({"name": "writer"})).await;
    let chain = formation(&api, json!({"name": "chain", "nodes": [
        {"id": "draft", "agent_id": drafter},
        {"id": "title", "function": "json_path", "args": {"path": "$.title"}},
        {"id": "write", "agent_id": writer}],
        "edges": [{"from": "draft", "to": "title"}, {"from": "title", "to": "write"}]})).await;
    let answer = run_to_end(&api, &chain, json!("Plan an essay")).await;
    assert_eq!(answer["status"], "succeeded", "{answer}");
    assert_eq!(answer["outputs"], json!({"write": "Owls at night"}), "the writer (echo) answered the function's output");
    let id = answer["formation_run_id"].as_str().unwrap();
    let (_, run) = api.get(&format!("/formation-runs/{id}")).await;
    assert_eq!(node(&run, "title")["input"], r#"{"title": "Owls at night", "points": ["eyes", "wings"]}"#);
    assert_eq!(node(&run, "title")["output"], "Owls at night");
    let write_run = node(&run, "write")["run_id"].as_str().unwrap().to_string();
    let (_, page) = api.get(&format!("/runs?formation_run_id={id}")).await;
    let runs: Vec<&str> = page["runs"].as_array().unwrap().iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(runs, ["formation_node", "formation_node"], "{page}");
    let written = api.run(&write_run).await;
    assert_eq!((written["input"]["message"].as_str(), written["formation_run_id"].as_str()), (Some("Owls at night"), Some(id)));
    let events = api.get(&format!("/formation-runs/{id}/events")).await.1.as_array().unwrap().clone();
    assert_dense(&events);
    assert_eq!(kinds(&events), ["formation_queued", "node_started:draft", "node_finished:draft", "node_started:title",
        "node_finished:title", "node_started:write", "node_finished:write", "done"]);
    assert_eq!(events[0]["formation_run_id"], id, "the log is named by the formation run");
    assert_eq!(events[1]["run_id"], node(&run, "draft")["run_id"], "node_started names the node's run");
}
}

on_both_backends! {
async fn outline_then_a_fleet_of_researchers_then_assembly(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let api = server.api();
    // Its answer streams for about 1.5 s, during which the formation's log is quiet.
    let outline = api.create_agent(json!({"name": "outline",
        "options": {"script": [{"text": "Eyes\nWings\n\nSong"}], "chunk_delay_ms": 1500}})).await;
    let researcher = api.create_agent(json!({"name": "researcher", "options": {"chunk_delay_ms": 20}})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "researchers", "agent_id": researcher, "worker_count": 2})).await;
    let assembler = api.create_agent(json!({"name": "assembler"})).await;
    let essay = formation(&api, json!({"name": "essay", "nodes": [
        {"id": "outline", "agent_id": outline},
        {"id": "sections", "function": "split_lines"},
        {"id": "research", "fleet_id": fleet["id"]},
        {"id": "joined", "function": "join", "args": {"separator": " | "}},
        {"id": "assemble", "agent_id": assembler}],
        "edges": [{"from": "outline", "to": "sections"}, {"from": "sections", "to": "research"},
                  {"from": "research", "to": "joined"}, {"from": "joined", "to": "assemble"}]})).await;
    let (status, accepted) = api.post(&format!("/formations/{essay}/run"), json!({"input": "Owls"})).await;
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["formation_run_id"].as_str().unwrap().to_string();
    assert_eq!(node(&accepted, "outline")["status"], "running", "the entry node starts with the run: {accepted}");
    assert_eq!(node(&accepted, "research")["status"], "pending");

    let (tail, done) = api.sse_read_at(&format!("/formation-runs/{id}/events"), None, None).await;
    assert!(done, "{tail:?}");
    let (_, run) = api.get(&format!("/formation-runs/{id}")).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["outputs"], json!({"assemble": "Eyes | Wings | Song"}));
    assert_eq!(node(&run, "sections")["output"], json!(["Eyes", "Wings", "Song"]));
    assert_eq!(node(&run, "research")["output"], json!(["Eyes", "Wings", "Song"]), "the responses in task order");
    let fleet_run = node(&run, "research")["fleet_run_id"].as_str().unwrap();
    let (_, fleet_run) = api.get(&format!("/fleet-runs/{fleet_run}")).await;
    assert_eq!(fleet_run["progress"]["succeeded"], 3, "{fleet_run}");
    // Replay is exact: the tail read in pieces is the stored log.
    let stored = api.get(&format!("/formation-runs/{id}/events")).await.1.as_array().unwrap().clone();
    assert_dense(&stored);
    assert_eq!(tail, stored);
    let (first, _) = api.sse_read_at(&format!("/formation-runs/{id}/events"), None, Some(4)).await;
    let (rest, done) = api.sse_read_at(&format!("/formation-runs/{id}/events"), Some(4), None).await;
    assert!(done);
    assert_eq!([first, rest].concat(), stored);
}
}

on_both_backends! {
async fn bad_graphs_and_inputs_are_refused_and_write_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "a"})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let fleet = fleet["id"].as_str().unwrap().to_string();
    let a = |id: &str| json!({"id": id, "agent_id": agent});
    let cases = [
        (json!({"name": "x", "nodes": [a("p"), a("q")], "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "p"}]}), "no entry node"),
        (json!({"name": "x", "nodes": [a("p"), a("q"), a("r")],
            "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "r"}, {"from": "r", "to": "q"}]}), "a cycle: the nodes q, r"),
        (json!({"name": "x", "nodes": [a("p")], "edges": [{"from": "p", "to": "nope"}]}), "unknown node \"nope\""),
        (json!({"name": "x", "nodes": [a("p"), a("q")], "edges": [{"from": "p", "to": "p"}]}), "feeds itself"),
        (json!({"name": "x", "nodes": [a("p"), {"id": "r", "fleet_id": fleet}], "edges": [{"from": "p", "to": "r"}]}),
            "takes a list but is fed text"),
        (json!({"name": "x", "nodes": []}), "1 to 200 nodes"),
        (json!({"name": "x", "nodes": [{"id": "p", "function": "eval"}]}), "unknown function"),
    ];
    for (body, expected) in cases {
        let (status, answer) = api.post("/formations", body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains(expected), "{expected:?} in {answer}");
    }
    for (body, expected) in [
        (json!({"name": "x", "nodes": [{"id": "p", "agent_id": "NOPE"}]}), "agent NOPE"),
        (json!({"name": "x", "nodes": [{"id": "p", "fleet_id": "NOPE"}]}), "fleet NOPE"),
    ] {
        let (status, answer) = api.post("/formations", body).await;
        assert_eq!(status, 404, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains(expected), "{expected:?} in {answer}");
    }
    let (status, answer) = api.post("/formations", json!({"name": "x", "nodes": [a("p")], "extra": 1})).await;
    assert_eq!(status, 422, "{answer}");
    let (_, all) = api.get("/formations").await;
    assert_eq!(all, json!([]), "nothing was written");

    let entry_fleet = formation(&api, json!({"name": "fan", "nodes": [{"id": "r", "fleet_id": fleet}]})).await;
    let (status, answer) = api.post(&format!("/formations/{entry_fleet}/run"), json!({"input": "not a list"})).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("takes a list"), "{answer}");
    let (status, _) = api.post("/formations/NOPE/run", json!({"input": []})).await;
    assert_eq!(status, 404);
    assert_eq!(env.count("SELECT COUNT(*) FROM formation_runs", &[]).await, 0);
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, 0);
    // An empty list runs no task: the node gives an empty list at once.
    let answer = run_to_end(&api, &entry_fleet, json!([])).await;
    assert_eq!((answer["status"].as_str(), &answer["outputs"]), (Some("succeeded"), &json!({"r": []})), "{answer}");
    let (status, _) = api.request(reqwest::Method::DELETE, &format!("/formations/{entry_fleet}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(api.get(&format!("/formations/{entry_fleet}")).await.0, 404);
}
}

on_both_backends! {
async fn cancel_stops_what_runs_and_starts_nothing_new(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let api = server.api();
    let sleeper = api.create_agent(json!({"name": "sleeper", "tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]}, {"text": "woke"}]}})).await;
    let after = api.create_agent(json!({"name": "after"})).await;
    let pair = formation(&api, json!({"name": "pair", "nodes": [{"id": "slow", "agent_id": sleeper}, {"id": "next", "agent_id": after}],
        "edges": [{"from": "slow", "to": "next"}]})).await;
    let (_, accepted) = api.post(&format!("/formations/{pair}/run"), json!({"input": "go"})).await;
    let id = accepted["formation_run_id"].as_str().unwrap().to_string();
    let slow_run = node(&accepted, "slow")["run_id"].as_str().unwrap().to_string();
    api.wait_event(&slow_run, LIMIT, |e| e["type"] == "tool_call").await;
    let (status, body) = api.post(&format!("/formation-runs/{id}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "cancelled", "nothing runs any more, so it ended at once: {body}");
    assert_eq!(node(&body, "slow")["status"], "cancelled");
    assert_eq!(node(&body, "next")["status"], "pending", "nothing new started");
    let slow = api.wait_terminal(&slow_run, LIMIT).await;
    assert_eq!((slow["status"].as_str(), slow["error"].as_str()), (Some("cancelled"), Some("its formation run ended")));
    let events = api.get(&format!("/formation-runs/{id}/events")).await.1.as_array().unwrap().clone();
    assert_dense(&events);
    assert_eq!(kinds(&events), ["formation_queued", "node_started:slow", "node_finished:slow", "done"]);
    assert_eq!(events.last().unwrap()["status"], "cancelled");
    let (status, _) = api.post(&format!("/formation-runs/{id}/cancel"), json!({})).await;
    assert_eq!(status, 409);
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, 1, "the second node never started");
}
}

/// The storm's fleet node's tasks: three at a time, so it lasts through several kills.
const TASKS: usize = 30;

/// Researchers that each run a slow bash step leaving its mark in the
/// task's own directory, then answer their task.
fn marking_researcher() -> Value {
    json!({"name": "researcher", "tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 0.6; echo x >> marks"}}]},
        {"echo": true}]}})
}

on_both_backends! {
async fn a_kill_storm_mid_formation_starts_each_node_once_and_the_output_is_exact(backend: Backend) {
    let mut env = TestEnv::on(backend);
    // One run per worker: the fleet node's three slots keep all three
    // workers busy, so a kill during it always hits a run (with four runs a
    // worker, one worker could hold every slot and the kills miss it).
    env.set("WINGMAN_CONCURRENCY", "1");
    env.set("WINGMAN_MAX_ATTEMPTS", "20");
    let mut server = env.server(0);
    let api = server.api();
    let sections: Vec<String> = (1..=TASKS).map(|i| format!("section-{i}")).collect();
    let outline = api.create_agent(says("outline", &sections.join("\n"))).await;
    let researcher = api.create_agent(marking_researcher()).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "r", "agent_id": researcher, "worker_count": 3})).await;
    let assembler = api.create_agent(json!({"name": "assembler"})).await;
    let essay = formation(&api, json!({"name": "essay", "nodes": [
        {"id": "outline", "agent_id": outline}, {"id": "split", "function": "split_lines"},
        {"id": "research", "fleet_id": fleet["id"]}, {"id": "join", "function": "join"},
        {"id": "assemble", "agent_id": assembler}],
        "edges": [{"from": "outline", "to": "split"}, {"from": "split", "to": "research"},
                  {"from": "research", "to": "join"}, {"from": "join", "to": "assemble"}]})).await;
    let (_, accepted) = api.post(&format!("/formations/{essay}/run"), json!({"input": "Owls"})).await;
    let id = accepted["formation_run_id"].as_str().unwrap().to_string();
    let mut workers: Vec<Process> = (0..3).map(|_| env.worker()).collect();
    let unfinished = "SELECT COUNT(*) FROM formation_runs WHERE status IN ('queued', 'running')";
    let tally = storm(&env, &mut server, &mut workers, unfinished, Duration::from_secs(600)).await;

    let api = server.api();
    let (_, run) = api.get(&format!("/formation-runs/{id}")).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["outputs"], json!({"assemble": sections.join("\n")}), "the output is exact");
    let started = format!("SELECT COUNT(*) FROM runs WHERE formation_run_id = '{id}'");
    assert_eq!(env.count(&started, &[]).await, 2, "one run per agent node");
    let fleets = format!("SELECT COUNT(*) FROM fleet_runs WHERE formation_run_id = '{id}'");
    assert_eq!(env.count(&fleets, &[]).await, 1, "one fleet run for the fleet node");
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, 2 + TASKS as i64, "and its tasks, no more");
    let resumed = env.count("SELECT COUNT(*) FROM runs WHERE attempt > 1", &[]).await;
    assert!(resumed > 0, "the storm hit the formation's work: {} worker kills", tally.worker_kills);
    // Each task worked in its own directory, <data dir>/formation-runs/<id>/research/<index>.
    let tasks = env.path().join("formation-runs").join(&id).join("research");
    for index in 0..TASKS {
        let marks = std::fs::read_to_string(tasks.join(index.to_string()).join("marks")).unwrap_or_default();
        assert!(marks.lines().count() >= 1, "task {index}'s step ran");
    }
    let events = api.get(&format!("/formation-runs/{id}/events")).await.1.as_array().unwrap().clone();
    assert_dense(&events);
    assert_eq!(kinds(&events), ["formation_queued", "node_started:outline", "node_finished:outline", "node_started:split",
        "node_finished:split", "node_started:research", "node_finished:research", "node_started:join",
        "node_finished:join", "node_started:assemble", "node_finished:assemble", "done"], "each node started and ended once");
    report_figure("formation_storm", &format!(
        "formation storm ({backend:?}): outline → split → {TASKS} researchers → join → assemble, {} worker kills, \
         {} server kills, {resumed} runs resumed after a kill",
        tally.worker_kills, tally.server_kills
    ));
}
}

on_both_backends! {
async fn the_command_line_creates_runs_tails_and_cancels_formations(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let url = server.url.as_str();
    let api = server.api();
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let file = env.path().join("formation.json");
    let graph = json!({"name": "shout", "nodes": [{"id": "say", "agent_id": echo},
        {"id": "wrap", "function": "template", "args": {"template": "<{{input}}>"}}],
        "edges": [{"from": "say", "to": "wrap"}]});
    std::fs::write(&file, graph.to_string()).unwrap();
    let (ok, out) = env.client(&["formation", "create", "--file", &file.display().to_string(), "--json", "--server", url]);
    assert!(ok, "{out}");
    let created: Value = serde_json::from_str(&out).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let (ok, out) = env.client(&["formation", "list", "--server", url]);
    assert!(ok && out.contains(&id), "{out}");

    let (code, out, err) = env.client_exit(&["formation", "run", &id, "--input", "hello there", "--server", url]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), json!({"wrap": "<hello there>"}), "{out}");
    assert!(err.contains("→ say (agent,") && err.contains("← wrap succeeded <hello there>") && err.contains("[succeeded]"), "{err}");
    let run_id = err.lines().find_map(|l| l.strip_prefix("formation run ")?.strip_suffix(" started")).unwrap().to_string();
    let (code, out, _) = env.client_exit(&["formation", "tail", &run_id, "--server", url]);
    assert_eq!((code, serde_json::from_str::<Value>(&out).unwrap()), (0, json!({"wrap": "<hello there>"})));

    let sleeper = api.create_agent(json!({"name": "sleeper", "tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]}]}})).await;
    let slow = formation(&api, json!({"name": "slow", "nodes": [{"id": "nap", "agent_id": sleeper}]})).await;
    let (code, out, err) = env.client_exit(&["formation", "run", &slow, "--input", "\"zz\"", "--detach", "--server", url]);
    assert_eq!(code, 0, "{err}");
    let slow_run = out.trim().to_string();
    let (code, out, err) = env.client_exit(&["formation", "cancel", &slow_run, "--json", "--server", url]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "cancelled", "{out}");
    let (code, _, err) = env.client_exit(&["formation", "tail", &slow_run, "--server", url]);
    assert_ne!(code, 0, "a cancelled run's tail says so: {err}");
    assert!(err.contains("cancelled"), "{err}");
}
}

/// An agent whose one `bash` call waits for a person, then answers.
fn careful(name: &str) -> Value {
    json!({"name": name, "tools": ["bash"], "approve_tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo checked"}}]}, {"text": "checked it"}]}})
}

on_both_backends! {
async fn a_node_that_waits_for_a_person_is_shown_waiting_and_the_wait_answers(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let checker = api.create_agent(careful("checker")).await;
    let graph = formation(&api, json!({"name": "checked", "nodes": [{"id": "check", "agent_id": checker},
        {"id": "wrap", "function": "template", "args": {"template": "<{{input}}>"}}],
        "edges": [{"from": "check", "to": "wrap"}]})).await;
    let answer = run_to_end(&api, &graph, json!("look")).await;
    assert_eq!(answer["status"], "running", "?wait=true answers when a node waits: {answer}");
    let waiting = answer["waiting"].as_array().unwrap_or_else(|| panic!("{answer}"));
    assert_eq!((waiting.len(), &waiting[0]["node"], &waiting[0]["status"]), (1, &json!("check"), &json!("waiting")));
    let run_id = waiting[0]["run_id"].as_str().unwrap().to_string();
    assert_eq!(api.run(&run_id).await["status"], "waiting");
    let id = answer["formation_run_id"].as_str().unwrap();
    let (_, shown) = api.get(&format!("/formation-runs/{id}")).await;
    assert_eq!((&node(&shown, "check")["status"], &node(&shown, "wrap")["status"]), (&json!("waiting"), &json!("pending")));
    let (_, page) = api.get("/formation-runs").await;
    assert_eq!(node(&page["formation_runs"][0], "check")["status"], "waiting", "{page}");

    let (status, body) = api
        .post(&format!("/runs/{run_id}/approve"), json!({"decisions": [{"call_id": "call_1_1", "decision": "approve"}]}))
        .await;
    assert_eq!(status, 202, "{body}");
    let again = run_to_end(&api, &graph, json!("look")).await;
    assert_eq!(again["status"], "running", "a second run waits too: {again}");
    let started = std::time::Instant::now();
    let ended = loop {
        let (_, shown) = api.get(&format!("/formation-runs/{id}")).await;
        if shown["status"] == "succeeded" {
            break shown;
        }
        assert!(started.elapsed() < LIMIT, "the approved node's formation run did not end: {shown}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(ended["outputs"], json!({"wrap": "<checked it>"}), "{ended}");
    assert_eq!(node(&ended, "check")["status"], "succeeded");
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_asks_for_a_waiting_node_at_a_terminal_and_goes_on() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let checker = api.create_agent(careful("checker")).await;
    let graph = formation(&api, json!({"name": "checked", "nodes": [{"id": "check", "agent_id": checker}]})).await;
    let Some(mut terminal) = env.on_a_terminal(&format!("formation run {graph} --input look --server {}", server.url))
    else {
        return;
    };
    let started = std::time::Instant::now();
    loop {
        let (_, body) = api.get("/runs?status=waiting").await;
        if body["runs"].as_array().is_some_and(|r| !r.is_empty()) {
            break;
        }
        assert!(started.elapsed() < LIMIT, "no run came to wait");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    terminal.type_in("e\n{\"command\": \"echo edited\"}\n");
    let (ok, seen) = terminal.finish();
    assert!(ok, "{seen}");
    assert!(seen.contains("node check waits for a decision") && seen.contains("wants to run bash"), "{seen}");
    assert!(seen.contains(r#""check": "checked it""#), "the outputs: {seen}");
    let (_, runs) = api.get("/runs").await;
    let ran = &runs["runs"][0]["tool_calls"][0];
    assert_eq!(
        (&ran["input"]["command"], &ran["output"]),
        (&json!("echo edited"), &json!("edited\n[exit code 0]")),
        "{runs}"
    );
}
