//! CPU time from `/proc`, to tell where a benchmark's time went: a run's
//! cost in CPU is steadier than a rate on a machine whose speed varies from
//! day to day, and it says which process would have to get cheaper.

use std::time::Duration;

/// The CPU time (user and system) a process has used.
pub fn process_time(pid: u32) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    Ok(ticks_to_time(stat_ticks(&stat)?))
}

/// The CPU time used so far by every process of this machine whose command
/// is `name` (`postgres`: the server of a database on this machine, each
/// connection a process of its own). A process that ends between two readings
/// takes its time with it, so a reading spans connections that stay open.
pub fn named_time(name: &str) -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Duration::ZERO };
    let mut ticks = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        if stat.split_once(" (").and_then(|(_, rest)| rest.rsplit_once(')')).is_some_and(|(comm, _)| comm == name) {
            ticks += stat_ticks(&stat).unwrap_or(0);
        }
    }
    ticks_to_time(ticks)
}

/// User plus system time, in clock ticks, from a `/proc/<pid>/stat` line.
fn stat_ticks(stat: &str) -> anyhow::Result<u64> {
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    Ok(fields.get(11).unwrap_or(&"0").parse::<u64>()? + fields.get(12).unwrap_or(&"0").parse::<u64>()?)
}

fn ticks_to_time(ticks: u64) -> Duration {
    // SAFETY: sysconf has no memory-safety requirements.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}
