//! The worker settings of tools that reach the network: the private-network
//! switch of webfetch, and the hosts and signing secret of HTTP tools.

use clap::Parser;
use wingman::config::WorkerArgs;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    worker: WorkerArgs,
}

fn allowed(args: &[&str]) -> bool {
    let cli = Cli::try_parse_from(std::iter::once("worker").chain(args.iter().copied())).unwrap();
    cli.worker.worker_config("w".into()).engine.allow_private_network
}

#[test]
fn private_network_access_is_off_unless_asked_for() {
    // One test touches the variable, so no other test races with it.
    std::env::remove_var("WINGMAN_ALLOW_PRIVATE_NETWORK");
    assert!(!allowed(&[]));
    assert!(allowed(&["--allow-private-network"]));
    for (value, expected) in
        [("true", true), ("false", false), ("1", true), ("0", false), ("yes", true), ("off", false)]
    {
        std::env::set_var("WINGMAN_ALLOW_PRIVATE_NETWORK", value);
        assert_eq!(allowed(&[]), expected, "WINGMAN_ALLOW_PRIVATE_NETWORK={value}");
    }
    std::env::remove_var("WINGMAN_ALLOW_PRIVATE_NETWORK");
    assert!(!wingman::engine::LoopConfig::default().allow_private_network);
}

#[test]
fn tool_hosts_and_the_signing_secret_reach_the_engine_from_the_flags() {
    let parse = |args: &[&str]| {
        let cli = Cli::try_parse_from(std::iter::once("worker").chain(args.iter().copied())).unwrap();
        cli.worker.worker_config("w".into()).engine.outside
    };
    let outside = parse(&["--allow-tool-host", "Tools.Internal", "--allow-tool-host", "10.0.0.7,[::1]"]);
    assert_eq!(outside.allow_hosts, ["tools.internal", "10.0.0.7", "::1"]);
    assert!(outside.signing_secret.is_none(), "calls are unsigned unless a secret is set");
    let signed = parse(&["--tool-signing-secret", "k3y"]);
    let secret = signed.signing_secret.as_ref().expect("a secret");
    assert_eq!(secret.sign(1, b"{}"), wingman::tools::signature::SigningSecret::new("k3y").sign(1, b"{}"));
    assert!(!format!("{signed:?}").contains("k3y"), "the settings never show the secret");
    assert!(parse(&["--tool-signing-secret", ""]).signing_secret.is_none(), "an empty secret is none");
}
