//! The command line's token: sent with every request, event streams
//! included, and named by the error a 401 answer gives.

mod common;

use std::sync::{Arc, Mutex};

use common::TestEnv;
use serde_json::json;

/// The summary line a followed run ends with.
fn summary_of(stderr: &str) -> &str {
    stderr.lines().rev().find(|l| l.starts_with("run ") && l.contains(" · ")).unwrap_or_default()
}

/// A stand-in for a server started with `--auth-token`: it answers 401
/// unless a request carries `Authorization: Bearer <token>`, and records
/// each request's first line with the header it carried.
async fn token_checking_server(token: &'static str) -> (String, Arc<Mutex<Vec<(String, String)>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let line = head.lines().next().unwrap_or_default().to_string();
            let auth =
                head.lines().find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("authorization")));
            let auth = auth.map(|(_, v)| v.trim().to_string()).unwrap_or_default();
            log.lock().unwrap().push((line.clone(), auth.clone()));
            let run = json!({"id": "R1", "status": "succeeded", "steps": 1, "usage": {"input_tokens": 1, "output_tokens": 2}});
            let (status, body) = match (auth == format!("Bearer {token}"), line.as_str()) {
                (false, _) => ("401 Unauthorized", json!({"error": "a bearer token is required"}).to_string()),
                (true, l) if l.starts_with("GET /runs/R1/events") => ("204 No Content", String::new()),
                (true, l) if l.starts_with("GET /runs/R1 ") => ("200 OK", run.to_string()),
                (true, _) => ("200 OK", json!({"runs": [], "next_after": null}).to_string()),
            };
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    (url, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auth_token_goes_with_every_request_and_a_401_names_it() {
    let (url, seen) = token_checking_server("s3cret").await;
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", "");
    let (code, _, err) = env.client_exit(&["runs", "--server", &url]);
    assert_eq!(code, 1);
    assert!(err.contains("401") && err.contains("--auth-token") && err.contains("WINGMAN_AUTH_TOKEN"), "{err}");
    let (code, _, err) = env.client_exit(&["tail", "R1", "--auth-token", "wrong", "--server", &url]);
    assert!(code == 1 && err.contains("refused the token"), "{err}");

    let (code, out, err) = env.client_exit(&["runs", "--auth-token", "s3cret", "--server", &url]);
    assert!(code == 0 && out.trim() == "no runs", "{out}\n{err}");
    seen.lock().unwrap().clear();
    env.set("WINGMAN_AUTH_TOKEN", "s3cret");
    let (code, _, err) = env.client_exit(&["tail", "R1", "--server", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(summary_of(&err).starts_with("run R1 succeeded · 1 step · 1 in / 2 out tokens"), "{err}");
    let seen = seen.lock().unwrap().clone();
    let lines: Vec<&str> = seen.iter().map(|(line, _)| line.as_str()).collect();
    assert!(lines[0].starts_with("GET /runs/R1/events ") && lines[1].starts_with("GET /runs/R1 "), "{lines:?}");
    assert!(seen.iter().all(|(_, auth)| auth == "Bearer s3cret"), "the event stream too: {seen:?}");
}
