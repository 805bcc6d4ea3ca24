//! The storage contract for secrets: a value is stored, replaced and deleted
//! under its name; lists show names and times in one order on every backend;
//! a worker reads the values of several names in one call, and only those.

mod store_support;

use std::time::Duration;

use wingman::domain::secret::{Secret, MAX_VALUE_BYTES};
use wingman::domain::toolset::McpServer;
use wingman::store::StoreError;

/// The names `get_secrets` answered, in its order, with their values.
fn exposed(found: &[(String, Secret)]) -> Vec<(&str, &str)> {
    found.iter().map(|(name, value)| (name.as_str(), value.expose())).collect()
}

store_tests! {
    #[tokio::test]
    async fn a_secret_is_stored_replaced_and_deleted_keeping_its_first_created_at(store, _dir) {
        let first = store.put_secret("GITHUB_TOKEN", &Secret::new("ghp-first")).await.unwrap();
        assert_eq!(first.name, "GITHUB_TOKEN");
        assert_eq!(first.created_at, first.updated_at);
        let listed = store.list_secrets().await.unwrap();
        assert_eq!(listed, std::slice::from_ref(&first), "the answer is what a later read shows");
        // Timestamps are milliseconds: the replacement lands in a later one.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let second = store.put_secret("GITHUB_TOKEN", &Secret::new("ghp-second")).await.unwrap();
        assert_eq!(second.created_at, first.created_at, "a replaced value keeps its first created_at");
        assert!(second.updated_at > first.updated_at);
        assert_eq!(store.list_secrets().await.unwrap(), [second]);
        let names = ["GITHUB_TOKEN".to_string()];
        assert_eq!(exposed(&store.get_secrets(&names).await.unwrap()), [("GITHUB_TOKEN", "ghp-second")]);
        store.delete_secret("GITHUB_TOKEN").await.unwrap();
        assert!(store.list_secrets().await.unwrap().is_empty());
        assert!(store.get_secrets(&names).await.unwrap().is_empty());
        assert!(matches!(store.delete_secret("GITHUB_TOKEN").await, Err(StoreError::NotFound("secret"))));
    }

    #[tokio::test]
    async fn one_call_reads_the_stored_ones_of_several_names_in_byte_order(store, _dir) {
        // Upper case sorts before lower case by bytes; a database collation
        // that sorts by letters would put `Zeta` last.
        for (name, value) in [("beta", "b"), ("Zeta", "z"), ("alpha", "a"), ("other.name-2", "o")] {
            store.put_secret(name, &Secret::new(value)).await.unwrap();
        }
        let listed: Vec<String> = store.list_secrets().await.unwrap().into_iter().map(|s| s.name).collect();
        assert_eq!(listed, ["Zeta", "alpha", "beta", "other.name-2"]);
        let asked: Vec<String> = ["beta", "missing", "Zeta", "beta", "alpha"].map(String::from).to_vec();
        let found = store.get_secrets(&asked).await.unwrap();
        assert_eq!(exposed(&found), [("Zeta", "z"), ("alpha", "a"), ("beta", "b")], "once each; none not asked for");
        assert!(store.get_secrets(&[]).await.unwrap().is_empty());
        assert!(store.get_secrets(&["ALPHA".to_string()]).await.unwrap().is_empty(), "names are case-sensitive");
    }

    #[tokio::test]
    async fn the_secrets_of_mcp_servers_are_the_ones_they_name(store, _dir) {
        store.put_secret("token", &Secret::new("t-value")).await.unwrap();
        store.put_secret("unused", &Secret::new("u-value")).await.unwrap();
        let servers: Vec<McpServer> = serde_json::from_value(serde_json::json!([
            {"name": "a", "command": "a", "env": {"TOKEN": {"secret": "token"}, "PLAIN": "p"}},
            {"name": "b", "url": "https://mcp.example/mcp", "headers": {"X": {"secret": "missing"}}},
        ]))
        .unwrap();
        let secrets = store.secrets_of(&servers).await.unwrap();
        assert_eq!(secrets.get("token").map(|s| s.expose()), Some("t-value"));
        assert!(secrets.get("unused").is_none() && secrets.get("missing").is_none(), "{secrets:?}");
        assert_eq!(store.secrets_of(&[]).await.unwrap(), Default::default());
    }

    #[tokio::test]
    async fn a_value_comes_back_byte_for_byte(store, _dir) {
        let values = [
            " spaced, with \"quotes\", 'ticks' and \\ backslashes \n on two lines\r\n".to_string(),
            "ünïcödé ✓ 🔑".to_string(),
            "x".repeat(MAX_VALUE_BYTES),
        ];
        for (i, value) in values.iter().enumerate() {
            store.put_secret(&format!("v{i}"), &Secret::new(value.clone())).await.unwrap();
        }
        let names: Vec<String> = (0..values.len()).map(|i| format!("v{i}")).collect();
        let found = store.get_secrets(&names).await.unwrap();
        let read: Vec<&str> = found.iter().map(|(_, value)| value.expose()).collect();
        assert_eq!(read, values.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn secrets_and_credentials_are_kept_apart(store, _dir) {
        store.put_secret("openai", &Secret::new("a secret")).await.unwrap();
        assert!(store.get_credential("openai").await.unwrap().is_none());
        assert!(store.list_credentials().await.unwrap().is_empty());
        assert!(matches!(store.delete_credential("openai").await, Err(StoreError::NotFound("credential"))));
        assert_eq!(store.list_secrets().await.unwrap().len(), 1, "deleting a credential left the secret");
    }
}
