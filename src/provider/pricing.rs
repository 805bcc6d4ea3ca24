//! What inferences cost: a price table per provider and model, in US dollars
//! per million tokens of each kind.
//!
//! The shipped defaults are list prices as published when they were written
//! (see docs/providers.md); they live in the model catalogue (`models.json`,
//! read by [`super::models`]) so that each price is written once. A JSON file
//! named by `--pricing-file` (`WINGMAN_PRICING_FILE`) overrides or adds
//! entries, and an agent's `options.pricing` overrides the price of its own
//! model. A model matches an entry with its exact name, or the longest entry
//! that is a prefix of it followed by `-`, `:` or `@`
//! (`claude-haiku-4-5-20251001` is priced as `claude-haiku-4-5`); `*` matches
//! every model of a provider. A model with no price has an unknown cost,
//! which is recorded as such and fails nothing.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::models::ModelCatalog;
use crate::domain::model::Usage;

/// The price of one model, in US dollars per million tokens.
///
/// It (de)serializes as `{"input", "output", "cache_read"?, "cache_write"?}`,
/// which is both the pricing file's entry and a catalogue model's `cost`, so
/// one type carries a price everywhere. Serde does not check that prices are
/// non-negative: input from users goes through [`Price::parse`] first.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Input read from the prompt cache; the input price when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Input written to the prompt cache; the input price when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl Price {
    /// Reads `{"input", "output", "cache_read"?, "cache_write"?}`.
    pub fn parse(value: &Value) -> Result<Price, String> {
        let obj = value.as_object().ok_or("a price is an object of dollars per million tokens")?;
        if let Some(unknown) =
            obj.keys().find(|k| !["input", "output", "cache_read", "cache_write"].contains(&k.as_str()))
        {
            return Err(format!("unknown price field {unknown:?} (input, output, cache_read, cache_write)"));
        }
        let field = |name: &str| -> Result<Option<f64>, String> {
            match obj.get(name) {
                None => Ok(None),
                Some(v) => match v.as_f64() {
                    Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
                    _ => Err(format!("{name} must be a number of dollars per million tokens, not negative")),
                },
            }
        };
        let input = field("input")?.ok_or("input is required")?;
        let output = field("output")?.ok_or("output is required")?;
        Ok(Price { input, output, cache_read: field("cache_read")?, cache_write: field("cache_write")? })
    }

    /// The cost of `usage` at this price, in dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per_token(usage.input_tokens, self.input)
            + per_token(usage.output_tokens, self.output)
            + per_token(usage.cache_read_input_tokens, self.cache_read.unwrap_or(self.input))
            + per_token(usage.cache_creation_input_tokens, self.cache_write.unwrap_or(self.input))
    }
}

/// A price table: provider → model → price.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pricing {
    table: HashMap<String, HashMap<String, Price>>,
}

impl Pricing {
    /// The shipped defaults: the cost of every model in the shipped model
    /// catalogue that has one. Prices are written there once, so the
    /// catalogue shown to clients and the charges cannot disagree.
    pub fn defaults() -> Pricing {
        let mut pricing = Pricing::default();
        for (provider, models) in ModelCatalog::shipped().providers() {
            for (id, model) in models {
                if let Some(price) = model.cost {
                    pricing.set(provider, id, price);
                }
            }
        }
        pricing
    }

    /// The defaults with a pricing file's entries laid over them.
    pub fn load(path: &std::path::Path) -> anyhow::Result<Pricing> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read the pricing file {}: {e}", path.display()))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("the pricing file {} is not JSON: {e}", path.display()))?;
        let mut pricing = Pricing::defaults();
        pricing.overlay(&value).map_err(|e| anyhow::anyhow!("the pricing file {}: {e}", path.display()))?;
        Ok(pricing)
    }

    /// Adds or replaces entries from `{"provider": {"model": price, …}, …}`.
    pub fn overlay(&mut self, value: &Value) -> Result<(), String> {
        let providers = value.as_object().ok_or("expected {\"provider\": {\"model\": {\"input\", \"output\"}}}")?;
        for (provider, models) in providers {
            let models = models.as_object().ok_or_else(|| format!("{provider}: expected an object of models"))?;
            for (model, price) in models {
                let price = Price::parse(price).map_err(|e| format!("{provider}.{model}: {e}"))?;
                self.set(provider, model, price);
            }
        }
        Ok(())
    }

    /// Every entry of the table as (provider, model, price), in no
    /// particular order; `*` entries included, as written. The model
    /// catalogue reads it to show what runs are charged.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str, Price)> + '_ {
        self.table.iter().flat_map(|(provider, models)| {
            models.iter().map(move |(model, price)| (provider.as_str(), model.as_str(), *price))
        })
    }

    fn set(&mut self, provider: &str, model: &str, price: Price) {
        self.table.entry(provider.to_string()).or_default().insert(model.to_string(), price);
    }

    /// The price of a model: exact name, else the longest prefix entry, else `*`.
    pub fn lookup(&self, provider: &str, model: &str) -> Option<Price> {
        let models = self.table.get(provider)?;
        if let Some(price) = models.get(model) {
            return Some(*price);
        }
        let prefix = models
            .iter()
            .filter(|(name, _)| model.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with(['-', ':', '@'])))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| *price);
        prefix.or_else(|| models.get("*").copied())
    }

    /// The cost of one inference, or `None` when the model has no price.
    pub fn cost(&self, provider: &str, model: &str, options: &Map<String, Value>, usage: &Usage) -> Option<f64> {
        let price = match options.get("pricing").map(Price::parse) {
            Some(Ok(price)) => Some(price),
            _ => self.lookup(provider, model),
        };
        price.map(|p| p.cost(usage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(input: u64, output: u64, read: u64, write: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_input_tokens: read,
            cache_creation_input_tokens: write,
            cost_usd: None,
        }
    }

    #[test]
    fn dated_model_names_match_their_family_and_the_longest_prefix_wins() {
        let p = Pricing::defaults();
        assert_eq!(p.lookup("anthropic", "claude-haiku-4-5-20251001").unwrap().input, 1.0);
        assert_eq!(p.lookup("openai", "gpt-4o-2024-08-06").unwrap().input, 2.5);
        assert_eq!(p.lookup("openai", "gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
        assert_eq!(p.lookup("openai", "gpt-4.1-mini").unwrap().input, 0.4);
        assert_eq!(p.lookup("openai", "gpt-4o2"), None);
        assert_eq!(p.lookup("ollama", "llama3.2"), None);
        assert_eq!(p.lookup("scripted", "echo"), None);
    }

    #[test]
    fn cost_counts_every_kind_of_token() {
        let p = Pricing::defaults();
        // 770 input and 38 output tokens of claude-haiku-4-5 at $1 / $5 per million.
        let cost = p.cost("anthropic", "claude-haiku-4-5", &Map::new(), &usage(770, 38, 0, 0)).unwrap();
        assert!((cost - 0.00096).abs() < 1e-12, "{cost}");
        let cost = p.cost("anthropic", "claude-sonnet-4-5", &Map::new(), &usage(0, 0, 1_000_000, 1_000_000)).unwrap();
        assert!((cost - 4.05).abs() < 1e-9, "{cost}");
        assert_eq!(p.cost("ollama", "llama3.2", &Map::new(), &usage(1, 1, 0, 0)), None);
    }

    #[test]
    fn files_and_agent_options_override_the_defaults() {
        let mut p = Pricing::defaults();
        p.overlay(
            &json!({"ollama": {"*": {"input": 0, "output": 0}}, "openai": {"gpt-4o": {"input": 5, "output": 15}}}),
        )
        .unwrap();
        assert_eq!(p.cost("ollama", "llama3.2", &Map::new(), &usage(10, 10, 0, 0)), Some(0.0));
        assert_eq!(p.lookup("openai", "gpt-4o-2024-05-13").unwrap().input, 5.0);
        let options = json!({"pricing": {"input": 1000000, "output": 0}}).as_object().cloned().unwrap();
        assert_eq!(p.cost("openai", "gpt-4o", &options, &usage(3, 5, 0, 0)), Some(3.0));
        assert!(p.overlay(&json!({"openai": {"x": {"input": -1, "output": 1}}})).is_err());
        assert!(p.overlay(&json!({"openai": {"x": {"input": 1}}})).is_err());
    }
}
