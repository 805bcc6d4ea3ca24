//! `wingman-worker`: a standalone worker process, the same as `wingman worker`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = wingman::cli::parse_worker_args();
    wingman::telemetry::init(args.log_format());
    match wingman::cli::run_worker(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
