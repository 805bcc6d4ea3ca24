//! The storage contract for secrets: a value is stored, replaced and deleted
//! under its owner and name; lists show names and times in one order on
//! every backend; a worker reads the values of several names in one call,
//! and only those, its run's owner's or else the first admin's.

mod store_support;

use std::time::Duration;

use wingman::domain::credential::ApiKey;
use wingman::domain::secret::{Secret, MAX_VALUE_BYTES};
use wingman::domain::toolset::McpServer;
use wingman::store::StoreError;

/// The first admin: the owner of the values stored before owners existed, which every owner shares.
const ADMIN: &str = wingman::domain::model::FIRST_ADMIN;

/// The names `get_secrets` answered, in its order, with their values.
fn exposed(found: &[(String, Secret)]) -> Vec<(&str, &str)> {
    found.iter().map(|(name, value)| (name.as_str(), value.expose())).collect()
}

/// The OpenAI key a run of `owner` is given.
async fn key(store: &std::sync::Arc<dyn wingman::store::Store>, owner: &str) -> String {
    store.get_credential(owner, "openai").await.unwrap().unwrap().expose().to_string()
}

store_tests! {
    #[tokio::test]
    async fn a_secret_is_stored_replaced_and_deleted_keeping_its_first_created_at(store, _dir) {
        let first = store.put_secret(ADMIN, "GITHUB_TOKEN", &Secret::new("ghp-first")).await.unwrap();
        assert_eq!(first.name, "GITHUB_TOKEN");
        assert_eq!(first.created_at, first.updated_at);
        let listed = store.list_secrets(ADMIN).await.unwrap();
        assert_eq!(listed, std::slice::from_ref(&first), "the answer is what a later read shows");
        // Timestamps are milliseconds: the replacement lands in a later one.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let second = store.put_secret(ADMIN, "GITHUB_TOKEN", &Secret::new("ghp-second")).await.unwrap();
        assert_eq!(second.created_at, first.created_at, "a replaced value keeps its first created_at");
        assert!(second.updated_at > first.updated_at);
        assert_eq!(store.list_secrets(ADMIN).await.unwrap(), [second]);
        let names = ["GITHUB_TOKEN".to_string()];
        assert_eq!(exposed(&store.get_secrets(ADMIN, &names).await.unwrap()), [("GITHUB_TOKEN", "ghp-second")]);
        store.delete_secret(ADMIN, "GITHUB_TOKEN").await.unwrap();
        assert!(store.list_secrets(ADMIN).await.unwrap().is_empty());
        assert!(store.get_secrets(ADMIN, &names).await.unwrap().is_empty());
        assert!(matches!(store.delete_secret(ADMIN, "GITHUB_TOKEN").await, Err(StoreError::NotFound("secret"))));
    }

    #[tokio::test]
    async fn one_call_reads_the_stored_ones_of_several_names_in_byte_order(store, _dir) {
        // Upper case sorts before lower case by bytes; a database collation
        // that sorts by letters would put `Zeta` last.
        for (name, value) in [("beta", "b"), ("Zeta", "z"), ("alpha", "a"), ("other.name-2", "o")] {
            store.put_secret(ADMIN, name, &Secret::new(value)).await.unwrap();
        }
        let listed: Vec<String> = store.list_secrets(ADMIN).await.unwrap().into_iter().map(|s| s.name).collect();
        assert_eq!(listed, ["Zeta", "alpha", "beta", "other.name-2"]);
        let asked: Vec<String> = ["beta", "missing", "Zeta", "beta", "alpha"].map(String::from).to_vec();
        let found = store.get_secrets(ADMIN, &asked).await.unwrap();
        assert_eq!(exposed(&found), [("Zeta", "z"), ("alpha", "a"), ("beta", "b")], "once each; none not asked for");
        assert!(store.get_secrets(ADMIN, &[]).await.unwrap().is_empty());
        assert!(store.get_secrets(ADMIN, &["ALPHA".to_string()]).await.unwrap().is_empty(), "names are case-sensitive");
    }

    #[tokio::test]
    async fn the_secrets_of_mcp_servers_are_the_ones_they_name(store, _dir) {
        store.put_secret(ADMIN, "token", &Secret::new("t-value")).await.unwrap();
        store.put_secret(ADMIN, "unused", &Secret::new("u-value")).await.unwrap();
        let servers: Vec<McpServer> = serde_json::from_value(serde_json::json!([
            {"name": "a", "command": "a", "env": {"TOKEN": {"secret": "token"}, "PLAIN": "p"}},
            {"name": "b", "url": "https://mcp.example/mcp", "headers": {"X": {"secret": "missing"}}},
        ]))
        .unwrap();
        let secrets = store.secrets_of(ADMIN, &servers).await.unwrap();
        assert_eq!(secrets.get("token").map(|s| s.expose()), Some("t-value"));
        assert!(secrets.get("unused").is_none() && secrets.get("missing").is_none(), "{secrets:?}");
        assert_eq!(store.secrets_of(ADMIN, &[]).await.unwrap(), Default::default());
    }

    #[tokio::test]
    async fn a_value_comes_back_byte_for_byte(store, _dir) {
        let values = [
            " spaced, with \"quotes\", 'ticks' and \\ backslashes \n on two lines\r\n".to_string(),
            "ünïcödé ✓ 🔑".to_string(),
            "x".repeat(MAX_VALUE_BYTES),
        ];
        for (i, value) in values.iter().enumerate() {
            store.put_secret(ADMIN, &format!("v{i}"), &Secret::new(value.clone())).await.unwrap();
        }
        let names: Vec<String> = (0..values.len()).map(|i| format!("v{i}")).collect();
        let found = store.get_secrets(ADMIN, &names).await.unwrap();
        let read: Vec<&str> = found.iter().map(|(_, value)| value.expose()).collect();
        assert_eq!(read, values.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn secrets_and_credentials_are_kept_apart(store, _dir) {
        store.put_secret(ADMIN, "openai", &Secret::new("a secret")).await.unwrap();
        assert!(store.get_credential(ADMIN, "openai").await.unwrap().is_none());
        assert!(store.list_credentials(ADMIN).await.unwrap().is_empty());
        assert!(matches!(store.delete_credential(ADMIN, "openai").await, Err(StoreError::NotFound("credential"))));
        assert_eq!(store.list_secrets(ADMIN).await.unwrap().len(), 1, "deleting a credential left the secret");
    }

    #[tokio::test]
    async fn a_run_uses_its_owners_value_of_a_name_else_the_first_admins(store, _dir) {
        store.put_secret(ADMIN, "TOKEN", &Secret::new("shared")).await.unwrap();
        store.put_secret(ADMIN, "ONLY_SHARED", &Secret::new("s2")).await.unwrap();
        store.put_secret("alpha", "TOKEN", &Secret::new("alpha's")).await.unwrap();
        store.put_secret("alpha", "PRIVATE", &Secret::new("p")).await.unwrap();
        let names = ["ONLY_SHARED".to_string(), "PRIVATE".to_string(), "TOKEN".to_string()];
        let alpha = store.get_secrets("alpha", &names).await.unwrap();
        assert_eq!(exposed(&alpha), [("ONLY_SHARED", "s2"), ("PRIVATE", "p"), ("TOKEN", "alpha's")]);
        let beta = store.get_secrets("beta", &names).await.unwrap();
        assert_eq!(exposed(&beta), [("ONLY_SHARED", "s2"), ("TOKEN", "shared")], "never alpha's own");
        let owners = |listed: Vec<wingman::domain::secret::SecretInfo>| -> Vec<(String, String)> {
            listed.into_iter().map(|s| (s.name, s.owner)).collect()
        };
        let pair = |name: &str, owner: &str| (name.to_string(), owner.to_string());
        let listed = owners(store.list_secrets("alpha").await.unwrap());
        assert_eq!(listed, [pair("ONLY_SHARED", ADMIN), pair("PRIVATE", "alpha"), pair("TOKEN", "alpha")]);
        let listed = owners(store.list_secrets("beta").await.unwrap());
        assert_eq!(listed, [pair("ONLY_SHARED", ADMIN), pair("TOKEN", ADMIN)]);
        assert!(matches!(store.delete_secret("beta", "TOKEN").await, Err(StoreError::NotFound("secret"))));
        store.delete_secret("alpha", "TOKEN").await.unwrap();
        let alpha = store.get_secrets("alpha", &names).await.unwrap();
        assert_eq!(exposed(&alpha)[2], ("TOKEN", "shared"), "with its own gone, the shared one");

        store.put_credential(ADMIN, "openai", &ApiKey::new("sk-shared-0123456789abc")).await.unwrap();
        store.put_credential("alpha", "openai", &ApiKey::new("sk-alpha-0123456789abc")).await.unwrap();
        assert_eq!(key(&store, "alpha").await, "sk-alpha-0123456789abc");
        assert_eq!(key(&store, "beta").await, "sk-shared-0123456789abc", "never alpha's key");
        let listed = store.list_credentials("alpha").await.unwrap();
        assert_eq!((listed.len(), listed[0].owner.as_str()), (1, "alpha"), "one per name, the owner's own first");
        assert!(matches!(store.delete_credential("beta", "openai").await, Err(StoreError::NotFound("credential"))));
        store.delete_credential("alpha", "openai").await.unwrap();
        assert_eq!(key(&store, "alpha").await, "sk-shared-0123456789abc");
    }
}
