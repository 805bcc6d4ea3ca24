//! The checks every submission meets whatever door it came through, and
//! that the API applies to what it stores for later submissions (a
//! session's or a fleet's `work_dir`, an agent's webhook): a message, a
//! `work_dir`, a webhook URL.
//!
//! Nothing here creates anything on disk: a client's path is only checked,
//! and the worker makes the directory before the run's first tool call.
//! With `--work-root`, a path must also resolve inside that directory,
//! symlinks followed as far as the path exists.

use std::net::IpAddr;
use std::path::{Component, Path, PathBuf};

use super::{SubmitConfig, SubmitError, SubmitResult};
use crate::domain::webhook::{self, Webhook};
use crate::tools::outside::OutsideConfig;
use crate::tools::sandbox;

/// The largest message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// A submission's priority: from -10 to 10 (higher first), 0 when not given.
pub fn priority(priority: Option<i64>) -> Result<i8, String> {
    match priority.unwrap_or(0) {
        p @ -10..=10 => Ok(p as i8),
        p => Err(format!("priority must be an integer from -10 to 10 (higher runs first), not {p}")),
    }
}

/// Checks a message a client gives a run (a session's message, a fleet
/// task's, a steer): not blank, at most [`MAX_MESSAGE_BYTES`].
pub fn message(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("message must not be empty".into());
    }
    if message.len() > MAX_MESSAGE_BYTES {
        return Err(format!("message is longer than {MAX_MESSAGE_BYTES} bytes"));
    }
    Ok(())
}

/// Checks a `work_dir` given by a client: an absolute path without NUL,
/// inside the work root when one is set, that is a directory if it exists
/// and does not contain the database.
pub fn work_dir(config: &SubmitConfig, dir: &str) -> SubmitResult<()> {
    if dir.contains('\0') {
        return Err(SubmitError::Invalid("work_dir must not contain a NUL byte".into()));
    }
    let path = Path::new(dir);
    if !path.is_absolute() {
        return Err(SubmitError::Invalid("work_dir must be an absolute path".into()));
    }
    if let Some(root) = &config.work_root {
        if !resolves_inside(path, root) {
            return Err(SubmitError::Refused(format!(
                "work_dir {dir:?} is outside the server's work root {}",
                root.display()
            )));
        }
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
        return Err(SubmitError::Invalid(format!("work_dir {dir:?} is not a directory")));
    }
    sandbox::check_work_dir(path, &config.protected).map_err(SubmitError::Invalid)
}

/// The URL a submission's webhook (or, failing it, its agent's) announces
/// to, checked: its form, and, for a host written as an address (or
/// `localhost`), the network policy. A name is resolved, and its addresses
/// checked, at each attempt, where DNS answers at that time.
pub fn webhook_url(
    reach: &OutsideConfig,
    asked: Option<&Webhook>,
    default: Option<&Webhook>,
) -> SubmitResult<Option<String>> {
    let Some(hook) = asked.or(default) else { return Ok(None) };
    let url = webhook::check_url(&hook.url).map_err(SubmitError::Invalid)?;
    let literal = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) if is_localhost(name) => Some(IpAddr::from([127, 0, 0, 1])),
        _ => None,
    };
    if let Some(ip) = literal {
        if let Err(why) = reach.policy_for(&url, false).check(ip) {
            let host = url.host_str().unwrap_or_default();
            let refusal = reach.refusal(&url, ip, &format!("webhook.url: {host}: {why}"));
            return Err(SubmitError::Refused(refusal));
        }
    }
    Ok(Some(hook.url.clone()))
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// True if `path` lies inside `root` (itself canonical) once its existing
/// part is resolved: `..` is refused outright, since the part that does not
/// exist yet cannot be resolved and a symlink may appear below it later.
pub fn resolves_inside(path: &Path, root: &Path) -> bool {
    if path.components().any(|c| c == Component::ParentDir) {
        return false;
    }
    let mut existing = path.to_path_buf();
    let mut missing: Vec<PathBuf> = Vec::new();
    let resolved = loop {
        if let Ok(resolved) = existing.canonicalize() {
            break resolved;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(PathBuf::from(name));
                existing = parent.to_path_buf();
            }
            _ => return false,
        }
    };
    let full = missing.iter().rev().fold(resolved, |acc, part| acc.join(part));
    full.starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(url: &str) -> Webhook {
        Webhook { url: url.into() }
    }

    #[test]
    fn a_private_address_is_refused_unless_its_host_is_allowed() {
        let none = OutsideConfig::webhooks(&[], None);
        for private in ["http://127.0.0.1:9/h", "http://[::1]/h", "http://10.0.0.7/h", "http://LOCALHOST./h"] {
            match webhook_url(&none, Some(&hook(private)), None) {
                Err(SubmitError::Refused(why)) => assert!(why.contains("--allow-webhook-host"), "{why}"),
                other => panic!("{private}: {other:?}"),
            }
        }
        let allowed = OutsideConfig::webhooks(&["127.0.0.1".into()], None);
        assert_eq!(
            webhook_url(&allowed, Some(&hook("http://127.0.0.1:9/h")), None).unwrap().as_deref(),
            Some("http://127.0.0.1:9/h")
        );
        let metadata = OutsideConfig::webhooks(&["169.254.169.254".into()], None);
        assert!(webhook_url(&metadata, Some(&hook("http://169.254.169.254/")), None).is_err(), "never metadata");
    }

    #[test]
    fn a_submission_s_webhook_wins_over_its_agent_s() {
        let reach = OutsideConfig::webhooks(&[], None);
        let (own, agent) = (hook("https://a.example/1"), hook("https://b.example/2"));
        assert_eq!(webhook_url(&reach, Some(&own), Some(&agent)).unwrap().as_deref(), Some("https://a.example/1"));
        assert_eq!(webhook_url(&reach, None, Some(&agent)).unwrap().as_deref(), Some("https://b.example/2"));
        assert_eq!(webhook_url(&reach, None, None).unwrap(), None);
        assert!(matches!(webhook_url(&reach, Some(&hook("ftp://x/")), None), Err(SubmitError::Invalid(_))));
    }

    #[test]
    fn paths_inside_the_root_pass_and_escapes_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        let root = root.canonicalize().unwrap();
        assert!(resolves_inside(&root, &root));
        assert!(resolves_inside(&root.join("a"), &root));
        assert!(resolves_inside(&root.join("not/yet/made"), &root));
        assert!(!resolves_inside(&root.join("a/../../elsewhere"), &root));
        assert!(!resolves_inside(&root.join("out/passwd-dir"), &root));
        assert!(!resolves_inside(Path::new("/tmp"), &root));
        assert!(!resolves_inside(&dir.path().join("rootless"), &root));
    }
}
