//! The storage contract for API keys: a key is stored by its digest and
//! found by it, listed newest first without its digest, revoked once (a
//! second revocation keeps the first time), and counted live only while
//! neither revoked nor expired.

mod store_support;

use std::time::Duration;

use wingman::domain::access::{self, Role};
use wingman::store::StoreError;

store_tests! {
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
