//! The storage contract for definitions and keys: fleets round-trip through
//! every backend, and several keys are stored together or not at all.

mod store_support;

use chrono::Utc;
use store_support::*;
use wingman::model::{new_id, Fleet};
use wingman::provider::auth::ApiKey;
use wingman::store::StoreError;

fn fleet(agent_id: &str) -> Fleet {
    let now = Utc::now();
    Fleet {
        id: new_id(),
        name: "f".into(),
        agent_id: agent_id.into(),
        worker_count: 5,
        work_dir: Some("/data/documents".into()),
        created_at: now,
        updated_at: now,
    }
}

#[tokio::test]
async fn fleets_are_created_read_listed_updated_and_deleted() {
    for (store, _dir) in backends().await {
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
        first.worker_count = 0;
        first.work_dir = None;
        store.update_fleet(&first).await.unwrap();
        let read = store.get_fleet(&first.id).await.unwrap().unwrap();
        assert_eq!((read.worker_count, read.work_dir), (0, None));
        store.delete_fleet(&first.id).await.unwrap();
        assert!(store.get_fleet(&first.id).await.unwrap().is_none());
        assert!(matches!(store.delete_fleet(&first.id).await, Err(StoreError::NotFound(_))));
        assert!(matches!(store.update_fleet(&first).await, Err(StoreError::NotFound(_))));
        assert_eq!(store.list_fleets().await.unwrap().len(), 1);
    }
}

#[tokio::test]
async fn several_keys_are_stored_in_one_write_and_replace_earlier_ones() {
    for (store, _dir) in backends().await {
        store.put_credential("openai", &ApiKey::new("old-key")).await.unwrap();
        let stored = store
            .put_credentials(vec![
                ("anthropic".into(), ApiKey::new("sk-ant-0123456789abcdefghij")),
                ("openai".into(), ApiKey::new("new-key")),
            ])
            .await
            .unwrap();
        let names: Vec<&str> = stored.iter().map(|c| c.provider.as_str()).collect();
        assert_eq!(names, ["anthropic", "openai"]);
        assert_eq!(stored[0].hint.as_deref(), Some("…ghij"));
        assert_eq!(store.get_credential("openai").await.unwrap().unwrap().expose(), "new-key");
        let listed = store.list_credentials().await.unwrap();
        assert_eq!(listed.len(), 2);
        assert!(listed[1].created_at <= listed[1].updated_at, "a replaced key keeps its first created_at");
    }
}
