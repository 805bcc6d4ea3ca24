//! Resident memory from `/proc`, and the open-file limit a benchmark with
//! thousands of connections needs.

/// A process's resident set now and at its peak (`VmRSS`, `VmHWM`), in bytes.
pub fn resident(pid: u32) -> anyhow::Result<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    };
    Ok((field("VmRSS:"), field("VmHWM:")))
}

/// Formats a byte count in MB with one decimal.
pub fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
