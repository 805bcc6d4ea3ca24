//! Sub-agents through the real binaries, on both backends: a step's calls
//! of sub-agents start child runs that run in parallel on separate workers
//! while the parent waits holding none; every process SIGKILLed while they
//! run starts no child twice and resumes the parent once; a parent's cancel
//! ends its children; a fourth level is refused; the parent's budget covers
//! its children; a child waiting for a person keeps its parent waiting.

mod common;

use std::time::Duration;

use common::{assert_dense, Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(90);

/// A task of `words` words: an `echo` child answers with it, one word per
/// `chunk_delay_ms`, so it takes a known time.
fn task(name: &str, words: usize) -> String {
    let mut words: Vec<String> = (1..words).map(|i| format!("{name}{i}")).collect();
    words.insert(0, name.to_string());
    words.join(" ")
}

/// An agent whose first step hands `tasks` to its sub-agent `researcher`,
/// then answers `text`; `extra` adds fields (and options).
fn parent_agent(researcher: &str, tasks: &[String], text: &str, extra: Value) -> Value {
    let calls: Vec<Value> = tasks.iter().map(|t| json!({"name": "agent__researcher", "input": {"task": t}})).collect();
    let mut agent = json!({"name": "lead", "subagents": [{"agent_id": researcher, "name": "researcher", "description": "Looks things up"}],
        "options": {"script": [{"tool_calls": calls}, {"text": text}]}});
    for (key, value) in extra.as_object().cloned().unwrap_or_default() {
        match (key.as_str(), value) {
            ("options", Value::Object(options)) => agent["options"].as_object_mut().unwrap().extend(options),
            (_, value) => agent[key.as_str()] = value,
        }
    }
    agent
}

/// The `echo` agent named `researcher`, streaming a word per `delay_ms`.
async fn researcher(api: &Api, delay_ms: u64) -> String {
    api.create_agent(json!({"name": "researcher", "options": {"chunk_delay_ms": delay_ms}})).await
}

async fn submit(api: &Api, agent: &str, work: &std::path::Path) -> String {
    let session = api.create_session(agent, Some(work)).await;
    api.send(&session, "find out").await
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The parent's children as `GET /runs/{id}` lists them, each read whole.
async fn children(api: &Api, parent: &str) -> Vec<Value> {
    let listed = api.run(parent).await["children"].as_array().cloned().unwrap_or_default();
    let mut runs = Vec::new();
    for child in listed {
        runs.push(api.run(child["run_id"].as_str().unwrap()).await);
    }
    runs
}

/// Polls until `n` children of `parent` are running.
async fn wait_children_running(api: &Api, parent: &str, n: usize) {
    let start = std::time::Instant::now();
    loop {
        let (_, page) = api.get(&format!("/runs?parent_run_id={parent}&status=running")).await;
        if page["runs"].as_array().map_or(0, Vec::len) == n {
            return;
        }
        assert!(start.elapsed() < LIMIT, "{n} children of {parent} never ran at once: {page}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

on_both_backends! {
async fn two_calls_run_in_parallel_on_two_workers_and_answer_their_parent(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "1");
    let server = env.server(0);
    let (_a, _b) = (env.worker(), env.worker());
    let api = server.api();
    let researcher = researcher(&api, 100).await;
    let tasks = [task("alpha", 10), task("beta", 10)];
    let lead = api.create_agent(parent_agent(&researcher, &tasks, "both answered", json!({}))).await;
    let (_, unnamed) = api.post("/agents", json!({"name": "other", "subagents": [{"agent_id": researcher}]})).await;
    assert_eq!(unnamed["subagents"][0]["name"], "researcher", "a sub-agent is named after its agent: {unnamed}");
    let (_, tools) = api.get(&format!("/agents/{lead}/tools")).await;
    let offered = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "agent__researcher").expect("offered");
    assert_eq!((offered["source"].as_str(), offered["description"].as_str()), (Some("subagent"), Some("Looks things up")));
    let work = tempfile::tempdir().unwrap();
    let parent = submit(&api, &lead, work.path()).await;

    wait_children_running(&api, &parent, 2).await;
    let waiting = api.run(&parent).await;
    assert_eq!(waiting["status"], "waiting", "the parent holds no worker while its children run: {waiting}");
    let held = "SELECT COUNT(*) FROM runs WHERE id = $1 AND worker_id IS NOT NULL";
    assert_eq!(env.count(held, &[&parent]).await, 0);

    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!((run["status"].as_str(), run["response"].as_str()), (Some("succeeded"), Some("both answered")), "{run}");
    let events = api.events(&parent).await;
    assert_dense(&events);
    let started = of_kind(&events, "subagent_started");
    assert_eq!(started.len(), 2, "{events:?}");
    let kids = children(&api, &parent).await;
    assert_eq!(kids.len(), 2, "{run}");
    let mut workers = Vec::new();
    for (i, child) in kids.iter().enumerate() {
        let id = child["id"].as_str().unwrap();
        let call = child["parent_call_id"].as_str().unwrap();
        assert_eq!((child["kind"].as_str(), child["status"].as_str()), (Some("subagent"), Some("succeeded")), "{child}");
        assert_eq!(child["parent_run_id"], parent.as_str());
        assert_eq!(child["input"]["message"], tasks[i].as_str(), "each call's task is its child's message");
        assert!(started.iter().any(|e| e["child_run_id"] == id && e["call_id"] == call && e["agent_id"] == researcher.as_str()), "{started:?}");
        let result = events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == call).expect("a result");
        assert_eq!((result["output"].as_str(), result["is_error"].as_bool()), (Some(tasks[i].as_str()), Some(false)));
        let finished = events.iter().find(|e| e["type"] == "subagent_finished" && e["child_run_id"] == id).expect("finished");
        assert_eq!(finished["status"], "succeeded");
        // subagent_started names a run a client can tail to its end.
        let (tail, done) = api.sse_read(id, None, None).await;
        assert!(done, "{tail:?}");
        assert_dense(&tail);
        workers.push(tail.iter().find(|e| e["type"] == "run_started").unwrap()["worker_id"].clone());
        let (_, session) = api.get(&format!("/sessions/{}", child["session_id"].as_str().unwrap())).await;
        let expected = work.path().join("subagents").join(id);
        assert_eq!(session["work_dir"], expected.to_string_lossy().as_ref(), "a session of its own under the parent's work_dir");
    }
    assert_ne!(workers[0], workers[1], "the two children ran on two workers");
    let at = |run: &Value, key: &str| run[key].as_str().unwrap().to_string();
    assert!(at(&kids[0], "started_at") < at(&kids[1], "finished_at") && at(&kids[1], "started_at") < at(&kids[0], "finished_at"),
        "their runs overlap in time: {kids:?}");
    let (_, page) = api.get(&format!("/runs?parent_run_id={parent}")).await;
    assert_eq!(page["runs"].as_array().unwrap().len(), 2, "{page}");

    // The command line prints the tree under the run.
    let (ok, out) = env.client(&["runs", "show", &parent, "--server", &server.url]);
    assert!(ok, "{out}");
    assert!(out.contains("sub-agents"), "{out}");
    for child in &kids {
        let line = format!("└ {} agent__researcher succeeded", child["id"].as_str().unwrap());
        assert!(out.contains(&line), "{line:?} in {out}");
    }
    let (ok, out) = env.client(&["runs", "show", kids[0]["id"].as_str().unwrap(), "--server", &server.url]);
    assert!(ok && out.contains(&format!("parent run  {parent}")), "{out}");
}
}

on_both_backends! {
async fn every_process_killed_while_children_run_starts_each_child_once_and_resumes_the_parent_once(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "2");
    let mut server = env.server(0);
    let mut workers = [env.worker(), env.worker()];
    let api = server.api();
    let researcher = researcher(&api, 150).await;
    let tasks = [task("gamma", 16), task("delta", 16)];
    let lead = api.create_agent(parent_agent(&researcher, &tasks, "resumed", json!({}))).await;
    let work = tempfile::tempdir().unwrap();
    let parent = submit(&api, &lead, work.path()).await;
    wait_children_running(&api, &parent, 2).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    for worker in &mut workers {
        worker.kill9();
    }
    server.process.kill9();

    let server = env.server(0);
    let _workers = [env.worker(), env.worker()];
    let api = server.api();
    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!((run["status"].as_str(), run["response"].as_str()), (Some("succeeded"), Some("resumed")), "{run}");
    let count = "SELECT COUNT(*) FROM runs WHERE parent_run_id = $1";
    assert_eq!(env.count(count, &[&parent]).await, 2, "each call's child was created once");
    let events = api.events(&parent).await;
    assert_dense(&events);
    assert_eq!(of_kind(&events, "subagent_started").len(), 2, "{events:?}");
    assert_eq!(of_kind(&events, "subagent_finished").len(), 2, "{events:?}");
    let last_finish = events.iter().rposition(|e| e["type"] == "subagent_finished").unwrap();
    let claims_after = events[last_finish..].iter().filter(|e| e["type"] == "run_started").count();
    assert_eq!(claims_after, 1, "the parent resumed once: {events:?}");
    assert_eq!(of_kind(&events, "step_completed").len(), 2, "each of the parent's steps ran once: {events:?}");
    for (i, child) in children(&api, &parent).await.iter().enumerate() {
        assert_eq!(child["status"], "succeeded", "{child}");
        assert_eq!(child["response"], tasks[i].as_str(), "{child}");
        let tail = api.events(child["id"].as_str().unwrap()).await;
        assert_dense(&tail);
        assert!(of_kind(&tail, "run_resumed").len() == 1, "the child was resumed after the kill: {tail:?}");
    }
}
}

on_both_backends! {
async fn cancelling_a_parent_cancels_its_children(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let sleeper = api.create_agent(json!({"name": "sleeper", "tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]}, {"text": "woke"}]}})).await;
    let tasks = [task("one", 2), task("two", 2)];
    let lead = api.create_agent(parent_agent(&sleeper, &tasks, "never", json!({}))).await;
    let work = tempfile::tempdir().unwrap();
    let parent = submit(&api, &lead, work.path()).await;
    wait_children_running(&api, &parent, 2).await;
    let (status, body) = api.post(&format!("/runs/{parent}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{body}");
    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!(run["status"], "cancelled", "{run}");
    for child in children(&api, &parent).await {
        let child = api.wait_terminal(child["id"].as_str().unwrap(), LIMIT).await;
        assert_eq!(child["status"], "cancelled", "{child}");
        assert_eq!(child["error"], "the run that started this sub-agent ended", "{child}");
        assert_dense(&api.events(child["id"].as_str().unwrap()).await);
    }
    let events = api.events(&parent).await;
    assert_dense(&events);
    assert!(of_kind(&events, "subagent_finished").is_empty(), "an ended parent takes nothing in: {events:?}");
    let (status, _) = api.post(&format!("/runs/{parent}/cancel"), json!({})).await;
    assert_eq!(status, 409);
}
}

on_both_backends! {
async fn max_depth_refuses_a_fourth_level_and_a_missing_agent_is_refused(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let api = server.api();
    let script = json!([{"tool_calls": [{"name": "agent__deeper", "input": {"task": "go deeper"}}]}, {"text": "level done"}]);
    let agent = api.create_agent(json!({"name": "nested", "options": {"script": script}})).await;
    let (status, body) = api.put(&format!("/agents/{agent}"), json!({"subagents": [{"agent_id": "nope"}]})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("there is no agent nope"), "{body}");
    let (status, body) = api.put(&format!("/agents/{agent}"), json!({"subagents": [{"agent_id": agent, "name": "deeper"}]})).await;
    assert_eq!(status, 200, "it may call itself: {body}");
    assert_eq!(body["max_depth"], 3);

    let root = submit(&api, &agent, tempfile::tempdir().unwrap().path()).await;
    let run = api.wait_terminal(&root, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    // Root, then depths 1, 2 and 3; the run at depth 3 may not start a fourth.
    let mut chain = vec![root.clone()];
    loop {
        let kids = children(&api, chain.last().unwrap()).await;
        match kids.as_slice() {
            [] => break,
            [child] => chain.push(child["id"].as_str().unwrap().to_string()),
            more => panic!("one child per level: {more:?}"),
        }
    }
    assert_eq!(chain.len(), 4, "{chain:?}");
    let deepest = api.events(&chain[3]).await;
    let refused = deepest.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(refused["is_error"], true);
    assert!(refused["output"].as_str().unwrap().contains("max_depth reached"), "{refused}");
    assert_eq!(api.run(&chain[3]).await["input"]["parent"]["depth"], 3);
    let total = "SELECT COUNT(*) FROM runs";
    assert_eq!(env.count(total, &[]).await, 4);
}
}

on_both_backends! {
async fn the_parents_budget_covers_its_children(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(2);
    let api = server.api();
    // A dollar per thousand tokens; a child's first step alone costs about $0.61.
    let price = json!({"input": 1000, "output": 1000});
    let long = vec!["word"; 600].join(" ");
    let researcher = api.create_agent(json!({"name": "researcher", "instructions": long, "options": {"pricing": price}})).await;
    let tasks = [task("eps", 3), task("zeta", 3)];
    let lead = api.create_agent(parent_agent(&researcher, &tasks, "never", json!({"max_cost_usd": 1.0, "options": {"pricing": price}}))).await;
    let parent = submit(&api, &lead, tempfile::tempdir().unwrap().path()).await;
    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().unwrap();
    assert!(error.starts_with("budget exhausted: spent $1.2") && error.ends_with(" of $1"), "{error}");
    let events = api.events(&parent).await;
    assert_eq!(of_kind(&events, "budget_exhausted").len(), 1, "{events:?}");
    assert_eq!(of_kind(&events, "step_completed").len(), 1, "no step after the children's spending: {events:?}");
    for child in children(&api, &parent).await {
        let share = child["input"]["max_cost_usd"].as_f64().unwrap();
        assert!(share < 0.5, "each child may spend half of what was left: {child}");
        assert_eq!(child["status"], "failed", "{child}");
        assert!(child["error"].as_str().unwrap().starts_with("budget exhausted"), "{child}");
        let result = events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == child["parent_call_id"]).unwrap();
        assert_eq!(result["is_error"], true, "a failed child is an error result: {result}");
    }
}
}

on_both_backends! {
async fn a_child_waiting_for_approval_keeps_its_parent_waiting(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let careful = api.create_agent(json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo checked"}}]}, {"text": "child done"}]}})).await;
    let tasks = [task("only", 2)];
    let lead = api.create_agent(parent_agent(&careful, &tasks, "parent done", json!({}))).await;
    let parent = submit(&api, &lead, tempfile::tempdir().unwrap().path()).await;
    let events = api.wait_event(&parent, LIMIT, |e| e["type"] == "subagent_started").await;
    let child = of_kind(&events, "subagent_started")[0]["child_run_id"].as_str().unwrap().to_string();
    let waiting = api.wait_waiting(&child, LIMIT).await;
    let events = api.wait_event(&child, LIMIT, |e| e["type"] == "approval_requested").await;
    let call_id = of_kind(&events, "approval_requested")[0]["calls"][0]["call_id"].as_str().unwrap().to_string();
    assert_eq!(api.run(&parent).await["status"], "waiting", "{waiting}");
    let (_, listed) = api.get("/runs?status=waiting").await;
    assert_eq!(listed["runs"].as_array().unwrap().len(), 2, "both wait: {listed}");
    let (status, body) = api.post(&format!("/runs/{parent}/approve"), json!({"decisions": []})).await;
    assert_eq!(status, 409, "the parent waits for its child, not a decision: {body}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(api.run(&parent).await["status"], "waiting");

    let decision = json!({"decisions": [{"call_id": call_id, "decision": "approve"}]});
    let (status, body) = api.post(&format!("/runs/{child}/approve"), decision).await;
    assert_eq!(status, 202, "{body}");
    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!((run["status"].as_str(), run["response"].as_str()), (Some("succeeded"), Some("parent done")), "{run}");
    let result = api.events(&parent).await.into_iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["output"], "child done");
}
}
