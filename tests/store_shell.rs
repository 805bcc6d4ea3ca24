//! The storage contract for a session's shell state, on every backend: a
//! commit stores it with the call's checkpoints, the session's next run is
//! loaded with it, and a fenced write leaves it as it was.

mod store_support;

use std::time::Duration;

use serde_json::json;
use store_support::*;
use wingman::domain::checkpoint::{Checkpoint, CheckpointBody};
use wingman::domain::shell::ShellState;
use wingman::store::{Commit, StoreError};

store_tests! {
    #[tokio::test]
    async fn a_commit_keeps_the_sessions_shell_and_a_fenced_one_leaves_it(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let first = enqueue(&store, &s, &a, "1").await;
        let second = enqueue(&store, &s, &a, "2").await;
        assert_eq!(store.load_run(&first).await.unwrap().shell, None, "none before the first bash call");
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        let state = ShellState { dir: "src".into(), vars: [("X".into(), "1".into())].into(), ..Default::default() };
        let cp = Checkpoint { step: 1, body: CheckpointBody::Shell { call_id: "c".into(), state: state.clone() } };
        let commit = Commit { checkpoints: vec![cp.clone()], shell: Some(state.clone()), ..Default::default() };
        store.commit(&claim.lease, commit).await.unwrap();
        // The run's checkpoints hold it, and the session's next run starts
        // from it, loaded alone or in a batch alike.
        assert_eq!(store.load_run(&first).await.unwrap().checkpoints, [cp]);
        assert_eq!(store.load_run(&second).await.unwrap().shell.as_ref(), Some(&state));
        assert_eq!(store.load_runs(vec![second.clone()], Default::default()).await.unwrap()[0].shell.as_ref(), Some(&state));
        // A write under a lapsed lease changes nothing.
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        let later = ShellState { dir: "elsewhere".into(), ..Default::default() };
        let refused = store.commit(&claim.lease, Commit { shell: Some(later), ..Default::default() }).await;
        assert!(matches!(refused, Err(StoreError::Fenced)), "{refused:?}");
        assert_eq!(store.load_run(&second).await.unwrap().shell, Some(state));
    }
}
