//! How a followed run ended, as the command's exit status, so that a script
//! can tell a failed or cancelled run from a succeeded one.

use serde_json::Value;

/// A run that ended other than `succeeded`: the command exits with
/// [`RunEnded::exit_code`].
#[derive(Debug, thiserror::Error)]
#[error("the run ended {status}")]
pub struct RunEnded {
    pub status: String,
}

impl RunEnded {
    /// The exit status for the run's end: 3 failed, 4 cancelled,
    /// 5 interrupted (1 is any other error, 2 a usage error).
    pub fn exit_code(&self) -> u8 {
        match self.status.as_str() {
            "failed" => 3,
            "cancelled" => 4,
            "interrupted" => 5,
            _ => 1,
        }
    }
}

/// `Ok` for a run that succeeded (or has not ended), else [`RunEnded`].
pub fn judge(status: Option<&str>) -> anyhow::Result<()> {
    match status {
        None | Some("succeeded") | Some("queued") | Some("running") | Some("waiting") => Ok(()),
        Some(other) => Err(RunEnded { status: other.to_string() }.into()),
    }
}

/// The status a `done` event reports, if this is one.
pub fn done_status(event: &Value) -> Option<String> {
    (event["type"] == "done").then(|| event["status"].as_str().unwrap_or_default().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_end_has_its_exit_code() {
        assert!(judge(Some("succeeded")).is_ok());
        let code = |s: &str| judge(Some(s)).unwrap_err().downcast::<RunEnded>().unwrap().exit_code();
        assert_eq!((code("failed"), code("cancelled"), code("interrupted")), (3, 4, 5));
    }
}
