//! Hosts on one machine: a network namespace per host, each joined to a
//! bridge in the machine's own namespace by a veth pair. The bridge carries
//! the database's address; each host has an address of its own.

use std::process::Command;

/// A bridge and the hosts on it, removed when dropped.
pub struct Network {
    /// A short tag that keeps this network's names apart from another test's.
    tag: String,
    bridge: String,
    /// The bridge's address: where the database listens.
    pub gateway: String,
    pub hosts: Vec<Host>,
}

/// One host: a network namespace and its link to the bridge.
pub struct Host {
    /// The namespace (`ip netns exec NAME …` runs a process on this host).
    pub namespace: String,
    /// The bridge's end of the host's link: down cuts the host off.
    link: String,
}

/// Runs `ip` with these arguments, panicking with its output if it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(out.status.success(), "ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
}

impl Network {
    /// Builds a bridge and `hosts` namespaces on a /24 of its own.
    pub fn build(hosts: usize) -> Network {
        let pid = std::process::id();
        let tag = format!("wm{}", pid % 100_000);
        let subnet = format!("10.{}.{}", 100 + pid % 100, (pid / 100) % 250);
        let bridge = format!("{tag}br");
        let mut network =
            Network { tag: tag.clone(), bridge: bridge.clone(), gateway: format!("{subnet}.1"), hosts: Vec::new() };
        ip(&["link", "add", &bridge, "type", "bridge"]);
        ip(&["addr", "add", &format!("{subnet}.1/24"), "dev", &bridge]);
        ip(&["link", "set", &bridge, "up"]);
        for h in 1..=hosts {
            network.hosts.push(network.add_host(h, &format!("{subnet}.{}", 10 + h)));
        }
        network
    }

    fn add_host(&self, h: usize, address: &str) -> Host {
        let namespace = format!("{}h{h}", self.tag);
        let (link, inside) = (format!("{}v{h}", self.tag), format!("{}i{h}", self.tag));
        ip(&["netns", "add", &namespace]);
        ip(&["link", "add", &link, "type", "veth", "peer", "name", &inside]);
        ip(&["link", "set", &inside, "netns", &namespace]);
        ip(&["link", "set", &link, "master", &self.bridge]);
        ip(&["link", "set", &link, "up"]);
        let in_host = |args: &[&str]| {
            let mut all = vec!["netns", "exec", &namespace, "ip"];
            all.extend_from_slice(args);
            ip(&all);
        };
        in_host(&["link", "set", "lo", "up"]);
        in_host(&["addr", "add", &format!("{address}/24"), "dev", &inside]);
        in_host(&["link", "set", &inside, "up"]);
        Host { namespace, link }
    }

    /// Cuts a host off: its link to the bridge goes down, and every packet
    /// it sends or is sent is lost, as with a pulled cable.
    pub fn cut(&self, host: usize) {
        ip(&["link", "set", &self.hosts[host].link, "down"]);
    }

    /// Brings a host's link back.
    pub fn restore(&self, host: usize) {
        ip(&["link", "set", &self.hosts[host].link, "up"]);
    }

    /// The prefix that runs a command on a host.
    pub fn on(&self, host: usize) -> Vec<String> {
        vec!["ip".into(), "netns".into(), "exec".into(), self.hosts[host].namespace.clone()]
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // Deleting a namespace deletes its end of the veth pair, and with it the other.
        for host in &self.hosts {
            let _ = Command::new("ip").args(["netns", "del", &host.namespace]).output();
        }
        let _ = Command::new("ip").args(["link", "del", &self.bridge]).output();
    }
}

/// Whether this machine can build the network: root, and `ip` installed.
pub fn unavailable() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root: network namespaces need it".into());
    }
    match Command::new("ip").arg("-V").output() {
        Ok(out) if out.status.success() => None,
        _ => Some("`ip` (iproute2) is not installed".into()),
    }
}
