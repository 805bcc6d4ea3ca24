//! What a provider credential (or an agent) declares about its provider's
//! rate limits. The budget every worker draws from is
//! [`crate::domain::budget`]; this is only the declaration.

use serde::{Deserialize, Serialize};

/// A credential's or an agent's declared limits: requests and tokens a
/// minute, and requests in flight at once. Every worker on every host
/// shares them through one budget in the database.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1)]
pub struct ProviderLimits {
    /// Requests a minute, spread evenly (a burst of half a second's share at most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 1000000)]
    pub requests_per_minute: Option<u32>,
    /// Tokens a minute, counted on an estimate of the prompt before the call
    /// and corrected by the usage the provider reports after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 1000000000)]
    pub tokens_per_minute: Option<u32>,
    /// Requests in flight at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10000)]
    pub max_concurrent: Option<u32>,
}

impl ProviderLimits {
    /// Checks limits a client gave: each set one within its range, and at
    /// least one set (an empty declaration is a removal, said with `null`).
    pub fn check(&self) -> Result<(), String> {
        let ranges = [
            ("requests_per_minute", self.requests_per_minute, 1_000_000),
            ("tokens_per_minute", self.tokens_per_minute, 1_000_000_000),
            ("max_concurrent", self.max_concurrent, 10_000),
        ];
        for (name, value, max) in ranges {
            if let Some(v) = value {
                if !(1..=max).contains(&v) {
                    return Err(format!("limits.{name} must be from 1 to {max}, not {v}"));
                }
            }
        }
        if self.is_empty() {
            return Err("limits must set requests_per_minute, tokens_per_minute or max_concurrent".into());
        }
        Ok(())
    }

    /// True when nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.requests_per_minute.is_none() && self.tokens_per_minute.is_none() && self.max_concurrent.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_has_a_range_and_one_must_be_set() {
        let ok = ProviderLimits { requests_per_minute: Some(1200), ..Default::default() };
        assert!(ok.check().is_ok());
        assert!(ProviderLimits::default().check().unwrap_err().contains("must set"));
        let zero = ProviderLimits { max_concurrent: Some(0), ..Default::default() };
        assert!(zero.check().unwrap_err().contains("max_concurrent"));
        let huge = ProviderLimits { tokens_per_minute: Some(2_000_000_000), ..Default::default() };
        assert!(huge.check().unwrap_err().contains("tokens_per_minute"));
        assert!(serde_json::from_str::<ProviderLimits>(r#"{"rpm": 1}"#).is_err());
    }
}
