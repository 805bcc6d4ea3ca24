//! Whose objects a request may see and change. The gate ([`super::bearer`])
//! puts the request's [`Caller`] in its extensions; handlers take it as an
//! extractor and pass what they read through [`visible`] or [`changeable`],
//! so that another owner's object is answered exactly as one that does not
//! exist: the same 404, the same message.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;

use super::error::{ApiError, ApiResult};
use crate::domain::access::Caller;
use crate::domain::model::Owned;

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    /// The caller the gate found. Every API route is behind the gate, so a
    /// request without one is a wiring fault, answered 500 rather than let
    /// through as anyone.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts.extensions.get::<Caller>().cloned().ok_or_else(|| ApiError::Internal("no caller on a request".into()))
    }
}

/// `found` if the caller may see it; else, and when nothing was found, a
/// 404 naming `what` (such as `run 01K…`).
pub fn visible<T: Owned>(caller: &Caller, found: Option<T>, what: impl FnOnce() -> String) -> ApiResult<T> {
    match found {
        Some(object) if caller.sees(object.owner(), object.shared()) => Ok(object),
        _ => Err(ApiError::NotFound(what())),
    }
}

/// `found` if the caller may change it: a 404 as [`visible`] says, and a
/// 403 for a shared object of another owner, which every owner may read
/// and use but only its owner or an admin change.
pub fn changeable<T: Owned>(caller: &Caller, found: Option<T>, what: impl FnOnce() -> String) -> ApiResult<T> {
    let what = what();
    let object = visible(caller, found, || what.clone())?;
    if !caller.may_change(object.owner()) {
        let message = format!("{what} is shared by its owner: only its owner or an admin may change it");
        return Err(ApiError::Rejected { status: StatusCode::FORBIDDEN, message });
    }
    Ok(object)
}

/// Keeps of `all` what the caller may see: a list of every owner's
/// objects narrowed to one owner's (and the shared ones).
pub fn only_visible<T: Owned>(caller: &Caller, all: Vec<T>) -> Vec<T> {
    all.into_iter().filter(|object| caller.sees(object.owner(), object.shared())).collect()
}
