//! The server application: the API, its event hub, embedded workers, the
//! pruner, the webhook deliverer and the scheduler.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::api::guard::HostPolicy;
use crate::api::{self, ApiConfig, AppState};
use crate::delivery::{self, DeliveryConfig};
use crate::hub::Hub;
use crate::retention::{self, RetentionConfig};
use crate::store::Store;
use crate::worker::{self, WorkerConfig};

/// Everything `wingman serve` runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub api: ApiConfig,
    /// Embedded workers (0 for an API-only server).
    pub workers: u32,
    pub worker: WorkerConfig,
    /// How often the event hub looks for events written by other processes.
    pub event_poll: Duration,
    /// How long a connection may take none of the bytes waiting for it
    /// before it is closed ([`api::send_timeout`]).
    pub send_timeout: Duration,
    /// How long logs are kept; `None` keeps everything.
    pub retention: Option<RetentionConfig>,
    /// How webhooks are delivered.
    pub delivery: DeliveryConfig,
}

/// A bound, ready-to-run server.
pub struct Application {
    listener: TcpListener,
    store: Arc<dyn Store>,
    config: ServerConfig,
}

impl Application {
    /// Binds the listener (port 0 picks a free port).
    pub async fn build(store: Arc<dyn Store>, addr: SocketAddr, config: ServerConfig) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(addr).await?;
        Ok(Application { listener, store, config })
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Serves until `shutdown` fires, then stops accepting, drains the
    /// embedded workers (handing back unfinished runs) and returns.
    pub async fn run_until_stopped(self, shutdown: CancellationToken) -> anyhow::Result<()> {
        let hub = Hub::spawn(self.store.clone(), self.config.event_poll, shutdown.clone());
        let wake = Arc::new(Notify::new());
        let mut workers = JoinSet::new();
        for i in 0..self.config.workers {
            let mut config = self.config.worker.clone();
            config.name = format!("{}-{i}", config.name);
            workers.spawn(worker::run(self.store.clone(), config, wake.clone(), shutdown.clone()));
        }
        if let Some(config) = self.config.retention.clone() {
            tokio::spawn(retention::run(self.store.clone(), config, shutdown.clone()));
        }
        tokio::spawn(delivery::run(self.store.clone(), self.config.delivery.clone(), shutdown.clone()));
        let hosts = HostPolicy::new(self.listener.local_addr()?, &self.config.api.allowed_hosts)
            .with_cors(self.config.api.cors.clone());
        let hosts = Arc::new(hosts);
        let mcp = (self.config.workers > 0).then(|| self.config.worker.engine.mcp.clone());
        let config = Arc::new(self.config.api.clone());
        let state = AppState { store: self.store.clone(), hub, config, wake, hosts, mcp };
        tokio::spawn(api::scheduler::run(state.clone(), shutdown.clone()));
        tracing::info!(addr = %self.listener.local_addr()?, workers = self.config.workers, "wingman serving");
        // Open SSE tails end when their client goes; they do not hold shutdown up.
        let routes = api::router(state);
        let server = tokio::spawn(api::serve::serve(self.listener, routes, self.config.send_timeout, shutdown.clone()));
        shutdown.cancelled().await;
        while let Some(done) = workers.join_next().await {
            if let Ok(Err(e)) = done {
                tracing::error!(error = %e, "embedded worker failed");
            }
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
        Ok(())
    }
}
