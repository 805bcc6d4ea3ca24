//! How the worker reaches tools served outside it: the hosts the operator
//! trusts beyond the network policy, the key HTTP tool calls are signed
//! with, and how soon a failed call is tried again.

use std::time::Duration;

use url::{Host, Url};

use super::netpolicy::{self, AddrKind, NetPolicy};
use super::signature::SigningSecret;

/// The first wait before an HTTP tool call is tried again; each later wait
/// doubles it.
pub const DEFAULT_RETRY_BASE: Duration = Duration::from_millis(500);

/// The setting that allows a host, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllowSetting {
    pub flag: &'static str,
    pub env: &'static str,
    /// Whether `--allow-private-network` applies too.
    pub private_network: bool,
}

/// `--allow-tool-host`, for HTTP tools and MCP servers.
pub const TOOL_HOSTS: AllowSetting =
    AllowSetting { flag: "--allow-tool-host", env: "WINGMAN_ALLOW_TOOL_HOSTS", private_network: true };

/// `--allow-webhook-host`, for webhooks.
pub const WEBHOOK_HOSTS: AllowSetting =
    AllowSetting { flag: "--allow-webhook-host", env: "WINGMAN_ALLOW_WEBHOOK_HOSTS", private_network: false };

/// The operator's settings for services outside the process: tools
/// (`--allow-tool-host`, `--tool-signing-secret`) or webhooks
/// (`--allow-webhook-host`, `--webhook-secret`).
#[derive(Debug, Clone)]
pub struct OutsideConfig {
    /// Hosts (names or addresses, as URLs write them) that tool URLs may
    /// reach even where the network policy refuses non-public addresses.
    pub allow_hosts: Vec<String>,
    /// The key every HTTP tool call is signed with; unsigned without one.
    pub signing_secret: Option<SigningSecret>,
    /// The first wait between tries of a call; it doubles, with jitter.
    pub retry_base: Duration,
    /// The setting a refusal names.
    pub setting: AllowSetting,
}

impl Default for OutsideConfig {
    fn default() -> Self {
        OutsideConfig {
            allow_hosts: Vec::new(),
            signing_secret: None,
            retry_base: DEFAULT_RETRY_BASE,
            setting: TOOL_HOSTS,
        }
    }
}

impl OutsideConfig {
    /// Settings with these hosts and this secret (an empty one is none).
    pub fn new(allow_hosts: &[String], signing_secret: Option<SigningSecret>) -> Self {
        let allow_hosts = allow_hosts.iter().map(|h| normal_host(h)).filter(|h| !h.is_empty()).collect();
        OutsideConfig { allow_hosts, signing_secret: signing_secret.filter(|s| !s.is_empty()), ..Default::default() }
    }

    /// Webhooks' settings: these hosts allowed, requests signed with this secret.
    pub fn webhooks(allow_hosts: &[String], signing_secret: Option<SigningSecret>) -> Self {
        OutsideConfig { setting: WEBHOOK_HOSTS, ..OutsideConfig::new(allow_hosts, signing_secret) }
    }

    /// True if the operator allowed the host of `url`.
    pub fn allows_host(&self, url: &Url) -> bool {
        let host = match url.host() {
            Some(Host::Domain(name)) => normal_host(name),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => ip.to_string(),
            None => return false,
        };
        self.allow_hosts.contains(&host)
    }

    /// The policy a tool URL is checked against: webfetch's, with every
    /// non-public address of an allowed host admitted. Addresses refused
    /// whatever the settings (cloud metadata, say) stay refused.
    pub fn policy_for(&self, url: &Url, allow_private_network: bool) -> NetPolicy {
        NetPolicy { allow_private: allow_private_network || self.allows_host(url), allow: Vec::new() }
    }

    /// The refusal of a tool URL's address, naming the settings that would
    /// allow it when there are any.
    pub fn refusal(&self, url: &Url, ip: std::net::IpAddr, message: &str) -> String {
        match netpolicy::classify(ip) {
            AddrKind::NonPublic(_) => {
                let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
                let AllowSetting { flag, env, private_network } = self.setting;
                let or_every =
                    if private_network { ", or every non-public address with --allow-private-network" } else { "" };
                format!("{message}. The operator can allow this host with {flag} {host} ({env}){or_every}")
            }
            _ => message.to_string(),
        }
    }
}

/// A host as compared: lowercase, without IPv6 brackets or a final dot.
fn normal_host(host: &str) -> String {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']').trim_end_matches('.');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.to_string(),
        Err(_) => host.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn an_allowed_host_matches_however_it_is_written() {
        let config =
            OutsideConfig::new(&["Tools.Internal.".into(), "127.0.0.1".into(), "[::1]".into(), "".into()], None);
        assert_eq!(config.allow_hosts, ["tools.internal", "127.0.0.1", "::1"]);
        assert!(config.allows_host(&url("http://TOOLS.internal:8080/x")));
        assert!(config.allows_host(&url("http://127.0.0.1:9/")));
        assert!(config.allows_host(&url("http://2130706433/")), "a numeric form is the address it is");
        assert!(config.allows_host(&url("http://[::1]:80/")));
        assert!(!config.allows_host(&url("http://127.0.0.2/")));
        assert!(!config.allows_host(&url("http://tools.internal.evil.example/")));
    }

    #[test]
    fn an_allowed_host_reaches_private_addresses_but_never_metadata() {
        let config = OutsideConfig::new(&["127.0.0.1".into(), "169.254.169.254".into()], None);
        let local = url("http://127.0.0.1/");
        assert!(config.policy_for(&local, false).check("127.0.0.1".parse().unwrap()).is_ok());
        assert!(config.policy_for(&url("http://10.0.0.1/"), false).check("10.0.0.1".parse().unwrap()).is_err());
        let metadata = url("http://169.254.169.254/");
        assert!(config.policy_for(&metadata, false).check("169.254.169.254".parse().unwrap()).is_err());
    }

    #[test]
    fn a_refusal_names_the_settings_only_when_they_would_help() {
        let config = OutsideConfig::default();
        let text = config.refusal(&url("http://[::1]:8/"), "::1".parse().unwrap(), "::1: refused");
        assert!(text.contains("--allow-tool-host ::1 (WINGMAN_ALLOW_TOOL_HOSTS)"), "{text}");
        let forbidden = config.refusal(&url("http://169.254.169.254/"), "169.254.169.254".parse().unwrap(), "no");
        assert_eq!(forbidden, "no");
        let webhooks = OutsideConfig::webhooks(&[], None);
        let text = webhooks.refusal(&url("http://10.1.2.3/"), "10.1.2.3".parse().unwrap(), "10.1.2.3: refused");
        assert_eq!(
            text,
            "10.1.2.3: refused. The operator can allow this host with --allow-webhook-host 10.1.2.3 \
             (WINGMAN_ALLOW_WEBHOOK_HOSTS)"
        );
    }

    #[test]
    fn an_empty_secret_is_no_secret() {
        assert!(OutsideConfig::new(&[], Some(SigningSecret::new(""))).signing_secret.is_none());
        assert!(OutsideConfig::new(&[], Some(SigningSecret::new("k"))).signing_secret.is_some());
    }
}
