//! The worker setting that lets webfetch reach non-public addresses.

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
