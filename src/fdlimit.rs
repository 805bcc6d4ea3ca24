//! The open-file limit: every SSE tail is a socket, and the soft limit many
//! systems start a process with (1,024) would refuse the thousand-and-first.

/// The soft open-file limit before and after raising it to the hard limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raised {
    pub before: u64,
    pub now: u64,
}

/// Raises the soft open-file limit to the hard limit. Raising it is allowed
/// to any process; only the hard limit needs privileges, and it is left alone.
pub fn raise() -> std::io::Result<Raised> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct it is given, which lives here.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let before = limit.rlim_cur;
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit only reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        limit = raised;
    }
    Ok(Raised { before, now: limit.rlim_cur })
}

/// Raises the limit, logs what the process got and returns it (`None` if
/// it could not be read).
pub fn raise_and_log() -> Option<u64> {
    match raise() {
        Ok(Raised { before, now }) if before == now => {
            tracing::info!(open_files = now, "open-file limit (already the hard limit)");
            Some(now)
        }
        Ok(Raised { before, now }) => {
            tracing::info!(open_files = now, was = before, "open-file limit raised");
            Some(now)
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not raise the open-file limit");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raises_to_the_hard_limit() {
        let raised = raise().expect("getrlimit");
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        assert_eq!(raised.now, limit.rlim_max);
        assert!(raised.now >= raised.before);
    }
}
