//! `wingman-worker`: a standalone worker process, the same as `wingman worker`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    wingman::telemetry::init();
    match wingman::cli::run_worker(wingman::cli::parse_worker_args()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
