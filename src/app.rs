//! The server application: the API, and the services beside it (its event
//! hub, embedded workers, the pruner, the webhook deliverer and the
//! scheduler), each supervised.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::api::guard::HostPolicy;
use crate::api::serve::ConnectionLimits;
use crate::api::{self, ApiConfig, AppState};
use crate::services::delivery::{self, DeliveryConfig};
use crate::services::hub::Hub;
use crate::services::retention::{self, RetentionConfig};
use crate::services::{scheduler, Supervisor};
use crate::store::Store;
use crate::submit::Door;
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
    /// How the API holds its connections: timeouts and how many at once.
    pub connections: ConnectionLimits,
    /// How long logs are kept; `None` keeps everything.
    pub retention: Option<RetentionConfig>,
    /// How webhooks are delivered.
    pub delivery: DeliveryConfig,
}

/// Binds the server's address, with an error that names it and the flag
/// that sets it: `wingman serve` binds before it opens (or creates) the
/// database, so a port in use leaves nothing behind.
pub async fn bind(addr: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                "another process listens there; stop it, or give another address with --addr (WINGMAN_ADDR)"
            }
            std::io::ErrorKind::PermissionDenied => {
                "ports below 1024 need privileges; give another with --addr (WINGMAN_ADDR)"
            }
            _ => "give another address with --addr (WINGMAN_ADDR)",
        };
        anyhow::anyhow!("cannot listen on {addr}: {e}; {hint}")
    })
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
        Ok(Application::on(bind(addr).await?, store, config))
    }

    /// A server on a listener already bound (see [`bind`]).
    pub fn on(listener: TcpListener, store: Arc<dyn Store>, config: ServerConfig) -> Application {
        Application { listener, store, config }
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Serves until `shutdown` fires, then stops accepting, drains the
    /// embedded workers (handing back unfinished runs) and returns.
    pub async fn run_until_stopped(self, shutdown: CancellationToken) -> anyhow::Result<()> {
        let mut services = Supervisor::new(shutdown.clone());
        let hub = Hub::new(self.store.clone());
        hub.supervise(&mut services, self.config.event_poll);
        let wake = Arc::new(Notify::new());
        self.supervise_workers(&mut services, &wake);
        self.supervise_mcp(&mut services);
        self.supervise_background(&mut services);
        let written = {
            let (wake, hub) = (wake.clone(), hub.clone());
            Arc::new(move || api::announce(&wake, &hub))
        };
        let door = Door::new(self.store.clone(), self.config.api.submit.clone(), written);
        let (store, scheduler_door, stop) = (self.store.clone(), door.clone(), shutdown.clone());
        services.spawn("scheduler", move || scheduler::run(store.clone(), scheduler_door.clone(), stop.clone()));
        let hosts = HostPolicy::new(self.listener.local_addr()?, &self.config.api.allowed_hosts)
            .with_cors(self.config.api.cors.clone());
        let hosts = Arc::new(hosts);
        let embedded = self.config.workers > 0;
        let mcp = embedded.then(|| self.config.worker.engine.mcp.clone());
        let histories = embedded.then(|| self.config.worker.engine.histories.clone());
        let config = Arc::new(self.config.api.clone());
        let board = services.board();
        let keys = Arc::new(api::key_ring::KeyRing::new(self.store.clone()));
        let (audit, appender) = api::audit_log::AuditLog::new(self.store.clone());
        // Outside the services: it writes what the last answers queued, after the server stops.
        let audit_stop = CancellationToken::new();
        let appender = tokio::spawn(appender.run(audit_stop.clone()));
        let state = AppState::new(api::Shared {
            store: self.store.clone(),
            door,
            hub,
            config,
            wake,
            hosts,
            mcp,
            histories,
            services: board,
            keys,
            audit,
        });
        tracing::info!(addr = %self.listener.local_addr()?, workers = self.config.workers, "wingman serving");
        // Open SSE tails end when their client goes; they do not hold shutdown up.
        let routes = api::router(state);
        let server = tokio::spawn(api::serve::serve(self.listener, routes, self.config.connections, shutdown.clone()));
        shutdown.cancelled().await;
        services.join().await;
        let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
        audit_stop.cancel();
        let _ = appender.await;
        Ok(())
    }

    /// The closing of idle MCP connections, which the embedded workers share.
    fn supervise_mcp(&self, services: &mut Supervisor) {
        if self.config.workers == 0 {
            return;
        }
        let (pool, stop) = (self.config.worker.engine.mcp.clone(), services.shutdown());
        services.spawn("mcp-sweeper", move || {
            let (pool, stop) = (pool.clone(), stop.clone());
            async move {
                crate::tools::mcp::close_idle_until(pool, stop).await;
                Ok(())
            }
        });
    }

    /// The embedded workers, each a service of its own: one that cannot
    /// register (the database unreachable, its disk full) is started again
    /// until it can.
    fn supervise_workers(&self, services: &mut Supervisor, wake: &Arc<Notify>) {
        for i in 0..self.config.workers {
            let mut config = self.config.worker.clone();
            config.name = format!("{}-{i}", config.name);
            let (store, wake, stop) = (self.store.clone(), wake.clone(), services.shutdown());
            services.spawn(format!("worker-{i}"), move || {
                worker::run(store.clone(), config.clone(), wake.clone(), stop.clone())
            });
        }
    }

    /// The pruner (with `--retain-days`) and the webhook deliverer.
    fn supervise_background(&self, services: &mut Supervisor) {
        if let Some(config) = self.config.retention.clone() {
            let (store, stop) = (self.store.clone(), services.shutdown());
            services.spawn("pruner", move || retention::run(store.clone(), config.clone(), stop.clone()));
        }
        let (store, config, stop) = (self.store.clone(), self.config.delivery.clone(), services.shutdown());
        services.spawn("deliverer", move || delivery::run(store.clone(), config.clone(), stop.clone()));
    }
}
