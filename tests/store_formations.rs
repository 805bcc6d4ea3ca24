//! The storage contract for formation runs and sub-agents, on every backend:
//! a formation run's entry node starts with it and the next one in the
//! commit that ends the node before, each once; a cancel ends what runs and
//! the run with it; a formation run's log is pruned like a fleet run's; a
//! sub-agent's end is written into its waiting parent and queues it; a
//! commit that ends its run starts no sub-agent.

mod store_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::json;
use store_support::*;
use wingman::domain::checkpoint::{Checkpoint, CheckpointBody};
use wingman::domain::formation::run::{NewFormationRun, NodeStatus, Snapshot};
use wingman::domain::formation::Formation;
use wingman::domain::model::{new_id, FleetRunStatus, RunInput, RunStatus};
use wingman::domain::subagent::ParentCall;
use wingman::store::{Commit, FormationRunFilter, Lease, NewChild, Order, Store, StoreError};

/// The sub-agent's run that `parent`'s call `c1` starts, answered by `agent`
/// in a session of its own.
fn child_of(parent: &str, agent: &wingman::domain::model::Agent, dir: &std::path::Path) -> NewChild {
    let call = ParentCall {
        run_id: parent.into(),
        call_id: "c1".into(),
        step: 1,
        tool: "agent__a".into(),
        depth: 1,
        max_depth: 3,
    };
    NewChild {
        run_id: new_id(),
        session: new_session(dir, Some(&agent.id)),
        agent: agent.clone(),
        input: RunInput { message: "the task".into(), parent: Some(call), ..RunInput::new("", Default::default()) },
    }
}

/// A formation `first` → `second`, both answered by `agent`.
fn two_steps(agent: &wingman::domain::model::Agent, dir: &std::path::Path) -> NewFormationRun {
    let now = Utc::now();
    let nodes =
        serde_json::from_value(json!([{"id": "first", "agent_id": agent.id}, {"id": "second", "agent_id": agent.id}]));
    let edges = serde_json::from_value(json!([{"from": "first", "to": "second"}]));
    let formation = Formation {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        shared: false,
        name: "pair".into(),
        nodes: nodes.unwrap(),
        edges: edges.unwrap(),
        version: 1,
        created_at: now,
        updated_at: now,
    };
    let snapshot = Snapshot {
        formation,
        agents: BTreeMap::from([(agent.id.clone(), agent.clone())]),
        fleets: BTreeMap::new(),
        work_dir: dir.to_string_lossy().into_owned(),
        max_attempts: 2,
        webhook: None,
        carried: Default::default(),
    };
    NewFormationRun { id: new_id(), snapshot, input: json!("start") }
}

/// Claims the one claimable run, which must be `run`.
async fn claim(store: &Arc<dyn Store>, run: &str) -> Lease {
    let w = worker(store).await;
    let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
    assert_eq!(claim.lease.run_id, run);
    claim.lease
}

fn node_run(run: &wingman::domain::formation::run::FormationRun, node: &str) -> Option<String> {
    run.nodes.iter().find(|n| n.node == node).and_then(|n| n.run_id.clone())
}

store_tests! {
    #[tokio::test]
    async fn a_formation_runs_nodes_start_once_each_in_the_commit_that_ends_the_node_before(store, dir) {
        let agent = agent(json!({}), 5);
        let new = two_steps(&agent, dir.path());
        let id = new.id.clone();
        let run = store.enqueue_formation_run(new, None).await.unwrap().formation_run;
        assert_eq!(run.status, FleetRunStatus::Running);
        let first = node_run(&run, "first").expect("the entry node started with the run");
        assert_eq!(run.nodes[1].status, NodeStatus::Pending);
        let lease = claim(&store, &first).await;
        store.commit(&lease, text_commit(1, "from the first", true)).await.unwrap();

        let run = store.get_formation_run(&id).await.unwrap().unwrap();
        let second = node_run(&run, "second").expect("the second node started when the first ended");
        assert_eq!(store.get_run(&second).await.unwrap().unwrap().input.message, "from the first");
        let lease = claim(&store, &second).await;
        store.commit(&lease, text_commit(1, "from the second", true)).await.unwrap();

        let run = store.get_formation_run(&id).await.unwrap().unwrap();
        assert_eq!(run.status, FleetRunStatus::Succeeded);
        assert_eq!(run.outputs, Some(json!({"second": "from the second"})));
        let events = store.read_events(&id, 0, 100).await.unwrap();
        assert_eq!(seqs(&events), (1..=events.len() as u64).collect::<Vec<_>>());
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["formation_queued", "node_started", "node_finished", "node_started", "node_finished", "done"]);
        let mut filter = wingman::store::RunFilter { formation_run_id: Some(id.clone()), limit: 10, ..Default::default() };
        assert_eq!(store.list_runs(&filter).await.unwrap().len(), 2, "one run per agent node");
        filter.formation_run_id = Some(new_id());
        assert!(store.list_runs(&filter).await.unwrap().is_empty());

        // Its log is pruned like a fleet run's, and the run stays.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let mut logs = 0;
        loop {
            let batch = store.prune_logs(Duration::ZERO, 1000).await.unwrap();
            if batch.is_empty() {
                break;
            }
            logs += batch.logs;
        }
        assert_eq!(logs, 3, "two node runs and the formation run");
        assert!(store.read_events(&id, 0, 100).await.unwrap().is_empty());
        assert_eq!(store.get_formation_run(&id).await.unwrap().unwrap().status, FleetRunStatus::Succeeded);
    }

    #[tokio::test]
    async fn formations_are_stored_listed_and_deleted_and_their_runs_paged(store, dir) {
        let agent = agent(json!({}), 5);
        let first = two_steps(&agent, dir.path());
        // As stored: times to the millisecond.
        let formation: Formation = serde_json::from_value(serde_json::to_value(&first.snapshot.formation).unwrap()).unwrap();
        store.insert_formation(&formation).await.unwrap();
        assert!(matches!(store.insert_formation(&formation).await, Err(StoreError::Conflict(_))), "an ID is used once");
        assert_eq!(store.get_formation(&formation.id).await.unwrap(), Some(formation.clone()));
        assert_eq!(store.list_formations().await.unwrap(), vec![formation.clone()]);
        let mut ids = Vec::new();
        for new in [first, two_steps(&agent, dir.path()), two_steps(&agent, dir.path())] {
            let mut new = new;
            new.snapshot.formation.id = formation.id.clone();
            ids.push(store.enqueue_formation_run(new, None).await.unwrap().formation_run.id);
        }
        let page = |after: Option<String>, order| FormationRunFilter {
            formation_id: Some(formation.id.clone()),
            owner: None,
            after,
            limit: 2,
            order,
        };
        let first_page = store.list_formation_runs(&page(None, Order::OldestFirst)).await.unwrap();
        assert_eq!(first_page.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), ids[..2]);
        assert!(first_page.iter().all(|r| r.nodes.len() == 2 && r.nodes[0].run_id.is_some()), "each with its nodes");
        let rest = store.list_formation_runs(&page(Some(ids[1].clone()), Order::OldestFirst)).await.unwrap();
        assert_eq!(rest.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), ids[2..]);
        let newest = store.list_formation_runs(&page(None, Order::NewestFirst)).await.unwrap();
        assert_eq!(newest[0].id, ids[2]);
        let other = FormationRunFilter { formation_id: Some(new_id()), limit: 10, ..Default::default() };
        assert!(store.list_formation_runs(&other).await.unwrap().is_empty());

        store.delete_formation(&formation.id).await.unwrap();
        assert_eq!(store.get_formation(&formation.id).await.unwrap(), None);
        assert!(matches!(store.delete_formation(&formation.id).await, Err(StoreError::NotFound(_))));
        assert!(store.get_formation_run(&ids[0]).await.unwrap().is_some(), "its runs stay");
    }

    #[tokio::test]
    async fn a_cancel_ends_what_runs_and_the_formation_run_and_only_once(store, dir) {
        let agent = agent(json!({}), 5);
        let new = two_steps(&agent, dir.path());
        let id = new.id.clone();
        let run = store.enqueue_formation_run(new, None).await.unwrap().formation_run;
        let first = node_run(&run, "first").unwrap();
        let cancelled = store.cancel_formation_run(&id).await.unwrap();
        assert_eq!((cancelled.status, cancelled.cancel_requested), (FleetRunStatus::Cancelled, true));
        assert_eq!(store.get_run(&first).await.unwrap().unwrap().status, RunStatus::Cancelled);
        assert_eq!(cancelled.nodes[1].status, NodeStatus::Pending, "nothing new started");
        assert!(store.cancel_formation_run(&id).await.is_err(), "an ended formation run is not cancelled again");
        let events = store.read_events(&id, 0, 100).await.unwrap();
        assert_eq!(events.last().unwrap().kind, "done");
    }

    #[tokio::test]
    async fn a_commit_that_ends_its_run_and_starts_a_sub_agent_is_refused_and_writes_nothing(store, dir) {
        let parent_agent = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let parent = enqueue(&store, &s, &parent_agent, "delegate").await;
        let lease = claim(&store, &parent).await;
        let before = store.read_events(&parent, 0, 100).await.unwrap();
        let child = child_of(&parent, &parent_agent, dir.path());
        let child_id = child.run_id.clone();
        let mut ending = text_commit(1, "done already", true);
        ending.children = vec![child];
        let refused = store.commit(&lease, ending).await;
        assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
        assert!(store.get_run(&child_id).await.unwrap().is_none(), "no sub-agent was started");
        let run = store.get_run(&parent).await.unwrap().unwrap();
        assert_eq!((run.status, run.children_open), (RunStatus::Running, 0), "the run did not end");
        assert_eq!(store.read_events(&parent, 0, 100).await.unwrap().len(), before.len(), "no event was written");
        store.commit(&lease, text_commit(1, "the answer", true)).await.expect("the lease still holds");
        assert_eq!(store.get_run(&parent).await.unwrap().unwrap().status, RunStatus::Succeeded);
    }

    #[tokio::test]
    async fn a_childs_end_is_written_into_its_waiting_parent_which_it_queues_again(store, dir) {
        let parent_agent = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let parent = enqueue(&store, &s, &parent_agent, "delegate").await;
        let lease = claim(&store, &parent).await;
        let child = child_of(&parent, &parent_agent, dir.path());
        let child_id = child.run_id.clone();
        let started = Checkpoint {
            step: 1,
            body: CheckpointBody::Child { call_id: "c1".into(), run_id: child_id.clone(), agent_id: parent_agent.id.clone() },
        };
        let park = Commit { checkpoints: vec![started], children: vec![child], wait: true, awaits_children: true, ..Default::default() };
        store.commit(&lease, park).await.unwrap();
        let waiting = store.get_run(&parent).await.unwrap().unwrap();
        assert_eq!((waiting.status, waiting.children_open), (RunStatus::Waiting, 1));
        let child_run = store.get_run(&child_id).await.unwrap().unwrap();
        assert_eq!((child_run.parent_run_id.as_deref(), child_run.parent_call_id.as_deref()), (Some(parent.as_str()), Some("c1")));

        let lease = claim(&store, &child_id).await;
        store.commit(&lease, text_commit(1, "the child's answer", true)).await.unwrap();
        let parent_run = store.get_run(&parent).await.unwrap().unwrap();
        assert_eq!((parent_run.status, parent_run.children_open), (RunStatus::Queued, 0), "the last child queues its parent");
        let events = store.read_events(&parent, 0, 100).await.unwrap();
        let tail: Vec<&str> = events.iter().rev().take(2).map(|e| e.kind.as_str()).collect();
        assert_eq!(tail, ["subagent_finished", "tool_result"]);
        assert_eq!(events.iter().find(|e| e.kind == "tool_result").unwrap().data["output"], "the child's answer");
        assert_eq!(seqs(&events), (1..=events.len() as u64).collect::<Vec<_>>());
    }
}
