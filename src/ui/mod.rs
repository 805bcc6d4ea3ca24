//! The dashboard at `/ui`: a shell page per view and two assets, all
//! embedded in the binary with `include_str!` (no build step, no files to
//! ship). The pages hold no data: the script in them reads everything
//! through the public JSON API and follows live runs and fleet runs through
//! its SSE routes, as any client would. So this module uses nothing of the
//! server but the router type, and the dashboard needs no token of its own.

use std::sync::OnceLock;

use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};

const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");
const FORMATIONS_JS: &str = include_str!("assets/formations.js");
const SCHEDULES_JS: &str = include_str!("assets/schedules.js");
const BRANCHES_JS: &str = include_str!("assets/branches.js");

/// A view of the dashboard: what its shell page is called and which part
/// of the script draws it.
#[derive(Debug, Clone, Copy)]
struct View {
    /// The name the script dispatches on (`<body data-view=…>`).
    name: &'static str,
    /// The page's title, also the navigation entry it lights up.
    title: &'static str,
    /// The navigation entry (a view of one run belongs to "Runs").
    section: &'static str,
}

const QUEUE: View = View { name: "queue", title: "Queue", section: "queue" };
const RUNS: View = View { name: "runs", title: "Runs", section: "runs" };
const RUN: View = View { name: "run", title: "Run", section: "runs" };
const SESSIONS: View = View { name: "sessions", title: "Sessions", section: "sessions" };
const SESSION: View = View { name: "session", title: "Session", section: "sessions" };
const FLEETS: View = View { name: "fleets", title: "Fleets", section: "fleets" };
const FLEET_RUN: View = View { name: "fleet-run", title: "Fleet run", section: "fleets" };
const APPROVALS: View = View { name: "approvals", title: "Approvals", section: "approvals" };
const FORMATIONS: View = View { name: "formations", title: "Formations", section: "formations" };
const FORMATION_RUN: View = View { name: "formation-run", title: "Formation run", section: "formations" };
const SCHEDULES: View = View { name: "schedules", title: "Schedules", section: "schedules" };

/// The navigation bar's entries: (section, label, path).
const NAV: &[(&str, &str, &str)] = &[
    ("queue", "Queue", "/ui"),
    ("runs", "Runs", "/ui/runs"),
    ("sessions", "Sessions", "/ui/sessions"),
    ("fleets", "Fleets", "/ui/fleets"),
    ("formations", "Formations", "/ui/formations"),
    ("schedules", "Schedules", "/ui/schedules"),
    ("approvals", "Approvals", "/ui/approvals"),
];

/// The dashboard's routes, for any router state (it reads none).
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let page = |view: View| get(move || async move { shell(view) });
    Router::new()
        .route("/ui", page(QUEUE))
        .route("/ui/", get(|| async { Redirect::permanent("/ui") }))
        .route("/ui/runs", page(RUNS))
        .route("/ui/runs/{id}", page(RUN))
        .route("/ui/sessions", page(SESSIONS))
        .route("/ui/sessions/{id}", page(SESSION))
        .route("/ui/fleets", page(FLEETS))
        .route("/ui/fleet-runs/{id}", page(FLEET_RUN))
        .route("/ui/approvals", page(APPROVALS))
        .route("/ui/formations", page(FORMATIONS))
        .route("/ui/formation-runs/{id}", page(FORMATION_RUN))
        .route("/ui/schedules", page(SCHEDULES))
        .route("/ui/assets/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/ui/assets/app.css", get(|| async { asset("text/css; charset=utf-8", APP_CSS) }))
        .route("/ui/assets/formations.js", get(|| async { asset("text/javascript; charset=utf-8", FORMATIONS_JS) }))
        .route("/ui/assets/schedules.js", get(|| async { asset("text/javascript; charset=utf-8", SCHEDULES_JS) }))
        .route("/ui/assets/branches.js", get(|| async { asset("text/javascript; charset=utf-8", BRANCHES_JS) }))
}

/// A short digest of the assets: their URLs carry it, so a browser caches
/// them for good and still fetches new ones after an upgrade.
fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let digest = Sha256::new()
            .chain_update(APP_JS)
            .chain_update(APP_CSS)
            .chain_update(FORMATIONS_JS)
            .chain_update(SCHEDULES_JS)
            .chain_update(BRANCHES_JS)
            .finalize();
        digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
    })
}

/// Headers every dashboard answer carries: no inline script or style runs
/// (the page's content comes from the API and is only ever set as text), no
/// other site may frame it (the approve buttons must not be clickjacked),
/// and no URL of it leaks in a `Referer`.
const SECURITY: [(header::HeaderName, &str); 4] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "no-referrer"),
];

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let cache = (header::CACHE_CONTROL, "public, max-age=31536000, immutable");
    (SECURITY, [(header::CONTENT_TYPE, content_type), cache], body).into_response()
}

/// The shell page of a view: the navigation, an empty main area the script
/// fills, and the assets.
fn shell(view: View) -> Response {
    let nav: String = NAV
        .iter()
        .map(|(section, label, path)| {
            let current = if *section == view.section { r#" aria-current="page""# } else { "" };
            format!(r#"<a href="{path}"{current}>{label}</a>"#)
        })
        .collect();
    let (title, name, v) = (view.title, view.name, version());
    let html = format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{title} · Wingman</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/assets/app.css?v={v}">
<script src="/ui/assets/app.js?v={v}" defer></script>
<script src="/ui/assets/formations.js?v={v}" defer></script>
<script src="/ui/assets/schedules.js?v={v}" defer></script>
<script src="/ui/assets/branches.js?v={v}" defer></script>
</head>
<body data-view="{name}">
<header><a class="brand" href="/ui">Wingman</a><nav>{nav}</nav><span id="auth"></span></header>
<main id="main"><p class="muted" id="loading">Loading…</p><noscript>This dashboard needs JavaScript.</noscript></main>
</body>
</html>
"#
    );
    let headers = [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")];
    (SECURITY, headers, html).into_response()
}
