//! Starting or reaching an MCP server as its definition says, with its
//! secrets put in place: a child process over stdio, or a Streamable HTTP
//! endpoint at an address the network policy allows.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::io::AsyncReadExt;
use url::Url;

use super::connection::Connection;
use super::http::PinnedClient;
use super::pool::{McpSettings, Reach, Secrets};
use crate::domain::toolset::{McpServer, Setting};
use crate::tools::netpolicy;

/// Variables a stdio server gets from the worker's environment; nothing
/// else is passed on but what its definition sets.
const ENV_ALLOWLIST: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "TMPDIR"];
/// The least time a server is given to start and answer `initialize`,
/// whatever its `timeout_ms` (which bounds its calls): a stdio server's
/// program starts first (an interpreter, or `npx` fetching a package), and
/// on a loaded machine that alone took longer than a short call timeout.
const START_AT_LEAST: Duration = Duration::from_secs(15);
/// How much of a stdio server's stderr is kept for error messages.
const STDERR_KEEP: usize = 2048;

/// Opens and initializes a connection to `server`. A stdio server whose
/// command this worker does not allow is refused before anything starts.
pub async fn open(server: &McpServer, secrets: &Secrets, settings: &McpSettings) -> Result<Connection, String> {
    let timeout = Duration::from_millis(server.timeout_ms()).max(START_AT_LEAST);
    match (&server.command, &server.url) {
        (Some(command), _) if !settings.commands.allows(command) => Err(settings.commands.refusal(command)),
        (Some(command), _) => {
            let (transport, stderr) = spawn(server, command, secrets)?;
            Connection::open(transport, timeout, stderr).await
        }
        (None, Some(url)) => {
            let transport = http_transport(server, url, secrets, &settings.reach).await?;
            Connection::open(transport, timeout, Arc::default()).await
        }
        (None, None) => Err("has neither a command nor a url".into()),
    }
}

/// A setting's value: the text, or the secret it names.
fn resolve(setting: &Setting, secrets: &Secrets) -> Result<String, String> {
    match setting {
        Setting::Plain(value) => Ok(value.clone()),
        Setting::Secret { secret } => match secrets.get(secret) {
            Some(value) => Ok(value.expose().to_string()),
            None => Err(format!("the secret {secret:?} is not set (PUT /secrets/{secret})")),
        },
    }
}

fn resolve_all(settings: &BTreeMap<String, Setting>, secrets: &Secrets) -> Result<Vec<(String, String)>, String> {
    settings.iter().map(|(name, s)| Ok((name.clone(), resolve(s, secrets)?))).collect()
}

/// Starts the server as the worker's child, its stderr kept in part.
fn spawn(
    server: &McpServer,
    command: &str,
    secrets: &Secrets,
) -> Result<(TokioChildProcess, Arc<Mutex<String>>), String> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(&server.args).env_clear().kill_on_drop(true);
    for name in ENV_ALLOWLIST {
        if let Ok(value) = std::env::var(name) {
            cmd.env(name, value);
        }
    }
    cmd.envs(resolve_all(&server.env, secrets)?);
    // SAFETY: prctl is async-signal-safe; the closure allocates nothing.
    // The kernel kills the server when the worker dies, even by SIGKILL.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (process, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {command:?}: {e}"))?;
    let kept = Arc::new(Mutex::new(String::new()));
    if let Some(mut pipe) = stderr {
        let kept = kept.clone();
        let secrets = secrets.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = pipe.read(&mut buf).await {
                let mut text = kept.lock().unwrap_or_else(|e| e.into_inner());
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
                // Scrubbed whole before it is cut, so a value that arrived in
                // two reads is replaced, and the cut never leaves a piece of one.
                *text = secrets.scrub(&text);
                if text.len() > STDERR_KEEP {
                    let mut cut = text.len() - STDERR_KEEP;
                    while !text.is_char_boundary(cut) {
                        cut += 1;
                    }
                    text.drain(..cut);
                }
            }
        });
    }
    Ok((process, kept))
}

/// A Streamable HTTP transport to `url`, whose address is checked once, here.
async fn http_transport(
    server: &McpServer,
    url: &str,
    secrets: &Secrets,
    reach: &Reach,
) -> Result<StreamableHttpClientTransport<PinnedClient>, String> {
    let parsed = Url::parse(url).map_err(|e| format!("its url is not a URL: {e}"))?;
    let policy = reach.outside.policy_for(&parsed, reach.allow_private_network);
    let addr = match netpolicy::resolve(&parsed, &policy, &[]).await {
        Ok(addr) => addr,
        Err(netpolicy::Unreachable::Refused { ip, message }) => {
            return Err(reach.outside.refusal(&parsed, ip, &message))
        }
        Err(netpolicy::Unreachable::NoAddress(message)) => return Err(message),
    };
    let client = crate::tools::http::pinned_client(&parsed, addr, concat!("wingman-mcp/", env!("CARGO_PKG_VERSION")))?;
    let mut headers = Vec::new();
    for (name, value) in resolve_all(&server.headers, secrets)? {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("bad header name {name:?}"))?;
        // A secret's value is never quoted in an error.
        let value =
            HeaderValue::from_str(&value).map_err(|_| format!("the header {name} has a value HTTP cannot carry"))?;
        headers.push((name, value));
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    Ok(StreamableHttpClientTransport::with_client(PinnedClient::new(client, headers), config))
}
