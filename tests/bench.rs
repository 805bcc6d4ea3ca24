//! `wingman bench` end to end at small sizes: a burn-down drains what it
//! enqueued and prints its figures, the rate and the CPU a run cost (the
//! database's too when PostgreSQL runs on this machine); a fan-out checks
//! every tail's log; a soak samples every process's memory and what its
//! metrics say it holds. No figure is judged here; docs/benchmarks.md
//! records them.

mod pg_support;

use std::process::Command;

/// Runs a burn-down of `runs` runs over a tenth as many sessions with two
/// worker processes, and answers what it printed.
fn burndown(runs: u32, extra: &[&str]) -> String {
    let (runs, sessions) = (runs.to_string(), (runs / 10).to_string());
    let mut args = vec!["burndown", "--runs", &runs, "--sessions", &sessions, "--workers", "2"];
    args.extend_from_slice(extra);
    bench(&args)
}

/// The line that tells the CPU a run cost.
fn cpu_line(out: &str) -> &str {
    out.lines().find(|line| line.starts_with("CPU per run: worker processes ")).unwrap_or_else(|| panic!("{out}"))
}

#[test]
fn a_burndown_on_sqlite_prints_its_rate_and_the_workers_cpu_per_run() {
    let out = burndown(60, &[]);
    assert!(out.contains("burn-down: 60 one-step runs, 2 worker process(es)"), "{out}");
    assert!(!cpu_line(&out).contains("postgres"), "the database is the workers' own: {out}");
}

#[test]
fn a_burndown_on_postgres_prints_the_databases_cpu_per_run_too() {
    let Some(server) = pg_support::postgres_url_or_skip() else { return };
    let out = burndown(400, &["--postgres", &server]);
    assert!(out.contains("burn-down: 400 one-step runs, 2 worker process(es)"), "{out}");
    // Only a server on this machine shows its processes' time.
    let local = ["@127.0.0.1", "@localhost", "@[::1]"].iter().any(|host| server.contains(host));
    if local {
        assert!(cpu_line(&out).contains(" µs, postgres processes on this machine "), "{out}");
    }
}

/// Runs `wingman bench` with `args` and answers what it printed.
fn bench(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wingman"))
        .arg("bench")
        .args(args)
        .env("WINGMAN_LOG", "warn")
        .output()
        .expect("run the benchmark");
    assert!(out.status.success(), "the benchmark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn a_small_fanout_checks_every_tails_log_and_prints_its_figures() {
    let args = ["fanout", "--tails", "60", "--runs", "3", "--steps", "2", "--words", "5", "--idle-seconds", "1"];
    let out = bench(&args);
    assert!(out.contains("60 tails on 3 queued runs connected"), "{out}");
    assert!(out.contains("KB per connected tail"), "{out}");
    assert!(out.contains("every tail's log exact"), "{out}");
    assert!(out.contains("µs per delivered event"), "{out}");
}

#[test]
fn a_large_answer_prints_the_servers_peak_memory() {
    let out = bench(&["answer", "--bytes", "200000"]);
    assert!(out.contains("an answer of 0.2 MB: 0.4 MB of SSE read"), "{out}");
}

#[test]
fn a_short_soak_samples_every_process_and_what_its_metrics_say_it_holds() {
    let out = bench(&["soak", "--minutes", "0.2", "--sample-secs", "3"]);
    let samples: Vec<&str> = out.lines().filter(|line| line.contains(" runs  server ")).collect();
    assert!(samples.len() >= 3, "a sample every 3 s for 12 s: {out}");
    for sample in &samples {
        assert_eq!(sample.matches(" (sqlite ").count(), 3, "the server's and both workers' metrics: {sample}");
        assert!(!sample.contains("no metrics"), "{sample}");
    }
    let last = samples.last().unwrap();
    assert!(!last.starts_with("    3 s  0 runs"), "the load ran: {out}");
    for process in ["server", "worker-1", "worker-2"] {
        let report = format!("{process}: warm-up peak ");
        assert!(out.lines().any(|line| line.starts_with(&report) && line.contains(" MB a minute")), "{out}");
    }
}

#[test]
fn an_enqueue_under_a_members_key_with_a_quota_prints_its_rate() {
    let out = bench(&["enqueue", "--messages", "64", "--clients", "4", "--keys", "--quota"]);
    assert!(out.contains("enqueue over HTTP under a member's key with a queue quota: 64 messages, 4 clients"), "{out}");
}

#[test]
fn steps_prints_the_figures_asked_for_and_a_zero_skips_one() {
    let both = bench(&["steps", "--tool", "read", "--sequential", "2", "--in-flight", "2", "--rounds", "1"]);
    assert!(both.contains("steps (one run at a time): 2 runs x 21 durable steps"), "{both}");
    assert!(both.contains("steps (2 in flight): 2 runs x 21 durable steps"), "{both}");
    let alone = bench(&["steps", "--tool", "read", "--sequential", "2", "--in-flight", "0"]);
    assert!(alone.contains("steps (one run at a time)") && !alone.contains("in flight"), "{alone}");
    let concurrent = bench(&["steps", "--tool", "read", "--sequential", "0", "--in-flight", "2", "--rounds", "1"]);
    assert!(!concurrent.contains("one run at a time") && concurrent.contains("(2 in flight)"), "{concurrent}");
}
