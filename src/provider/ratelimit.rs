//! What providers say about their rate limits in the headers of every
//! answer, read into a [`Heard`] for the credential's budget: OpenAI's
//! `x-ratelimit-*` (limits a minute, resets as durations such as `6m0s` or
//! `20ms`) and Anthropic's `anthropic-ratelimit-*` (resets as RFC 3339
//! times). Anything missing or malformed is simply not heard.

use reqwest::header::HeaderMap;

use crate::domain::budget::Heard;

/// What `headers` say about the limits, if anything.
pub fn heard(headers: &HeaderMap) -> Option<Heard> {
    let number =
        |name: &str| header(headers, name).and_then(|v| v.parse::<f64>().ok()).filter(|n| n.is_finite() && *n >= 0.0);
    let openai = Heard {
        requests_per_minute: number("x-ratelimit-limit-requests"),
        tokens_per_minute: number("x-ratelimit-limit-tokens"),
        requests_remaining: number("x-ratelimit-remaining-requests").map(|n| n as u64),
        requests_reset_ms: header(headers, "x-ratelimit-reset-requests").and_then(duration_ms),
    };
    let anthropic = Heard {
        requests_per_minute: number("anthropic-ratelimit-requests-limit"),
        tokens_per_minute: number("anthropic-ratelimit-tokens-limit"),
        requests_remaining: number("anthropic-ratelimit-requests-remaining").map(|n| n as u64),
        requests_reset_ms: header(headers, "anthropic-ratelimit-requests-reset").and_then(until_ms),
    };
    [openai, anthropic].into_iter().find(|h| *h != Heard::default())
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name)?.to_str().ok().map(str::trim)
}

/// `1s`, `6m0s`, `20ms`, `1h2m3.5s` → milliseconds.
fn duration_ms(text: &str) -> Option<u64> {
    let (mut total, mut number) = (0.0_f64, String::new());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match (c, chars.peek()) {
            ('m', Some('s')) => {
                chars.next();
                1.0
            }
            ('h', _) => 3_600_000.0,
            ('m', _) => 60_000.0,
            ('s', _) => 1000.0,
            _ => return None,
        };
        total += number.parse::<f64>().ok()? * unit;
        number.clear();
    }
    (number.is_empty() && total.is_finite()).then_some(total.round() as u64)
}

/// An RFC 3339 time → milliseconds from now (0 when past).
fn until_ms(text: &str) -> Option<u64> {
    let at = chrono::DateTime::parse_from_rfc3339(text).ok()?;
    Some((at.timestamp_millis() - chrono::Utc::now().timestamp_millis()).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn openai_limits_and_durations_are_read() {
        let h = headers(&[
            ("x-ratelimit-limit-requests", "1200"),
            ("x-ratelimit-limit-tokens", "150000"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1m0.5s"),
        ]);
        let heard = heard(&h).unwrap();
        assert_eq!(heard.requests_per_minute, Some(1200.0));
        assert_eq!(heard.tokens_per_minute, Some(150000.0));
        assert_eq!((heard.requests_remaining, heard.requests_reset_ms), (Some(0), Some(60_500)));
        assert_eq!(duration_ms("20ms"), Some(20));
        assert_eq!(duration_ms("6m0s"), Some(360_000));
        assert_eq!(duration_ms("soon"), None);
    }

    #[test]
    fn anthropic_headers_as_recorded_are_read_and_nothing_is_heard_without_them() {
        let capture = crate::provider::fixtures::json("anthropic_error_429.headers.json");
        let pairs: Vec<(String, String)> = capture["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let heard = heard(&headers(&refs)).unwrap();
        assert_eq!((heard.requests_per_minute, heard.tokens_per_minute), (Some(5.0), Some(25000.0)));
        assert_eq!((heard.requests_remaining, heard.requests_reset_ms), (Some(0), Some(0)));
        assert_eq!(super::heard(&headers(&[("content-type", "application/json")])), None);
    }
}
