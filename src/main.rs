use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    wingman::telemetry::init();
    match wingman::cli::main(wingman::cli::Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
