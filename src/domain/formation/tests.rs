use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::run::{self, NodeStatus, Outcome, Snapshot, State, Work};
use super::*;
use crate::domain::model::{Agent, Fleet, FleetRunStatus};

fn nodes(value: Value) -> Vec<Node> {
    serde_json::from_value(value).unwrap()
}

fn edges(pairs: &[(&str, &str)]) -> Vec<Edge> {
    pairs.iter().map(|(from, to)| Edge { from: from.to_string(), to: to.to_string() }).collect()
}

fn error_of(value: Value, pairs: &[(&str, &str)]) -> String {
    check("f", &nodes(value), &edges(pairs)).unwrap_err()
}

#[test]
fn a_graph_is_refused_for_a_cycle_an_unknown_node_or_no_entry() {
    let three = json!([{"id": "a", "agent_id": "A"}, {"id": "b", "agent_id": "A"}, {"id": "c", "agent_id": "A"}]);
    assert_eq!(check("f", &nodes(three.clone()), &edges(&[("a", "b"), ("b", "c")])), Ok(()));
    assert!(error_of(three.clone(), &[("a", "b"), ("b", "c"), ("c", "b")]).contains("a cycle: the nodes b, c"));
    assert!(error_of(three.clone(), &[("a", "a")]).contains("feeds itself"));
    assert!(error_of(three.clone(), &[("a", "x")]).contains("edges[0]: unknown node \"x\""));
    assert!(error_of(three.clone(), &[("a", "b"), ("a", "b")]).contains("given twice"));
    let ring = json!([{"id": "a", "agent_id": "A"}, {"id": "b", "agent_id": "A"}]);
    assert!(error_of(ring, &[("a", "b"), ("b", "a")]).contains("no entry node"));
    assert!(error_of(json!([]), &[]).contains("1 to 200 nodes"));
    assert!(error_of(json!([{"id": "a b", "agent_id": "A"}]), &[]).contains("not a node ID"));
    assert!(error_of(json!([{"id": "a"}]), &[]).contains("needs one of agent_id"));
    assert!(error_of(json!([{"id": "a", "agent_id": "A", "fleet_id": "F"}]), &[]).contains("more than one"));
    assert!(error_of(json!([{"id": "a", "function": "nope"}]), &[]).contains("unknown function \"nope\""));
    assert!(error_of(json!([{"id": "a", "agent_id": "A", "args": {}}]), &[]).contains("args belong"));
    assert!(error_of(json!([{"id": "a", "function": "json_path"}]), &[]).contains("needs args.path"));
    assert!(
        error_of(json!([{"id": "a", "function": "json_path", "args": {"path": "items"}}]), &[]).contains("not a path")
    );
    assert!(check("", &nodes(json!([{"id": "a", "agent_id": "A"}])), &[]).unwrap_err().contains("name"));
}

#[test]
fn a_node_fed_what_it_cannot_take_is_refused() {
    let fleet_after_agent = json!([{"id": "outline", "agent_id": "A"}, {"id": "research", "fleet_id": "F"}]);
    let error = error_of(fleet_after_agent, &[("outline", "research")]);
    assert_eq!(error, "node \"research\" takes a list but is fed text (from outline)");
    let split_first = json!([{"id": "outline", "agent_id": "A"}, {"id": "split", "function": "split_lines"},
        {"id": "research", "fleet_id": "F"}, {"id": "join", "function": "join"}, {"id": "assemble", "agent_id": "A"}]);
    let chain = [("outline", "split"), ("split", "research"), ("research", "join"), ("join", "assemble")];
    assert_eq!(check("f", &nodes(split_first.clone()), &edges(&chain)), Ok(()));
    let error = error_of(json!([{"id": "r", "fleet_id": "F"}, {"id": "s", "function": "split_lines"}]), &[("r", "s")]);
    assert!(error.contains("takes text but is fed a list"), "{error}");
    // What only the run can know is let through: a json_path's output, the input.
    let dynamic =
        json!([{"id": "p", "function": "json_path", "args": {"path": "$.items"}}, {"id": "r", "fleet_id": "F"}]);
    assert_eq!(check("f", &nodes(dynamic), &edges(&[("p", "r")])), Ok(()));
    let entry_fleet = nodes(json!([{"id": "r", "fleet_id": "F"}]));
    assert!(check_input(&entry_fleet, &[], &json!("text")).unwrap_err().contains("takes a list"));
    assert_eq!(check_input(&entry_fleet, &[], &json!(["a"])), Ok(()));
}

#[test]
fn the_functions_do_what_they_say() {
    let apply = |name: &str, args: Value, input: Value| {
        Function::parse(name, (!args.is_null()).then_some(&args)).unwrap().apply(&input)
    };
    assert_eq!(apply("split_lines", Value::Null, json!(" a \n\n b\n")), Ok(json!(["a", "b"])));
    assert!(apply("split_lines", Value::Null, json!([1])).unwrap_err().contains("takes text"));
    assert_eq!(apply("join", json!({"separator": ", "}), json!(["a", 2, {"b": 1}])), Ok(json!("a, 2, {\"b\":1}")));
    assert_eq!(
        apply("json_path", json!({"path": "$.items[1].name"}), json!("{\"items\": [{}, {\"name\": \"x\"}]}")),
        Ok(json!("x"))
    );
    assert_eq!(apply("json_path", json!({"path": "$[\"a b\"]"}), json!({"a b": [1]})), Ok(json!([1])));
    assert!(apply("json_path", json!({"path": "$.nope"}), json!({})).unwrap_err().contains("no key \"nope\""));
    assert_eq!(apply("template", json!({"template": "<{{input}}>"}), json!("x")), Ok(json!("<x>")));
    assert_eq!(apply("template", json!({"template": "{{1}} then {{0}}"}), json!(["a", "b"])), Ok(json!("b then a")));
    assert!(Function::parse("join", Some(&json!({"sep": ","}))).unwrap_err().contains("unknown argument \"sep\""));
}

fn agent(id: &str) -> Agent {
    let stored = json!({"id": id, "name": id, "provider": "scripted", "model": "echo", "tools": [], "max_steps": 5,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"});
    serde_json::from_value(stored).unwrap()
}

/// The seed's second example: outline → split_lines → a fleet → join → assembly.
fn outline_fleet_assembly() -> Snapshot {
    let graph = nodes(json!([{"id": "outline", "agent_id": "A"}, {"id": "split", "function": "split_lines"},
        {"id": "research", "fleet_id": "F"}, {"id": "join", "function": "join"}, {"id": "assemble", "agent_id": "A"}]));
    let chain = [("outline", "split"), ("split", "research"), ("research", "join"), ("join", "assemble")];
    let now = chrono::Utc::now();
    let formation = Formation {
        id: "FM".into(),
        name: "essay".into(),
        owner: crate::domain::model::first_admin(),
        shared: false,
        nodes: graph,
        edges: edges(&chain),
        version: 1,
        created_at: now,
        updated_at: now,
    };
    let fleet = Fleet {
        id: "F".into(),
        name: "researchers".into(),
        owner: crate::domain::model::first_admin(),
        shared: false,
        agent_id: "A".into(),
        worker_count: 2,
        work_dir: None,
        status: Default::default(),
        version: 1,
        created_at: now,
        updated_at: now,
    };
    Snapshot {
        formation,
        agents: BTreeMap::from([("A".to_string(), agent("A"))]),
        fleets: BTreeMap::from([("F".to_string(), run::FleetSnapshot { fleet, agent: agent("A") })]),
        work_dir: "/tmp/fr".into(),
        max_attempts: 3,
        webhook: None,
        carried: Default::default(),
    }
}

fn ids() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("id{n}")
    }
}

fn kinds(advance: &run::Advance) -> Vec<&'static str> {
    advance.events.iter().map(crate::domain::event::RunEvent::kind).collect()
}

#[test]
fn a_run_starts_each_node_when_its_inputs_are_there_and_ends_with_the_exits_outputs() {
    let snapshot = outline_fleet_assembly();
    let input = json!("Write about owls");
    let mut state = State {
        id: "FR",
        snapshot: &snapshot,
        input: &input,
        status: FleetRunStatus::Running,
        cancel_requested: false,
        nodes: vec![],
    };
    let mut next = ids();
    let begun = run::begin(&state, &mut next);
    assert_eq!(kinds(&begun), ["formation_queued", "node_started"]);
    assert_eq!(begun.runs.len(), 1);
    let outline = &begun.runs[0].run;
    assert_eq!(outline.input.message, "Write about owls");
    assert_eq!(outline.input.node.as_ref().unwrap().node, "outline");
    assert_eq!(begun.runs[0].session.work_dir, "/tmp/fr/outline");
    state.nodes = begun.nodes.clone();

    // The outline's end computes split_lines at once and starts the fleet.
    let ended = run::node_ended(&state, "outline", Outcome::Succeeded(json!("Eyes\nWings\n")), &mut next);
    assert_eq!(kinds(&ended), ["node_finished", "node_started", "node_finished", "node_started"]);
    let fleet = &ended.fleet_runs[0];
    let messages: Vec<&str> = fleet.tasks.iter().map(|t| t.input.message.as_str()).collect();
    assert_eq!(messages, ["Eyes", "Wings"]);
    assert_eq!(fleet.tasks[1].session.work_dir, "/tmp/fr/research/1");
    assert_eq!(ended.fleet_nodes().collect::<Vec<_>>(), [(fleet.id.as_str(), "research")]);
    for row in ended.nodes {
        match state.nodes.iter_mut().find(|n| n.node == row.node) {
            Some(stored) => *stored = row,
            None => state.nodes.push(row),
        }
    }
    // The same end again (a repeated write) starts nothing twice.
    assert!(run::node_ended(&state, "outline", Outcome::Succeeded(json!("x")), &mut next).events.is_empty());

    let ended = run::node_ended(&state, "research", Outcome::Succeeded(json!(["big", "quiet"])), &mut next);
    assert_eq!(ended.runs[0].run.input.message, "big\nquiet");
    state.nodes.extend(ended.nodes.into_iter().filter(|n| n.node != "research"));
    state.nodes.iter_mut().find(|n| n.node == "research").unwrap().status = NodeStatus::Succeeded;
    let last = run::node_ended(&state, "assemble", Outcome::Succeeded(json!("Owls are big and quiet.")), &mut next);
    assert_eq!(kinds(&last), ["node_finished", "done"]);
    let end = last.end.unwrap();
    assert_eq!((end.status, end.outputs), (FleetRunStatus::Succeeded, json!({"assemble": "Owls are big and quiet."})));
}

#[test]
fn a_failed_node_fails_the_run_and_stops_the_rest_and_a_cancel_waits_for_what_runs() {
    let mut snapshot = outline_fleet_assembly();
    // Two entry agents: one fails while the other runs.
    snapshot.formation.nodes = nodes(json!([{"id": "x", "agent_id": "A"}, {"id": "y", "agent_id": "A"}]));
    snapshot.formation.edges = vec![];
    let input = json!("go");
    let mut state = State {
        id: "FR",
        snapshot: &snapshot,
        input: &input,
        status: FleetRunStatus::Running,
        cancel_requested: false,
        nodes: vec![],
    };
    let mut next = ids();
    state.nodes = run::begin(&state, &mut next).nodes;
    let y_run = state.nodes[1].run_id.clone().unwrap();
    let failed = run::node_ended(&state, "x", Outcome::Failed("boom".into()), &mut next);
    let end = failed.end.unwrap();
    assert_eq!((end.status, end.error.as_deref()), (FleetRunStatus::Failed, Some("node \"x\" failed: boom")));
    assert_eq!(failed.cancel, [Work::Run(y_run.clone())]);

    // A cancel stops what runs; the run ends when the last of it has.
    let cancel = run::cancel(&state).unwrap();
    assert_eq!(cancel.cancel.len(), 2);
    assert!(cancel.end.is_none());
    state.cancel_requested = true;
    let first = run::node_ended(&state, "x", Outcome::Cancelled("cancelled".into()), &mut next);
    assert!(first.end.is_none() && first.runs.is_empty());
    state.nodes[0].status = NodeStatus::Cancelled;
    let last = run::node_ended(&state, "y", Outcome::Cancelled("cancelled".into()), &mut next);
    assert_eq!(last.end.unwrap().status, FleetRunStatus::Cancelled);
    state.status = FleetRunStatus::Cancelled;
    assert!(run::cancel(&state).is_err(), "an ended run is not cancelled again");
}
