//! Every route of the API, for the tests that check a rule holds on all of them.

use reqwest::Method;
use serde_json::{json, Value};

/// Every route of the API, with a body where it takes one, on real IDs.
pub fn every_route(agent: &str, session: &str, run: &str) -> Vec<(Method, String, Option<Value>)> {
    let agent_body = json!({"name": "evil", "tools": ["bash"]});
    vec![
        (Method::GET, "/health".into(), None),
        (Method::GET, "/metrics".into(), None),
        (Method::GET, "/openapi.json".into(), None),
        (Method::GET, "/provider".into(), None),
        (Method::GET, "/provider/anthropic".into(), None),
        (Method::GET, "/provider/anthropic/models".into(), None),
        (Method::GET, "/provider/anthropic/models/claude-haiku-4-5".into(), None),
        (Method::GET, "/provider/auth".into(), None),
        (
            Method::PUT,
            "/provider/auth".into(),
            Some(json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-evil-0123456789"}}})),
        ),
        (Method::DELETE, "/provider/auth/openai".into(), None),
        (Method::GET, "/secrets".into(), None),
        (Method::PUT, "/secrets/EVIL_TOKEN".into(), Some(json!({"value": "evil-0123456789"}))),
        (Method::DELETE, "/secrets/EVIL_TOKEN".into(), None),
        (Method::GET, "/agents".into(), None),
        (Method::POST, "/agents".into(), Some(agent_body.clone())),
        (Method::GET, format!("/agents/{agent}"), None),
        (Method::PUT, format!("/agents/{agent}"), Some(agent_body)),
        (Method::DELETE, format!("/agents/{agent}"), None),
        (Method::GET, format!("/agents/{agent}/tools"), None),
        (Method::GET, "/fleets".into(), None),
        (Method::POST, "/fleets".into(), Some(json!({"name": "evil", "agent_id": agent}))),
        (Method::GET, "/fleets/01JNOFLEET000000000000000".into(), None),
        (Method::PUT, "/fleets/01JNOFLEET000000000000000".into(), Some(json!({"worker_count": 1}))),
        (Method::DELETE, "/fleets/01JNOFLEET000000000000000".into(), None),
        (Method::POST, "/fleets/01JNOFLEET000000000000000/run".into(), Some(json!({"tasks": [{"message": "x"}]}))),
        (
            Method::POST,
            "/fleets/01JNOFLEET000000000000000/run/stream".into(),
            Some(json!({"tasks": [{"message": "x"}]})),
        ),
        (Method::GET, "/fleet-runs".into(), None),
        (Method::GET, "/fleet-runs/01JNOFLEETRUN0000000000000".into(), None),
        (Method::GET, "/fleet-runs/01JNOFLEETRUN0000000000000/events".into(), None),
        (Method::POST, "/fleet-runs/01JNOFLEETRUN0000000000000/cancel".into(), None),
        (Method::GET, "/sessions".into(), None),
        (Method::POST, "/sessions".into(), Some(json!({"agent_id": agent}))),
        (Method::GET, format!("/sessions/{session}"), None),
        (Method::PUT, format!("/sessions/{session}"), Some(json!({"title": "evil"}))),
        (Method::DELETE, format!("/sessions/{session}"), None),
        (Method::POST, format!("/sessions/{session}/message"), Some(json!({"message": "rm -rf"}))),
        (Method::POST, format!("/sessions/{session}/message/stream"), Some(json!({"message": "rm -rf"}))),
        (Method::POST, format!("/sessions/{session}/compact"), Some(json!({}))),
        (Method::GET, "/runs".into(), None),
        (Method::GET, format!("/runs/{run}"), None),
        (Method::GET, format!("/runs/{run}/events"), None),
        (Method::POST, format!("/runs/{run}/cancel"), None),
        (Method::DELETE, format!("/runs/{run}"), None),
        (Method::POST, format!("/runs/{run}/approve"), Some(json!({"decisions": []}))),
        (Method::POST, format!("/runs/{run}/tool-results"), Some(json!({"results": []}))),
        (Method::POST, format!("/runs/{run}/steer"), Some(json!({"message": "stop"}))),
        (Method::GET, "/workers".into(), None),
        (Method::GET, "/no/such/route".into(), None),
    ]
}
