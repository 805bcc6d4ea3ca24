//! The command line against a server started with `--auth-token`: the token
//! goes with every request, event streams included, and a 401 names it.

mod common;

use common::TestEnv;
use serde_json::Value;

const TOKEN: &str = "cli-test-token-5d2e8b";

/// The summary line a followed run ends with.
fn summary_of(stderr: &str) -> &str {
    stderr.lines().rev().find(|l| l.starts_with("run ") && l.contains(" · ")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auth_token_goes_with_every_request_and_a_401_names_it() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(1);
    let url = server.url.clone();

    // No token (an empty variable is unset), then a wrong one.
    env.set("WINGMAN_AUTH_TOKEN", "");
    let (code, _, err) = env.client_exit(&["runs", "--server", &url]);
    assert_eq!(code, 1);
    assert!(err.contains("401") && err.contains("--auth-token") && err.contains("WINGMAN_AUTH_TOKEN"), "{err}");
    let (code, _, err) = env.client_exit(&["agents", "--auth-token", "wrong", "--server", &url]);
    assert!(code == 1 && err.contains("refused the token"), "{err}");

    // With the token from the flag, then from the variable: a whole tour,
    // its live tail included, which would end in a 401 if any request went
    // without it.
    let (code, out, err) =
        env.client_exit(&["agents", "create", "--name", "a", "--json", "--auth-token", TOKEN, "--server", &url]);
    assert_eq!(code, 0, "{err}");
    let agent = serde_json::from_str::<Value>(&out).unwrap()["id"].as_str().unwrap().to_string();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let (code, out, err) = env.client_exit(&["sessions", "create", "--agent", &agent, "--json", "--server", &url]);
    assert_eq!(code, 0, "{err}");
    let session = serde_json::from_str::<Value>(&out).unwrap()["id"].as_str().unwrap().to_string();
    let (code, out, err) = env.client_exit(&["send", &session, "hello with a token", "--follow", "--server", &url]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("hello with a token"), "{out}");
    assert!(summary_of(&err).contains("succeeded"), "{err}");
    let (code, out, err) = env.client_exit(&["runs", "--server", &url]);
    assert!(code == 0 && out.contains("succeeded"), "{out}\n{err}");
    let run = out.lines().nth(1).and_then(|l| l.split_whitespace().next()).unwrap_or_default().to_string();
    let (code, _, err) = env.client_exit(&["tail", &run, "--server", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(summary_of(&err).starts_with(&format!("run {run} succeeded")), "{err}");
    assert!(!server.process.log_text().contains(TOKEN), "the token reached the server's log");
}
