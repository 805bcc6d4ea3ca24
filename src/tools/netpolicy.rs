//! Which network addresses webfetch and HTTP tools may connect to, and
//! resolving a URL's host to one of them.
//!
//! By default only public addresses are allowed: a fetch must not reach the
//! worker's own services, the private network it sits in, or a cloud
//! provider's metadata service (which hands out credentials). IPv4-mapped,
//! IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged by the IPv4
//! address they carry. A deployment that trusts its agents may allow
//! non-public addresses; a few stay refused whatever the setting.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::Url;

/// The rule an address is checked against.
#[derive(Debug, Clone, Default)]
pub struct NetPolicy {
    /// Allow loopback, private, link-local, unique-local and other
    /// non-public addresses (`--allow-private-network`).
    pub allow_private: bool,
    /// Addresses allowed even when non-public ones are not; the always
    /// refused ones stay refused. Tests use this to reach a local server.
    pub allow: Vec<IpAddr>,
}

/// What kind of address something is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrKind {
    /// A globally routable address.
    Public,
    /// Not public (the reason names the range); allowed only by the setting.
    NonPublic(&'static str),
    /// Never allowed: unspecified, broadcast, multicast, cloud metadata.
    Forbidden(&'static str),
}

impl NetPolicy {
    /// Ok if `ip` may be connected to, or why not.
    pub fn check(&self, ip: IpAddr) -> Result<(), String> {
        match classify(ip) {
            AddrKind::Public => Ok(()),
            AddrKind::Forbidden(why) => Err(format!("{ip} is {why}; refused")),
            AddrKind::NonPublic(_) if self.allow_private || self.allow.contains(&ip) => Ok(()),
            AddrKind::NonPublic(why) => {
                Err(format!("{ip} is {why}; refused (fetching non-public addresses is disabled in this deployment)"))
            }
        }
    }
}

/// Why a URL's host cannot be connected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// The host has no address now: it did not resolve (which may pass),
    /// or the URL names none.
    NoAddress(String),
    /// The policy refuses every address of the host; `ip` is the first,
    /// whose refusal `message` gives.
    Refused {
        /// The first address refused.
        ip: IpAddr,
        /// The host and why its address was refused.
        message: String,
    },
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreachable::NoAddress(message) | Unreachable::Refused { message, .. } => f.write_str(message),
        }
    }
}

/// Resolves the host of `url` once and returns the first of its addresses
/// the policy allows, with the URL's port. `hosts` answers names instead of
/// DNS (tests, fixed setups); its answers are checked like any other. The
/// caller connects to this address only, so a rebinding DNS server gets no
/// second question to answer differently.
pub async fn resolve(
    url: &Url,
    policy: &NetPolicy,
    hosts: &[(String, Vec<IpAddr>)],
) -> Result<SocketAddr, Unreachable> {
    let port = url.port_or_known_default().ok_or_else(|| Unreachable::NoAddress("the URL has no port".into()))?;
    let candidates: Vec<IpAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        Some(url::Host::Domain(name)) => lookup(name, port, hosts).await?,
        None => return Err(Unreachable::NoAddress("the URL has no host".into())),
    };
    let mut first_refusal = None;
    for ip in &candidates {
        match policy.check(*ip) {
            Ok(()) => return Ok(SocketAddr::new(*ip, port)),
            Err(why) => first_refusal = first_refusal.or(Some((*ip, why))),
        }
    }
    let host = url.host_str().unwrap_or_default();
    Err(match first_refusal {
        Some((ip, why)) => Unreachable::Refused { ip, message: format!("{host}: {why}") },
        None => Unreachable::NoAddress(format!("{host} has no address")),
    })
}

async fn lookup(name: &str, port: u16, hosts: &[(String, Vec<IpAddr>)]) -> Result<Vec<IpAddr>, Unreachable> {
    if let Some((_, ips)) = hosts.iter().find(|(host, _)| host.eq_ignore_ascii_case(name)) {
        return Ok(ips.clone());
    }
    match tokio::net::lookup_host((name, port)).await {
        Ok(addrs) => Ok(addrs.map(|a| a.ip()).collect()),
        Err(e) => Err(Unreachable::NoAddress(format!("cannot resolve {name}: {e}"))),
    }
}

/// Classifies an address.
pub fn classify(ip: IpAddr) -> AddrKind {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddrKind {
    use AddrKind::*;
    let [a, b, c, _] = ip.octets();
    // Metadata services: AWS/GCP/Azure/OpenStack, AWS ECS tasks, Alibaba.
    const METADATA: [Ipv4Addr; 3] =
        [Ipv4Addr::new(169, 254, 169, 254), Ipv4Addr::new(169, 254, 170, 2), Ipv4Addr::new(100, 100, 100, 200)];
    if METADATA.contains(&ip) {
        return Forbidden("a cloud metadata address");
    }
    match (a, b, c) {
        (0, ..) => Forbidden("an unspecified (\"this host\") address"),
        (255, 255, 255) if ip.is_broadcast() => Forbidden("the broadcast address"),
        (224..=239, ..) => Forbidden("a multicast address"),
        (127, ..) => NonPublic("a loopback address"),
        (10, ..) | (192, 168, _) => NonPublic("a private address"),
        (172, 16..=31, _) => NonPublic("a private address"),
        (169, 254, _) => NonPublic("a link-local address"),
        (100, 64..=127, _) => NonPublic("a shared (carrier-grade NAT) address"),
        (192, 0, 0) => NonPublic("an IETF protocol address"),
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => NonPublic("a documentation address"),
        (198, 18..=19, _) => NonPublic("a benchmarking address"),
        (240..=255, ..) => NonPublic("a reserved address"),
        _ => Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddrKind {
    use AddrKind::*;
    let s = ip.segments();
    if ip.is_unspecified() {
        return Forbidden("the unspecified address");
    }
    if ip.is_loopback() {
        return NonPublic("a loopback address");
    }
    // AWS's IPv6 metadata address.
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        return Forbidden("a cloud metadata address");
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    match s[0] {
        0xff00..=0xffff => Forbidden("a multicast address"),
        0xfc00..=0xfdff => NonPublic("a unique-local address"),
        0xfe80..=0xfebf => NonPublic("a link-local address"),
        0xfec0..=0xfeff => NonPublic("a site-local address"),
        0x2001 if s[1] == 0x0db8 => NonPublic("a documentation address"),
        0x2001 if s[1] == 0 => NonPublic("a Teredo tunnel address"),
        0x2000..=0x3fff => Public,
        _ => NonPublic("a reserved address"),
    }
}

/// The IPv4 address inside an IPv6 one that carries it: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`)
/// and 6to4 (`2002:aabb:ccdd::/48`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0; 6] || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(addr: &str) -> bool {
        NetPolicy::default().check(addr.parse().unwrap()).is_err()
    }

    #[test]
    fn the_default_policy_refuses_every_non_public_range() {
        for addr in [
            "127.0.0.1",
            "127.255.0.9",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "100.100.100.200",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "2002:7f00:1::",
            "fc00::1",
            "fd12:3456::1",
            "fd00:ec2::254",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001:0:1::1",
        ] {
            assert!(refused(addr), "{addr} should be refused");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for addr in
            ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]
        {
            assert!(!refused(addr), "{addr} should be allowed");
        }
    }

    #[test]
    fn the_setting_allows_private_but_never_metadata_or_unspecified() {
        let trusted = NetPolicy { allow_private: true, allow: vec![] };
        for addr in ["127.0.0.1", "10.0.0.1", "192.168.0.1", "::1", "fd12::1", "fe80::1"] {
            assert!(trusted.check(addr.parse().unwrap()).is_ok(), "{addr}");
        }
        for addr in ["169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "0.0.0.0", "::", "224.0.0.1"] {
            assert!(trusted.check(addr.parse().unwrap()).is_err(), "{addr}");
        }
    }

    #[test]
    fn an_allow_list_admits_exactly_its_addresses() {
        let policy = NetPolicy { allow_private: false, allow: vec!["127.0.0.1".parse().unwrap()] };
        assert!(policy.check("127.0.0.1".parse().unwrap()).is_ok());
        assert!(policy.check("127.0.0.2".parse().unwrap()).is_err());
        assert!(policy.check("10.0.0.1".parse().unwrap()).is_err());
    }
}
