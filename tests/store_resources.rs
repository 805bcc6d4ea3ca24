//! The storage contract for definitions and keys: fleets round-trip through
//! every backend, and several keys are stored together or not at all.

mod store_support;

use std::sync::Arc;

use chrono::Utc;
use serde_json::json;
use store_support::*;
use wingman::domain::model::{new_id, Fleet, FleetRunStatus, FleetStatus, RunInput, RunStatus, Session};
use wingman::provider::auth::ApiKey;
use wingman::store::{FleetRunFilter, IdempotencyKey, NewFleetRun, NewTask, Order, Store, StoreError};

/// The first admin: the owner of the values stored before owners existed, which every owner shares.
const ADMIN: &str = wingman::domain::model::FIRST_ADMIN;

fn fleet(agent_id: &str) -> Fleet {
    let now = Utc::now();
    Fleet {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        shared: false,
        name: "f".into(),
        agent_id: agent_id.into(),
        worker_count: 5,
        work_dir: Some("/data/documents".into()),
        status: FleetStatus::Stopped,
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

store_tests! {
    #[tokio::test]
    async fn an_mcp_listing_is_kept_by_definition_and_only_a_newer_one_replaces_it(store, _dir) {
        use wingman::domain::model::{McpListing, ToolSpec};
        let at = |secs: i64| chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap();
        let tool = |name: &str| ToolSpec { name: name.into(), description: "d".into(), input_schema: json!({"type": "object"}) };
        let listing = |secs: i64, tools: Vec<ToolSpec>, error: Option<&str>| McpListing {
            definition: "def-1".into(),
            server: "s".into(),
            tools,
            error: error.map(String::from),
            listed_at: at(secs),
        };
        assert_eq!(store.mcp_listing("def-1").await.unwrap(), None);
        store.record_mcp_listing(&listing(10, vec![tool("s__a")], None)).await.unwrap();
        store.record_mcp_listing(&listing(20, Vec::new(), Some("down"))).await.unwrap();
        store.record_mcp_listing(&listing(15, vec![tool("s__old")], None)).await.unwrap();
        assert_eq!(store.mcp_listing("def-1").await.unwrap(), Some(listing(20, Vec::new(), Some("down"))), "the newest");
        store.record_mcp_listing(&listing(30, vec![tool("s__a"), tool("s__b")], None)).await.unwrap();
        let kept = store.mcp_listing("def-1").await.unwrap().unwrap();
        assert_eq!((kept.tools.len(), kept.error, kept.listed_at), (2, None, at(30)));
        assert_eq!(store.mcp_listing("def-2").await.unwrap(), None);
    }

    #[tokio::test]
    async fn fleets_are_created_read_listed_updated_and_deleted(store, _dir) {
        let mut first = fleet("agent-1");
        // IDs order by their millisecond first: the second is made a little later.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        let second = fleet("agent-2");
        store.insert_fleet(&first).await.unwrap();
        store.insert_fleet(&second).await.unwrap();
        let read = store.get_fleet(&first.id).await.unwrap().unwrap();
        assert_eq!(
            (read.name.as_str(), read.worker_count, read.work_dir.as_deref()),
            ("f", 5, Some("/data/documents"))
        );
        let listed: Vec<String> = store.list_fleets().await.unwrap().into_iter().map(|f| f.id).collect();
        assert_eq!(listed, [first.id.clone(), second.id.clone()], "oldest first");
        (first.worker_count, first.work_dir, first.version) = (0, None, 2);
        store.update_fleet(&first).await.unwrap();
        let read = store.get_fleet(&first.id).await.unwrap().unwrap();
        assert_eq!((read.worker_count, read.work_dir, read.version), (0, None, 2));
        // A change over version 1 again: it is at 2.
        let stale = store.update_fleet(&Fleet { name: "lost".into(), ..first.clone() }).await;
        assert!(matches!(stale, Err(StoreError::Stale { current: 2, .. })), "{stale:?}");
        assert_eq!(store.get_fleet(&first.id).await.unwrap().unwrap().name, "f", "nothing written");
        store.delete_fleet(&first.id).await.unwrap();
        assert!(store.get_fleet(&first.id).await.unwrap().is_none());
        assert!(matches!(store.delete_fleet(&first.id).await, Err(StoreError::NotFound(_))));
        assert!(matches!(store.update_fleet(&first).await, Err(StoreError::NotFound(_))));
        assert_eq!(store.list_fleets().await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn several_keys_are_stored_in_one_write_and_replace_earlier_ones(store, _dir) {
        store.put_credential(ADMIN, "openai", &ApiKey::new("old-key")).await.unwrap();
        let stored = store
            .put_credentials(ADMIN, vec![
                ("anthropic".into(), ApiKey::new("sk-ant-0123456789abcdefghij")),
                ("openai".into(), ApiKey::new("new-key")),
            ])
            .await
            .unwrap();
        let names: Vec<&str> = stored.iter().map(|c| c.provider.as_str()).collect();
        assert_eq!(names, ["anthropic", "openai"]);
        assert_eq!(stored[0].hint.as_deref(), Some("…ghij"));
        assert_eq!(store.get_credential(ADMIN, "openai").await.unwrap().unwrap().expose(), "new-key");
        let listed = store.list_credentials(ADMIN).await.unwrap();
        assert_eq!(listed.len(), 2);
        assert!(listed[1].created_at <= listed[1].updated_at, "a replaced key keeps its first created_at");
    }
}

/// A fleet run of `n` one-line tasks with a cap of `cap`, on a fleet made for it.
async fn fleet_run(store: &Arc<dyn Store>, n: usize, cap: u32, key: Option<IdempotencyKey>) -> (String, bool) {
    let a = agent(json!({}), 5);
    let f = fleet(&a.id);
    store.insert_fleet(&f).await.unwrap();
    let now = Utc::now();
    let tasks = (0..n)
        .map(|i| NewTask {
            run_id: new_id(),
            session: Session {
                id: new_id(),
                owner: wingman::domain::model::first_admin(),
                agent_id: Some(a.id.clone()),
                title: None,
                work_dir: std::env::temp_dir().to_string_lossy().into_owned(),
                metadata: json!({}),
                added_tools: Default::default(),
                forked_from: None,
                created_at: now,
                updated_at: now,
            },
            input: RunInput {
                message: format!("task {i}"),
                instructions: None,
                data: Some(json!(i)),
                ..RunInput::new("", Default::default())
            },
        })
        .collect();
    let new = NewFleetRun {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        fleet_id: f.id,
        agent: a,
        worker_count: cap,
        tasks,
        max_attempts: 2,
        webhook: None,
    };
    let enqueued = store.enqueue_fleet_run(new, key).await.unwrap();
    (enqueued.fleet_run.id, enqueued.created)
}

store_tests! {
    #[tokio::test]
    async fn a_fleet_runs_tasks_hold_its_slots_and_each_ending_writes_one_result(store, _dir) {
        let (id, _) = fleet_run(&store, 5, 2, None).await;
        let run = store.get_fleet_run(&id).await.unwrap().unwrap();
        let fleet_of =
            |store: Arc<dyn Store>, fleet_id: String| async move { store.get_fleet(&fleet_id).await.unwrap().unwrap() };
        assert_eq!(fleet_of(store.clone(), run.fleet_id.clone()).await.status, FleetStatus::Running);
        assert_eq!((run.status, run.progress.total, run.progress.queued), (FleetRunStatus::Queued, 5, 5));
        let w = worker(&store).await;
        let claims = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(claims.len(), 2, "two slots");
        let run = store.get_fleet_run(&id).await.unwrap().unwrap();
        assert_eq!((run.status, run.progress.running, run.progress.queued), (FleetRunStatus::Running, 2, 3));
        // Each task that ends passes its slot to the next.
        let mut ended = 0;
        let mut claims = claims;
        while let Some(claim) = claims.pop() {
            store.commit(&claim.lease, text_commit(1, "ok", true)).await.unwrap();
            ended += 1;
            claims.extend(store.claim_runs(&w, 10).await.unwrap());
            assert!(claims.len() <= 2, "never more than the cap");
        }
        assert_eq!(ended, 5);
        let run = store.get_fleet_run(&id).await.unwrap().unwrap();
        assert_eq!((run.status, run.progress.succeeded), (FleetRunStatus::Succeeded, 5));
        assert_eq!(fleet_of(store.clone(), run.fleet_id.clone()).await.status, FleetStatus::Stopped);
        let events = store.read_events(&id, 0, 100).await.unwrap();
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["fleet_queued", "result", "result", "result", "result", "result", "done"]);
        assert_eq!(seqs(&events), [1, 2, 3, 4, 5, 6, 7]);
        let tasks = store.fleet_run_tasks(&id, Some(1), 2).await.unwrap();
        let indexes: Vec<Option<u32>> = tasks.iter().map(|t| t.task_index).collect();
        assert_eq!(indexes, [Some(2), Some(3)], "a page after task 1");
        assert!(tasks.iter().all(|t| t.status == RunStatus::Succeeded));
    }

    #[tokio::test]
    async fn cancelling_a_fleet_run_ends_every_open_task_once(store, _dir) {
        let (id, _) = fleet_run(&store, 4, 1, None).await;
        let w = worker(&store).await;
        assert_eq!(store.claim_runs(&w, 10).await.unwrap().len(), 1);
        let run = store.cancel_fleet_run(&id, &admin()).await.unwrap();
        assert_eq!((run.status, run.progress.cancelled, run.progress.running), (FleetRunStatus::Cancelled, 4, 0));
        assert!(matches!(store.cancel_fleet_run(&id, &admin()).await, Err(StoreError::Conflict(_))));
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "nothing of it is claimable");
        let events = store.read_events(&id, 0, 100).await.unwrap();
        assert_eq!(events.iter().filter(|e| e.kind == "result").count(), 4);
        assert_eq!(events.last().unwrap().kind, "done");
        assert!(matches!(store.cancel_fleet_run("nope", &admin()).await, Err(StoreError::NotFound(_))));
    }

    #[tokio::test]
    async fn fleet_runs_are_listed_and_an_idempotency_key_returns_the_first(store, _dir) {
        let key = || IdempotencyKey { scope: "fleet:x".into(), key: "k".into(), request_hash: "h".into() };
        let (first, created) = fleet_run(&store, 2, 0, Some(key())).await;
        assert!(created);
        let (again, created) = fleet_run(&store, 2, 0, Some(key())).await;
        assert_eq!((again.as_str(), created), (first.as_str(), false));
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        let (second, _) = fleet_run(&store, 1, 0, None).await;
        let all = store.list_fleet_runs(&FleetRunFilter { limit: 10, ..Default::default() }).await.unwrap();
        let ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, [first.as_str(), second.as_str()]);
        let page = FleetRunFilter { after: Some(first.clone()), limit: 10, ..Default::default() };
        assert_eq!(store.list_fleet_runs(&page).await.unwrap().len(), 1);
        let newest = FleetRunFilter { limit: 1, order: Order::NewestFirst, ..Default::default() };
        assert_eq!(store.list_fleet_runs(&newest).await.unwrap()[0].id, second, "newest first");
        let older = FleetRunFilter { after: Some(second.clone()), ..newest };
        assert_eq!(store.list_fleet_runs(&older).await.unwrap()[0].id, first, "then the one before");
        let w = worker(&store).await;
        assert_eq!(store.claim_runs(&w, 10).await.unwrap().len(), 3, "no cap: every task at once");
    }
}
