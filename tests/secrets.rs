//! Secrets over HTTP and the command line: `PUT /secrets/{name}`,
//! `GET /secrets`, `DELETE /secrets/{name}` and `wingman secret`. A value
//! goes in and never comes out: not in an answer, not in an error, not in a
//! line of the server's log at its most talkative level.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{Api, Backend, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const FIRST: &str = "first-SENTINEL-7d1c2b9a";
const SECOND: &str = "second-SENTINEL-4e8f0a6c";

/// A server whose log records everything it can (`trace`), to be searched.
fn talkative(backend: Backend) -> TestEnv {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_LOG", "trace");
    env
}

/// How many rows `secrets` holds under `name` with exactly `value`.
async fn stored(env: &TestEnv, name: &str, value: &str) -> i64 {
    env.count("SELECT COUNT(*) FROM secrets WHERE name = $1 AND value = $2", &[name, value]).await
}

/// Asserts that nothing the client received holds a sentinel value.
fn assert_never_shown(api: &Api, log: &str) {
    let answers = api.transcript();
    assert!(!answers.contains("SENTINEL"), "a value reached an answer: {answers}");
    assert!(!log.contains("SENTINEL"), "a value reached the server's log");
}

on_both_backends! {
    async fn a_secret_is_set_listed_replaced_and_deleted_and_never_shown(backend: Backend) {
        let env = talkative(backend);
        let server = env.server(0);
        let api = server.api();
        let (status, first) = api.put("/secrets/GITHUB_TOKEN", json!({"value": FIRST})).await;
        assert_eq!(status, 200, "{first}");
        let fields: Vec<&String> = first.as_object().unwrap().keys().collect();
        assert_eq!(fields, ["created_at", "name", "owner", "updated_at"], "{first}");
        assert_eq!((&first["name"], &first["created_at"]), (&json!("GITHUB_TOKEN"), &first["updated_at"]));
        assert_eq!(stored(&env, "GITHUB_TOKEN", FIRST).await, 1);
        let (status, listed) = api.get("/secrets").await;
        assert_eq!((status, listed.clone()), (200, json!([first])));

        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let (status, second) = api.put("/secrets/GITHUB_TOKEN", json!({"value": SECOND})).await;
        assert_eq!(status, 200, "{second}");
        assert_eq!(second["created_at"], first["created_at"], "a replaced value keeps its first created_at");
        assert_ne!(second["updated_at"], first["updated_at"]);
        assert_eq!((stored(&env, "GITHUB_TOKEN", FIRST).await, stored(&env, "GITHUB_TOKEN", SECOND).await), (0, 1));
        assert_eq!(api.get("/secrets").await.1, json!([second]));

        let (status, answer) = api.request(Method::DELETE, "/secrets/GITHUB_TOKEN", None).await;
        assert_eq!((status, answer), (200, json!({"status": "deleted"})));
        let (status, answer) = api.request(Method::DELETE, "/secrets/GITHUB_TOKEN", None).await;
        assert_eq!(status, 404, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains("secret GITHUB_TOKEN not found"), "{answer}");
        assert_eq!(api.get("/secrets").await.1, json!([]));
        assert_eq!(env.count("SELECT COUNT(*) FROM secrets", &[]).await, 0);
        let log = server.process.log_text();
        assert!(log.contains("/secrets/GITHUB_TOKEN") && log.contains("secret stored"), "the trace log shows requests");
        assert_never_shown(&api, &log);
    }

    async fn bad_names_and_values_are_refused_without_quoting_them_and_write_nothing(backend: Backend) {
        let env = talkative(backend);
        let server = env.server(0);
        let api = server.api();
        let (status, _) = api.put("/secrets/KEPT", json!({"value": FIRST})).await;
        assert_eq!(status, 200);
        let before = api.get("/secrets").await.1;
        let long_name = "n".repeat(129);
        let too_long = format!("{SECOND}{}", "v".repeat(64 * 1024));
        let refused = [
            ("a%20b".to_string(), json!({"value": SECOND}), 400, "secret name"),
            ("a:b".into(), json!({"value": SECOND}), 400, "secret name"),
            ("%C3%A9".into(), json!({"value": SECOND}), 400, "secret name"),
            (long_name.clone(), json!({"value": SECOND}), 400, "secret name"),
            ("KEPT".into(), json!({"value": ""}), 400, "must not be empty"),
            ("KEPT".into(), json!({"value": format!("{SECOND}\u{0}")}), 400, "NUL"),
            ("KEPT".into(), json!({"value": too_long}), 400, "64 KiB"),
            ("KEPT".into(), json!({"value": SECOND, "extra": SECOND}), 422, "{\"value\": \"…\"}"),
            ("KEPT".into(), json!({SECOND: SECOND}), 422, "{\"value\": \"…\"}"),
            ("KEPT".into(), json!({"value": [SECOND]}), 422, "{\"value\": \"…\"}"),
            ("KEPT".into(), json!({"secret": {"value": SECOND}}), 422, "{\"value\": \"…\"}"),
        ];
        for (name, body, status, message) in refused {
            let (got, answer) = api.put(&format!("/secrets/{name}"), body.clone()).await;
            assert_eq!(got, status, "{name} {body}: {answer}");
            let error = answer["error"].as_str().unwrap_or_else(|| panic!("not an error: {answer}"));
            assert!(error.contains(message), "{name}: {error}");
        }
        let malformed = api.http.put(format!("{}/secrets/KEPT", api.base))
            .header("content-type", "application/json")
            .body(format!("{{\"value\": \"{SECOND}"))
            .send().await.unwrap();
        assert_eq!(malformed.status(), 400);
        let text = malformed.text().await.unwrap();
        api.transcript.lock().unwrap().push(text);
        let (status, _) = api.request(Method::DELETE, &format!("/secrets/{long_name}"), None).await;
        assert_eq!(status, 400);

        assert_eq!(api.get("/secrets").await.1, before, "a refused request changed the list");
        assert_eq!(env.count("SELECT COUNT(*) FROM secrets", &[]).await, 1);
        assert_eq!(stored(&env, "KEPT", FIRST).await, 1, "a refused PUT replaced nothing");
        assert_never_shown(&api, &server.process.log_text());
    }
}

/// Runs `wingman secret …` against `server`, with `stdin` piped in when
/// given; answers (success, stdout, stderr).
fn secret(env: &TestEnv, server: &str, args: &[&str], stdin: Option<&str>) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wingman"))
        .arg("secret")
        .args(args)
        .args(["--server", server])
        .envs(env.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default().as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_sets_a_value_from_stdin_or_a_flag_lists_names_and_deletes() {
    let env = TestEnv::new();
    let server = env.server(0);
    let url = server.url.clone();
    // Piped: all of standard input, less its final newline.
    let (ok, out, err) = secret(&env, &url, &["set", "PEM", "--json"], Some(&format!("{FIRST}\nline two\n")));
    assert!(ok, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["name"], "PEM", "{out}");
    assert_eq!(env.count("SELECT COUNT(*) FROM secrets WHERE value = $1", &[&format!("{FIRST}\nline two")]).await, 1);
    let (ok, _, err) = secret(&env, &url, &["set", "TOKEN", "--value", SECOND], None);
    assert!(ok, "{err}");
    assert_eq!(env.count("SELECT COUNT(*) FROM secrets WHERE value = $1", &[SECOND]).await, 1);

    let (ok, out, err) = secret(&env, &url, &["list", "--json"], None);
    assert!(ok, "{err}");
    let names: Vec<Value> =
        serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().iter().map(|s| s["name"].clone()).collect();
    assert_eq!(names, [json!("PEM"), json!("TOKEN")]);
    let (ok, _, err) = secret(&env, &url, &["set", "bad name", "--value", SECOND], None);
    assert!(!ok && err.contains("400") && err.contains("secret name") && !err.contains("SENTINEL"), "{err}");
    let (ok, _, err) = secret(&env, &url, &["set", "EMPTY"], Some("\n"));
    assert!(!ok && err.contains("must not be empty"), "{err}");
    let (ok, out, err) = secret(&env, &url, &["delete", "PEM"], None);
    assert!(ok && out.contains("deleted"), "{err}");
    let (ok, _, err) = secret(&env, &url, &["delete", "PEM"], None);
    assert!(!ok && err.contains("404"), "{err}");
    assert_eq!(env.count("SELECT COUNT(*) FROM secrets", &[]).await, 1);
}
