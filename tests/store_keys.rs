//! The storage contract for API keys: a key is stored by its digest and
//! found by it, listed newest first without its digest, revoked once (a
//! second revocation keeps the first time), and counted live only while
//! neither revoked nor expired. The audit log of what keys did is kept
//! here too: appended once per entry, listed newest first.

mod store_support;

use std::time::Duration;

use wingman::domain::access::{self, By, Role};
use wingman::domain::audit::AuditEntry;
use wingman::domain::model::new_id;
use wingman::store::{AuditFilter, StoreError};

store_tests! {
    #[tokio::test]
    async fn the_audit_log_lists_the_newest_first_by_owner_and_page_and_keeps_an_entry_once(store, _dir) {
        let entry = |owner: &str, action: &str| AuditEntry {
            id: new_id(),
            at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
            by: By { owner: owner.into(), name: Some("ci".into()), key_id: Some(new_id()) },
            role: Role::Member,
            action: action.into(),
            path: "/agents".into(),
            target: None,
            made: Some(new_id()),
            status: 201,
        };
        let written = [entry("alpha", "POST /agents"), entry("beta", "POST /agents"), entry("alpha", "DELETE /agents/{id}")];
        store.record_audit(&written[..2]).await.unwrap();
        store.record_audit(&written[2..]).await.unwrap();
        store.record_audit(&written[..1]).await.unwrap();
        let all = |owner: Option<&str>, after: Option<&str>, limit: u32| AuditFilter {
            owner: owner.map(str::to_string),
            after: after.map(str::to_string),
            limit,
        };
        let listed = store.list_audit(&all(None, None, 10)).await.unwrap();
        assert_eq!(listed, [written[2].clone(), written[1].clone(), written[0].clone()], "newest first, each once");
        let alphas = store.list_audit(&all(Some("alpha"), None, 10)).await.unwrap();
        assert_eq!(alphas, [written[2].clone(), written[0].clone()]);
        let page = store.list_audit(&all(None, Some(&written[2].id), 1)).await.unwrap();
        assert_eq!(page, [written[1].clone()], "after a cursor, the older ones");
        assert!(store.list_audit(&all(Some("gamma"), None, 10)).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_key_is_found_by_its_digest_listed_and_revoked_once(store, _dir) {
        assert!(!store.any_live_api_key().await.unwrap(), "no key yet");
        let first = access::mint("alice".into(), Role::Member, Some("ci".into()), None).unwrap();
        let stored = store.insert_api_key(&first.record).await.unwrap();
        assert_eq!((stored.owner.as_str(), stored.role, stored.name.as_deref()), ("alice", Role::Member, Some("ci")));
        assert_eq!(stored.hint, first.record.hint);
        tokio::time::sleep(Duration::from_millis(5)).await;
        let second = access::mint("rita".into(), Role::Reader, None, None).unwrap();
        store.insert_api_key(&second.record).await.unwrap();
        assert!(store.any_live_api_key().await.unwrap());
        let found = store.find_api_key(access::digest(&first.secret)).await.unwrap();
        assert_eq!(found.as_ref(), Some(&stored), "found by its digest, as it was stored");
        assert_eq!(store.find_api_key(access::digest("wmk_not-a-key")).await.unwrap(), None);
        let listed: Vec<String> = store.list_api_keys().await.unwrap().into_iter().map(|k| k.owner).collect();
        assert_eq!(listed, ["rita", "alice"], "the newest first");
        let revoked = store.revoke_api_key(&stored.id).await.unwrap();
        assert!(revoked.revoked_at.is_some());
        tokio::time::sleep(Duration::from_millis(5)).await;
        let again = store.revoke_api_key(&stored.id).await.unwrap();
        assert_eq!(again.revoked_at, revoked.revoked_at, "revoked once");
        let found = store.find_api_key(access::digest(&first.secret)).await.unwrap().unwrap();
        assert_eq!(found.revoked_at, revoked.revoked_at, "a revoked key is still found, to be refused");
        assert!(matches!(store.revoke_api_key("01JNOKEY000000000000000000").await, Err(StoreError::NotFound("key"))));
    }

    #[tokio::test]
    async fn only_keys_neither_revoked_nor_expired_count_as_live(store, _dir) {
        let past = chrono::Utc::now() - chrono::Duration::seconds(1);
        let expired = access::mint("a".into(), Role::Admin, None, Some(past)).unwrap();
        store.insert_api_key(&expired.record).await.unwrap();
        assert!(!store.any_live_api_key().await.unwrap(), "an expired key is not live");
        let soon = chrono::Utc::now() + chrono::Duration::hours(1);
        let live = access::mint("a".into(), Role::Admin, None, Some(soon)).unwrap();
        let live = store.insert_api_key(&live.record).await.unwrap();
        assert!(store.any_live_api_key().await.unwrap());
        store.revoke_api_key(&live.id).await.unwrap();
        assert!(!store.any_live_api_key().await.unwrap(), "nor a revoked one");
    }
}
