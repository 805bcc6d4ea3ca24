//! The `options` an agent forwards to its provider: which keys each provider
//! recognises, and what values they take. Unknown keys are refused when the
//! agent is saved, so a typo fails at once instead of being ignored on every
//! run; `extra_body` carries anything a server accepts that is not listed.

use serde_json::{Map, Value};

/// The kind of value an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Str,
    /// An `http://` or `https://` URL.
    Url,
    Bool,
    /// A number (integer or not).
    Number,
    /// A positive whole number.
    Count,
    Object,
    /// A string or a list of strings.
    Strings,
    /// One of a few strings.
    OneOf(&'static [&'static str]),
    /// Any JSON value, checked by the provider's server.
    Any,
}

/// One recognised option.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
}

const fn spec(name: &'static str, kind: Kind) -> OptionSpec {
    OptionSpec { name, kind }
}

/// Options every HTTP provider recognises.
pub const COMMON: &[OptionSpec] = &[
    spec("base_url", Kind::Url),
    spec("stream", Kind::Bool),
    spec("timeout_secs", Kind::Number),
    spec("credential", Kind::Str),
    spec("structured_output", Kind::OneOf(&["native", "prompt"])),
    spec("pricing", Kind::Object),
    spec("extra_body", Kind::Object),
    spec("max_tokens", Kind::Count),
    spec("temperature", Kind::Number),
    spec("top_p", Kind::Number),
    spec("tool_env", Kind::Object),
    spec("context_window", Kind::Count),
];

/// Checks `options` against the common options and the provider's own.
pub fn validate(provider: &str, own: &[OptionSpec], options: &Map<String, Value>) -> Result<(), String> {
    for (name, value) in options {
        let Some(spec) = COMMON.iter().chain(own).find(|s| s.name == name) else {
            let mut known: Vec<_> = COMMON.iter().chain(own).map(|s| s.name).collect();
            known.sort_unstable();
            return Err(format!(
                "options.{name} is not an option of the {provider} provider (recognised: {}; \
                 extra_body passes anything else to the server)",
                known.join(", ")
            ));
        };
        check(spec.kind, value).map_err(|e| format!("options.{name} must be {e}"))?;
    }
    if let Some(name) = options.get("credential").and_then(Value::as_str) {
        let own = name == provider || name.strip_prefix(provider).is_some_and(|rest| rest.starts_with(':'));
        if !own {
            return Err(format!("options.credential must be {provider:?} or \"{provider}:<label>\""));
        }
        super::auth::check_name(name).map_err(|e| format!("options.credential: {e}"))?;
    }
    if let Some(pricing) = options.get("pricing") {
        super::pricing::Price::parse(pricing).map_err(|e| format!("options.pricing: {e}"))?;
    }
    Ok(())
}

fn check(kind: Kind, value: &Value) -> Result<(), String> {
    let ok = match kind {
        Kind::Str => value.is_string(),
        Kind::Url => value
            .as_str()
            .is_some_and(|u| (u.starts_with("http://") || u.starts_with("https://")) && reqwest::Url::parse(u).is_ok()),
        Kind::Bool => value.is_boolean(),
        Kind::Number => value.as_f64().is_some_and(|n| n.is_finite() && n >= 0.0),
        Kind::Count => value.as_u64().is_some_and(|n| (1..=10_000_000).contains(&n)),
        Kind::Object => value.is_object(),
        Kind::Strings => value.is_string() || value.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
        Kind::OneOf(choices) => value.as_str().is_some_and(|v| choices.contains(&v)),
        Kind::Any => true,
    };
    if ok {
        return Ok(());
    }
    Err(match kind {
        Kind::Str => "a string".into(),
        Kind::Url => "an http:// or https:// URL".into(),
        Kind::Bool => "true or false".into(),
        Kind::Number => "a number, not negative".into(),
        Kind::Count => "a whole number from 1".into(),
        Kind::Object => "an object".into(),
        Kind::Strings => "a string or a list of strings".into(),
        Kind::OneOf(choices) => format!("one of {}", choices.join(", ")),
        Kind::Any => "any JSON value".into(),
    })
}

/// The names of a provider's recognised options, for the catalogue.
pub fn names(own: &[OptionSpec]) -> Vec<&'static str> {
    COMMON.iter().chain(own).map(|s| s.name).collect()
}

/// Copies the options listed in `pairs` (option name, request field name)
/// into the request body, when set.
pub fn copy(options: &Map<String, Value>, body: &mut Map<String, Value>, pairs: &[(&str, &str)]) {
    for (option, field) in pairs {
        if let Some(value) = options.get(*option) {
            body.insert(field.to_string(), value.clone());
        }
    }
}

/// Merges `options.extra_body` into the request body, last, so it can set
/// anything the server accepts.
pub fn merge_extra(options: &Map<String, Value>, body: &mut Map<String, Value>) {
    if let Some(Value::Object(extra)) = options.get("extra_body") {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
}

/// True unless `options.stream` is `false`.
pub fn streaming(options: &Map<String, Value>) -> bool {
    options.get("stream").and_then(Value::as_bool).unwrap_or(true)
}

/// True when the provider's own structured-output mechanism should be used.
pub fn native_output(options: &Map<String, Value>) -> bool {
    options.get("structured_output").and_then(Value::as_str) != Some("prompt")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn unknown_and_mistyped_options_are_refused_with_a_reason() {
        let own = [spec("top_k", Kind::Count)];
        assert!(validate("anthropic", &own, &opts(json!({"max_tokens": 100, "top_k": 5}))).is_ok());
        let e = validate("anthropic", &own, &opts(json!({"max_token": 100}))).unwrap_err();
        assert!(e.contains("options.max_token is not an option") && e.contains("max_tokens"), "{e}");
        let e = validate("anthropic", &own, &opts(json!({"max_tokens": "100"}))).unwrap_err();
        assert!(e.contains("whole number"), "{e}");
        let e = validate("anthropic", &own, &opts(json!({"base_url": "ftp://x"}))).unwrap_err();
        assert!(e.contains("URL"), "{e}");
        assert!(validate("anthropic", &own, &opts(json!({"base_url": "http://127.0.0.1:9/v1"}))).is_ok());
    }

    #[test]
    fn credential_names_must_belong_to_the_provider() {
        assert!(validate("openai", &[], &opts(json!({"credential": "openai:openrouter"}))).is_ok());
        assert!(validate("openai", &[], &opts(json!({"credential": "anthropic"}))).is_err());
        assert!(validate("openai", &[], &opts(json!({"credential": "openaix"}))).is_err());
    }
}
