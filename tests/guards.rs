//! The guards that stop a model that never stops, through real processes: a
//! local OpenAI-compatible server that streams forever or too slowly, a
//! priced model that spends past its budget, and a scripted model that
//! repeats one call (with a person to ask, without, and across a SIGKILL).

mod common;
mod providers_support;

use std::time::Duration;

use common::{assert_dense, Api, Backend, TestEnv};
use providers_support::{openai_bash_call, openai_text, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// One SSE frame of a Chat Completions stream.
fn frame(chunk: Value) -> Vec<u8> {
    format!("data: {chunk}\n\n").into_bytes()
}

fn delta(delta: Value) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

/// An OpenAI agent served by `server`, with `fields` added.
async fn openai_agent(api: &Api, server: &MockServer, model: &str, fields: Value) -> String {
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-guards-test"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    let mut body = json!({"name": "guarded", "provider": "openai", "model": model, "tools": ["bash"],
        "options": {"base_url": server.url}});
    body.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    api.create_agent(body).await
}

/// Waits until `server` has seen `count` endless replies closed by their client.
async fn wait_closed(server: &MockServer, count: usize) {
    let start = std::time::Instant::now();
    while server.cut_short() < count {
        assert!(start.elapsed() < LIMIT, "the provider's connection was never closed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

on_both_backends! {
    async fn a_model_that_never_stops_streaming_is_cut_at_the_output_cap(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let text = frame(delta(json!({"content": "x".repeat(1000)})));
        let opening = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "bash", "arguments": ""}}]});
        let arguments = frame(delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "a".repeat(1000)}}]})));
        let provider = MockServer::start(vec![
            Reply::sse(frame(delta(json!({"role": "assistant", "content": ""})))).then_forever(&text, Duration::from_millis(2)),
            Reply::sse(frame(delta(opening))).then_forever(&arguments, Duration::from_millis(2)),
        ])
        .await;
        let agent = openai_agent(&api, &provider, "local-model", json!({"max_step_output_bytes": 20000})).await;

        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "talk forever").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert_eq!(failed["error"], "step output exceeded: 20000 bytes (max_step_output_bytes)");
        let events = api.events(&run).await;
        assert_dense(&events);
        let cut = of_type(&events, "step_output_exceeded");
        assert_eq!(cut.len(), 1, "{events:?}");
        assert_eq!((&cut[0]["step"], &cut[0]["limit"]), (&json!(1), &json!(20000)));
        let bytes = cut[0]["bytes"].as_u64().unwrap();
        assert!(bytes > 20000 && bytes <= 21000, "cut at the first piece past the cap: {bytes}");
        assert_eq!(events[events.len() - 2]["type"], "step_output_exceeded", "just before done");
        let written: usize = of_type(&events, "text_delta").iter().map(|e| e["text"].as_str().unwrap().len()).sum();
        assert!(written <= 20000, "the text read before the cap stays in the log: {written}");
        assert!(of_type(&events, "step_completed").is_empty(), "nothing of the cut step is checkpointed");
        wait_closed(&provider, 1).await;

        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "call forever").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert!(failed["error"].as_str().unwrap().starts_with("step output exceeded"), "{failed}");
        let events = api.events(&run).await;
        assert_eq!(of_type(&events, "step_output_exceeded").len(), 1, "{events:?}");
        assert!(of_type(&events, "tool_call").is_empty(), "a cut call is never made");
        wait_closed(&provider, 2).await;
        assert_eq!(provider.requests().len(), 2, "no retry of a cut step");
    }

    async fn a_step_past_its_timeout_is_retried_then_fails(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_PROVIDER_RETRIES", "1");
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let token = frame(delta(json!({"content": "tok "})));
        let slow = || Reply::sse(Vec::new()).then_forever(&token, Duration::from_millis(300));
        let provider = MockServer::start(vec![slow(), slow()]).await;
        let agent = openai_agent(&api, &provider, "local-model", json!({"step_timeout_secs": 1})).await;
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "take your time").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        let error = failed["error"].as_str().unwrap();
        assert!(error.contains("after 1 retries") && error.contains("(step_timeout_secs)"), "{error}");
        let events = api.events(&run).await;
        assert_dense(&events);
        let restarted = of_type(&events, "step_restarted");
        assert_eq!(restarted.len(), 1, "{events:?}");
        assert_eq!((&restarted[0]["step"], &restarted[0]["retry"]), (&json!(1), &json!(1)));
        assert!(restarted[0]["reason"].as_str().unwrap().contains("step_timeout_secs"), "{:?}", restarted[0]);
        assert!(!of_type(&events, "text_delta").is_empty(), "the tokens did stream before the deadline");
        wait_closed(&provider, 2).await;
    }

    async fn the_step_that_crosses_the_budget_ends_the_run(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        // gpt-4o-mini costs $0.15 and $0.60 per million tokens: each answer $0.021.
        let answers = |n: usize| (1..=n).map(|i| openai_bash_call(&format!("call_{i}"), &format!("echo {i}"), 100_000, 10_000));
        let mut replies: Vec<Reply> = answers(3).collect();
        replies.extend(answers(2));
        replies.extend(answers(2));
        replies.push(Reply::sse(openai_text("never asked", 1, 1)));
        let provider = MockServer::start(replies).await;
        let agent = openai_agent(&api, &provider, "gpt-4o-mini", json!({"max_cost_usd": 0.05})).await;

        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "spend").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert_eq!(failed["error"], "budget exhausted: spent $0.063 of $0.05");
        let events = api.events(&run).await;
        assert_dense(&events);
        let exhausted = of_type(&events, "budget_exhausted");
        assert_eq!(exhausted.len(), 1, "{events:?}");
        assert_eq!((&exhausted[0]["step"], &exhausted[0]["limit_usd"]), (&json!(3), &json!(0.05)));
        assert!((exhausted[0]["spent_usd"].as_f64().unwrap() - 0.063).abs() < 1e-9, "{:?}", exhausted[0]);
        assert_eq!(events[events.len() - 2]["type"], "budget_exhausted", "just before done");
        assert_eq!(of_type(&events, "tool_result").len(), 2, "the crossing step's call never runs");
        assert_eq!(failed["tool_calls"][2]["output"], Value::Null, "{failed}");
        let (_, session_body) = api.get(&format!("/sessions/{session}")).await;
        let last = session_body["history"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["content"][0]["is_error"], true, "the open call is closed in the history: {last}");

        // A message may lower the budget, not raise it.
        let (status, body) =
            api.post(&format!("/sessions/{session}/message"), json!({"message": "more", "max_cost_usd": 0.5})).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["error"].as_str().unwrap().contains("max_cost_usd"), "{body}");
        let (status, body) =
            api.post(&format!("/sessions/{session}/message"), json!({"message": "less", "max_cost_usd": 0.03})).await;
        assert_eq!(status, 202, "{body}");
        let lowered = api.wait_terminal(body["run_id"].as_str().unwrap(), LIMIT).await;
        assert_eq!(lowered["error"], "budget exhausted: spent $0.042 of $0.03", "{lowered}");
        assert_eq!(lowered["input"]["max_cost_usd"], 0.03);

        // A model without a price counts tokens.
        let unpriced = openai_agent(&api, &provider, "local-model", json!({"max_total_tokens": 150_000})).await;
        let session = api.create_session(&unpriced, None).await;
        let run = api.send(&session, "spend tokens").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["error"], "budget exhausted: spent 220000 tokens of 150000 (max_total_tokens)", "{failed}");
        let events = api.events(&run).await;
        let exhausted = of_type(&events, "budget_exhausted");
        assert_eq!(
            (&exhausted[0]["step"], &exhausted[0]["spent_tokens"], &exhausted[0]["limit_tokens"]),
            (&json!(2), &json!(220_000), &json!(150_000))
        );
        assert_eq!(provider.unused(), 1, "no step after the budget ran out");
    }

    async fn a_repeated_call_waits_for_a_person_when_there_is_one(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let again = json!({"tool_calls": [{"name": "bash", "input": {"command": "echo again"}}]});
        let script = json!([again, again, again, again, {"text": "done"}]);
        let agent = api
            .create_agent(json!({"name": "repeats", "provider": "scripted", "tools": ["bash", "write"],
                "approve_tools": ["write"], "options": {"script": script}}))
            .await;
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "again and again").await;
        api.wait_waiting(&run, LIMIT).await;
        let events = api.events(&run).await;
        let asked = of_type(&events, "approval_requested");
        assert_eq!(asked.len(), 1, "the first two calls ran without asking: {events:?}");
        assert_eq!(asked[0]["step"], 3);
        assert_eq!(asked[0]["calls"][0]["reason"], "repeated_call", "{:?}", asked[0]);
        assert_eq!(of_type(&events, "tool_result").len(), 2);
        let approve = json!({"decisions": [{"call_id": "call_3_1", "decision": "approve"}]});
        assert_eq!(api.post(&format!("/runs/{run}/approve"), approve).await.0, 202);
        let events = api.wait_event(&run, LIMIT, |e| e["type"] == "approval_requested" && e["step"] == 4).await;
        api.wait_waiting(&run, LIMIT).await;
        assert_eq!(of_type(&events, "tool_result")[2]["output"], "again\n[exit code 0]", "approved, it ran");
        let reject = json!({"decisions": [{"call_id": "call_4_1", "decision": "reject", "message": "stop"}]});
        assert_eq!(api.post(&format!("/runs/{run}/approve"), reject).await.0, 202);
        let done = api.wait_terminal(&run, LIMIT).await;
        assert_eq!((&done["status"], &done["response"]), (&json!("succeeded"), &json!("done")), "{done}");
        let events = api.events(&run).await;
        assert_dense(&events);
        let rejected = of_type(&events, "tool_result")[3];
        assert_eq!(rejected["is_error"], true);
        assert!(rejected["output"].as_str().unwrap().contains("rejected"), "{rejected}");
    }

    async fn a_repeated_call_is_refused_then_fails_the_run_even_across_a_crash(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let slow = json!({"tool_calls": [{"name": "bash", "input": {"command": "sleep 0.5; echo again"}}]});
        let script = json!([slow, slow, slow, slow, {"text": "never"}]);
        let agent = api
            .create_agent(json!({"name": "loops", "provider": "scripted", "tools": ["bash"],
                "options": {"script": script}}))
            .await;
        let check = |events: &[Value]| {
            assert_dense(events);
            let results = of_type(events, "tool_result");
            assert_eq!(results.len(), 3, "{events:?}");
            assert_eq!(results[1]["output"], "again\n[exit code 0]");
            assert_eq!((&results[2]["step"], &results[2]["is_error"]), (&json!(3), &json!(true)));
            assert!(results[2]["output"].as_str().unwrap().contains("repeating yourself"), "{:?}", results[2]);
            let detected = of_type(events, "loop_detected");
            assert_eq!(detected.len(), 1, "{events:?}");
            assert_eq!(
                (&detected[0]["step"], &detected[0]["name"], &detected[0]["repeats"]),
                (&json!(4), &json!("bash"), &json!(4))
            );
            assert_eq!(events[events.len() - 2]["type"], "loop_detected", "just before done");
        };

        let mut worker = env.worker();
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "loop").await;
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert_eq!(failed["error"], "loop detected: bash was called 4 times in a row with the same input (loop_guard 3)");
        check(&api.events(&run).await);

        // The same decisions after the worker dies mid-way.
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "loop").await;
        api.wait_event(&run, LIMIT, |e| e["type"] == "tool_call" && e["step"] == 2).await;
        worker.kill9();
        let _second = env.worker();
        let failed = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert!(failed["error"].as_str().unwrap().starts_with("loop detected"), "{failed}");
        let events = api.events(&run).await;
        assert!(!of_type(&events, "run_resumed").is_empty(), "a second worker finished it: {events:?}");
        check(&events);
    }
}
