use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = wingman::cli::Cli::parse();
    wingman::telemetry::init(cli.log_format());
    match wingman::cli::main(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => match e.downcast_ref::<wingman::cli::outcome::RunEnded>() {
            // The tail already showed how it ended.
            Some(ended) => std::process::ExitCode::from(ended.exit_code()),
            None => {
                eprintln!("error: {e:#}");
                std::process::ExitCode::FAILURE
            }
        },
    }
}
