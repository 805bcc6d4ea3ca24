//! The model catalogue: what each provider's models can do, how much they
//! hold and what they cost, in the shape of models.dev.
//!
//! The catalogue ships inside the binary (`models.json`, next to this file)
//! so that answering `GET /provider/{id}/models` never needs the network: a
//! server behind a firewall, or one that must not leak which models it uses,
//! answers the same as any other. It is also where the shipped list prices
//! live; [`Pricing::defaults`] reads them from here, so a price is written
//! once.
//!
//! [`ModelCatalog::load`] lays two things over the shipped catalogue. First a
//! models file (same shape as `models.json`), because models appear faster
//! than releases do. Then the price table, because that table is what runs
//! are charged with: showing any other price would mislead.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::pricing::{Price, Pricing};

/// The shipped catalogue: provider id → model id → model, without the keys
/// repeated inside each model.
const SHIPPED: &str = include_str!("models.json");

/// One model, as `GET /provider/{id}/models/{model}` shows it.
///
/// Fields follow models.dev so that clients written against it keep working.
/// `id` and `provider` are not written in `models.json` (they are its keys)
/// but are filled in, so a model read on its own still says what it is.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelInfo {
    /// The model's id, as an agent's `model` names it.
    pub id: String,
    /// A name for people; the id when nothing better is known.
    pub name: String,
    /// The provider's id (`anthropic`, `openai`, …).
    pub provider: String,
    /// The line of models this one belongs to (`claude-sonnet`, `gpt-4o`),
    /// so that clients can group versions of one model together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Whether the model accepts files or images along with text.
    #[serde(default)]
    pub attachment: bool,
    /// Whether the model thinks before it answers, which costs output tokens.
    #[serde(default)]
    pub reasoning: bool,
    /// Whether the model can call tools; an agent with tools needs one that can.
    #[serde(default)]
    pub tool_call: bool,
    /// Whether the provider constrains the model's answer to an
    /// `output_schema`; absent when not known, because Wingman validates
    /// the answer either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<bool>,
    /// When the model was released (`YYYY-MM-DD`), to tell old from new.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_date: Option<String>,
    /// The price in US dollars per million tokens; absent when unknown,
    /// because a guessed price would be recorded as if it were true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Price>,
    /// How many tokens the model takes in and gives out.
    pub limit: Limit,
    /// What kinds of content go in and come out.
    #[serde(default)]
    pub modalities: Modalities,
}

/// A model's limits in tokens. Zero means unknown: a model known only from
/// the price table has no published limit here, and a number that says so
/// is easier for clients than a missing object.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// The context window: prompt and answer together.
    pub context: u64,
    /// The most the model writes in one answer.
    pub output: u64,
}

/// The kinds of content a model reads and writes (`text`, `image`, `pdf`, …).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Modalities {
    /// What the model reads.
    pub input: Vec<String>,
    /// What the model writes.
    pub output: Vec<String>,
}

impl Default for Modalities {
    /// Text in, text out: every model Wingman talks to does at least that,
    /// so it is the safe assumption for a model given without modalities.
    fn default() -> Modalities {
        Modalities { input: vec!["text".into()], output: vec!["text".into()] }
    }
}

/// The model catalogue: provider id → model id → model.
///
/// It serializes as that nested map, which is the shape of models.dev.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(transparent)]
pub struct ModelCatalog {
    providers: BTreeMap<String, BTreeMap<String, ModelInfo>>,
}

/// The context window of an agent's model, in tokens: its
/// `options.context_window`, else the shipped catalogue's; `None` when
/// neither knows it (a run then compacts only when the provider says the
/// prompt is too long, or when asked to).
pub fn context_window(agent: &crate::domain::model::Agent) -> Option<u64> {
    if let Some(window) = agent.options.get("context_window").and_then(Value::as_u64) {
        return Some(window);
    }
    let known = ModelCatalog::shipped_ref().model(&agent.provider, &agent.model)?;
    Some(known.limit.context).filter(|&w| w > 0)
}

/// What a models file must look like, for error messages.
const SHAPE: &str = "expected {\"provider\": {\"model\": {\"name\", \"limit\": {\"context\", \"output\"}, …}}}";

impl ModelCatalog {
    /// The catalogue shipped in the binary, with its list prices: a copy
    /// to change (see [`ModelCatalog::shipped_ref`]).
    pub fn shipped() -> ModelCatalog {
        ModelCatalog::shipped_ref().clone()
    }

    /// The shipped catalogue, borrowed: for lookups on a hot path, which
    /// should not copy the whole catalogue.
    ///
    /// It is parsed once per process; a unit test proves it parses, so the
    /// panic below can only be reached by a build whose tests failed.
    pub fn shipped_ref() -> &'static ModelCatalog {
        static CATALOG: OnceLock<ModelCatalog> = OnceLock::new();
        CATALOG.get_or_init(|| {
            let value: Value = serde_json::from_str(SHIPPED).expect("the shipped models.json is JSON");
            let mut catalog = ModelCatalog { providers: BTreeMap::new() };
            catalog.merge(&value, true).unwrap_or_else(|e| panic!("the shipped models.json: {e}"));
            catalog
        })
    }

    /// The shipped catalogue, then a models file, then the price table.
    ///
    /// The models file has the shape of `models.json`. An entry for a new
    /// model adds it, and needs a `limit`; an entry for a known model is laid
    /// over it field by field at the top level, so `{"limit": …}` alone
    /// changes the limit and keeps the rest. A provider this build does not
    /// have is an error, because its models could never be run.
    ///
    /// The price table then sets the cost of every model it prices (by the
    /// same exact, prefix or `*` match that charges runs), so the catalogue
    /// shows what runs are charged. A model the table names exactly but the
    /// catalogue lacks is added with its id as name and a `limit` of
    /// `{"context": 0, "output": 0}`, which means unknown. A cost given only
    /// in the models file is shown but not charged: charges come from the
    /// price table (`--pricing-file`) alone.
    pub fn load(models_file: Option<&Path>, pricing: &Pricing) -> anyhow::Result<ModelCatalog> {
        let mut catalog = ModelCatalog::shipped();
        if let Some(path) = models_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("cannot read the models file {}: {e}", path.display()))?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| anyhow::anyhow!("the models file {} is not JSON: {e}", path.display()))?;
            catalog.merge(&value, false).map_err(|e| anyhow::anyhow!("the models file {}: {e}", path.display()))?;
        }
        catalog.apply_prices(pricing);
        Ok(catalog)
    }

    /// The models of one provider by id, or `None` for a provider this build
    /// does not have (which an API answers with 404, not an empty list).
    pub fn models(&self, provider: &str) -> Option<&BTreeMap<String, ModelInfo>> {
        self.providers.get(provider)
    }

    /// One model, or `None` when the provider or the model is not known.
    pub fn model(&self, provider: &str, id: &str) -> Option<&ModelInfo> {
        self.providers.get(provider)?.get(id)
    }

    /// Every provider with its models, in id order, for callers that need
    /// the whole catalogue (the shipped price table is built this way).
    pub fn providers(&self) -> impl Iterator<Item = (&str, &BTreeMap<String, ModelInfo>)> + '_ {
        self.providers.iter().map(|(id, models)| (id.as_str(), models))
    }

    /// Lays `{"provider": {"model": entry}}` over the catalogue. Only the
    /// shipped file may add providers: they are the ones this build has.
    fn merge(&mut self, value: &Value, add_providers: bool) -> Result<(), String> {
        let providers = value.as_object().ok_or(SHAPE)?;
        for (provider, models) in providers {
            if !add_providers && !self.providers.contains_key(provider) {
                let known: Vec<&str> = self.providers.keys().map(String::as_str).collect();
                return Err(format!("unknown provider {provider:?} (known: {})", known.join(", ")));
            }
            let models = models.as_object().ok_or_else(|| format!("{provider}: expected an object of models by id"))?;
            for (id, entry) in models {
                let info = self.merged(provider, id, entry).map_err(|e| format!("{provider}.{id}: {e}"))?;
                self.providers.entry(provider.clone()).or_default().insert(id.clone(), info);
            }
        }
        Ok(())
    }

    /// The model that `entry` makes of `provider`/`id`: the entry's fields
    /// over the known model's, or the entry alone for a new model.
    fn merged(&self, provider: &str, id: &str, entry: &Value) -> Result<ModelInfo, String> {
        let entry = entry.as_object().ok_or("a model is an object of fields")?;
        // The keys say which model this is; a field that disagrees is a
        // mistake that would otherwise file the model under two names.
        for (field, expected) in [("id", id), ("provider", provider)] {
            if let Some(given) = entry.get(field).filter(|v| v.as_str() != Some(expected)) {
                return Err(format!("{field} is {given}, but the entry is under {expected:?}"));
            }
        }
        // Price::parse says which price field is wrong and why, which serde
        // alone would not (a negative price deserializes fine).
        if let Some(cost) = entry.get("cost").filter(|c| !c.is_null()) {
            Price::parse(cost).map_err(|e| format!("cost: {e}"))?;
        }
        let mut fields = match self.model(provider, id) {
            Some(known) => match serde_json::to_value(known) {
                Ok(Value::Object(fields)) => fields,
                _ => unreachable!("a ModelInfo serializes as an object"),
            },
            None if !entry.contains_key("limit") => {
                return Err("a new model needs a limit: {\"context\", \"output\"} in tokens".into());
            }
            None => Map::from_iter([("name".to_string(), Value::from(id))]),
        };
        fields.extend(entry.iter().map(|(k, v)| (k.clone(), v.clone())));
        fields.insert("id".into(), id.into());
        fields.insert("provider".into(), provider.into());
        serde_json::from_value(Value::Object(fields)).map_err(|e| e.to_string())
    }

    /// Sets each model's cost from the price table, and adds the models the
    /// table names exactly that the catalogue lacks. Providers this build
    /// does not have are skipped: no run can be charged for them.
    fn apply_prices(&mut self, pricing: &Pricing) {
        for (provider, models) in &mut self.providers {
            for info in models.values_mut() {
                if let Some(price) = pricing.lookup(provider, &info.id) {
                    info.cost = Some(price);
                }
            }
        }
        for (provider, id, price) in pricing.entries() {
            let Some(models) = self.providers.get_mut(provider).filter(|_| id != "*") else { continue };
            models.entry(id.to_string()).or_insert_with(|| ModelInfo {
                id: id.to_string(),
                name: id.to_string(),
                provider: provider.to_string(),
                family: None,
                attachment: false,
                reasoning: false,
                tool_call: false,
                structured_output: None,
                release_date: None,
                cost: Some(price),
                limit: Limit::default(),
                modalities: Modalities::default(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Write;

    /// The price table pricing.rs had before prices moved here: input,
    /// output, cache read, cache write.
    const OLD_DEFAULTS: &[(&str, &str, Price)] = &[
        ("anthropic", "claude-opus-4-5", price(5.0, 25.0, 0.5, Some(6.25))),
        ("anthropic", "claude-opus-4-1", price(15.0, 75.0, 1.5, Some(18.75))),
        ("anthropic", "claude-opus-4", price(15.0, 75.0, 1.5, Some(18.75))),
        ("anthropic", "claude-sonnet-4-5", price(3.0, 15.0, 0.3, Some(3.75))),
        ("anthropic", "claude-sonnet-4", price(3.0, 15.0, 0.3, Some(3.75))),
        ("anthropic", "claude-3-7-sonnet", price(3.0, 15.0, 0.3, Some(3.75))),
        ("anthropic", "claude-haiku-4-5", price(1.0, 5.0, 0.1, Some(1.25))),
        ("anthropic", "claude-3-5-haiku", price(0.8, 4.0, 0.08, Some(1.0))),
        ("anthropic", "claude-3-haiku", price(0.25, 1.25, 0.03, Some(0.3))),
        ("openai", "gpt-5", price(1.25, 10.0, 0.125, None)),
        ("openai", "gpt-5-mini", price(0.25, 2.0, 0.025, None)),
        ("openai", "gpt-5-nano", price(0.05, 0.4, 0.005, None)),
        ("openai", "gpt-4.1", price(2.0, 8.0, 0.5, None)),
        ("openai", "gpt-4.1-mini", price(0.4, 1.6, 0.1, None)),
        ("openai", "gpt-4.1-nano", price(0.1, 0.4, 0.025, None)),
        ("openai", "gpt-4o", price(2.5, 10.0, 1.25, None)),
        ("openai", "gpt-4o-mini", price(0.15, 0.6, 0.075, None)),
        ("openai", "o3", price(2.0, 8.0, 0.5, None)),
        ("openai", "o4-mini", price(1.1, 4.4, 0.275, None)),
    ];

    const fn price(input: f64, output: f64, cache_read: f64, cache_write: Option<f64>) -> Price {
        Price { input, output, cache_read: Some(cache_read), cache_write }
    }

    fn models_file(value: Value) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(value.to_string().as_bytes()).unwrap();
        file
    }

    fn load(value: Value) -> anyhow::Result<ModelCatalog> {
        let file = models_file(value);
        ModelCatalog::load(Some(file.path()), &Pricing::defaults())
    }

    #[test]
    fn the_shipped_catalogue_parses_and_keeps_the_old_prices() {
        let catalog = ModelCatalog::shipped();
        for &(provider, id, price) in OLD_DEFAULTS {
            let model = catalog.model(provider, id).unwrap_or_else(|| panic!("{provider}.{id} is missing"));
            assert_eq!(model.cost, Some(price), "{provider}.{id}");
            assert!(model.limit.context > 0 && model.limit.output > 0, "{provider}.{id}");
            assert_eq!((model.id.as_str(), model.provider.as_str()), (id, provider));
        }
        let priced = catalog.providers().flat_map(|(_, models)| models.values()).filter(|m| m.cost.is_some());
        assert_eq!(priced.count(), OLD_DEFAULTS.len(), "a price was added that the old table did not have");
        // Prices live in one place: the defaults are the catalogue's.
        let pricing = Pricing::defaults();
        assert_eq!(pricing.entries().count(), OLD_DEFAULTS.len());
        assert_eq!(ModelCatalog::load(None, &pricing).unwrap(), catalog);
    }

    #[test]
    fn every_provider_and_example_model_is_in_the_shipped_catalogue() {
        let catalog = ModelCatalog::shipped();
        let providers: Vec<&str> = catalog.providers().map(|(id, _)| id).collect();
        let mut known: Vec<&str> = super::super::catalog().iter().map(|p| p.id).collect();
        known.sort();
        assert_eq!(providers, known);
        for info in super::super::catalog() {
            for model in info.models {
                assert!(catalog.model(info.id, model).is_some(), "{}.{model} is missing", info.id);
            }
        }
        let echo = catalog.model("scripted", "echo").unwrap();
        assert_eq!(echo.limit, Limit { context: 1_000_000, output: 1_000_000 });
        assert!(echo.tool_call);
        assert_eq!(catalog.model("ollama", "qwen3").unwrap().limit, Limit { context: 40960, output: 40960 });
        assert_eq!(catalog.model("ollama", "llama3.2").unwrap().cost, None);
    }

    #[test]
    fn a_model_serializes_in_the_shape_of_models_dev() {
        let catalog = ModelCatalog::shipped();
        let value = serde_json::to_value(catalog.model("openai", "gpt-4o").unwrap()).unwrap();
        assert_eq!(
            value,
            json!({
                "id": "gpt-4o", "name": "GPT-4o", "provider": "openai", "family": "gpt-4o",
                "attachment": true, "reasoning": false, "tool_call": true, "structured_output": true,
                "release_date": "2024-05-13",
                "cost": {"input": 2.5, "output": 10.0, "cache_read": 1.25},
                "limit": {"context": 128000, "output": 16384},
                "modalities": {"input": ["text", "image"], "output": ["text"]},
            })
        );
        // Unknown fields are left out rather than written as null.
        let echo = serde_json::to_string(catalog.model("scripted", "echo").unwrap()).unwrap();
        assert!(
            echo.starts_with(r#"{"id":"echo","name":"Echo (scripted, offline)","provider":"scripted","attachment""#)
        );
        assert!(!echo.contains("cost") && !echo.contains("null"), "{echo}");
        // A provider's models serialize as a map by id, as models.dev lists them.
        assert_eq!(serde_json::to_value(catalog.models("ollama").unwrap()).unwrap()["qwen3"]["reasoning"], true);
    }

    #[test]
    fn a_models_file_adds_models_and_merges_partial_entries() {
        let catalog = load(json!({
            "ollama": {"mistral-small": {"name": "Mistral Small", "tool_call": true,
                                          "limit": {"context": 32768, "output": 8192}}},
            "anthropic": {"claude-sonnet-4-5": {"limit": {"context": 1000000, "output": 64000}}},
        }))
        .unwrap();
        let added = catalog.model("ollama", "mistral-small").unwrap();
        assert_eq!(
            (added.id.as_str(), added.provider.as_str(), added.name.as_str()),
            ("mistral-small", "ollama", "Mistral Small")
        );
        assert!(added.tool_call && !added.reasoning);
        assert_eq!(added.modalities, Modalities::default());
        assert_eq!(added.cost, None);

        let merged = catalog.model("anthropic", "claude-sonnet-4-5").unwrap();
        let shipped = ModelCatalog::shipped().model("anthropic", "claude-sonnet-4-5").unwrap().clone();
        assert_eq!(merged.limit, Limit { context: 1_000_000, output: 64000 });
        assert_eq!(merged, &ModelInfo { limit: merged.limit, ..shipped });

        // A new model without a name is named by its id.
        let catalog = load(json!({"openai": {"gpt-x": {"limit": {"context": 1, "output": 1}}}})).unwrap();
        assert_eq!(catalog.model("openai", "gpt-x").unwrap().name, "gpt-x");
    }

    #[test]
    fn the_price_table_sets_costs_and_adds_priced_models() {
        let mut pricing = Pricing::defaults();
        pricing
            .overlay(&json!({
                "openai": {"gpt-4o": {"input": 5, "output": 15}, "gpt-9": {"input": 7, "output": 70}},
                "ollama": {"*": {"input": 0, "output": 0}},
                "elsewhere": {"model": {"input": 1, "output": 1}},
            }))
            .unwrap();
        let catalog = ModelCatalog::load(None, &pricing).unwrap();
        let gpt4o = catalog.model("openai", "gpt-4o").unwrap();
        assert_eq!(gpt4o.cost, Some(Price { input: 5.0, output: 15.0, cache_read: None, cache_write: None }));
        assert_eq!(gpt4o.limit, Limit { context: 128000, output: 16384 });

        let added = catalog.model("openai", "gpt-9").unwrap();
        assert_eq!(added.name, "gpt-9");
        assert_eq!(added.limit, Limit { context: 0, output: 0 });
        assert_eq!(added.cost.unwrap().output, 70.0);

        // `*` prices the models the catalogue has but adds no model named `*`.
        assert_eq!(catalog.model("ollama", "llama3.2").unwrap().cost.unwrap().input, 0.0);
        assert!(catalog.model("ollama", "*").is_none());
        assert!(catalog.models("elsewhere").is_none());
    }

    #[test]
    fn bad_models_files_are_errors_naming_the_file_and_the_entry() {
        let file = models_file(json!({"mistral": {"large": {"limit": {"context": 1, "output": 1}}}}));
        let err = ModelCatalog::load(Some(file.path()), &Pricing::defaults()).unwrap_err().to_string();
        assert!(err.contains(&file.path().display().to_string()), "{err}");
        assert!(err.contains("unknown provider \"mistral\""), "{err}");

        let err = load(json!({"ollama": {"phi4": {"name": "Phi-4"}}})).unwrap_err().to_string();
        assert!(err.contains("ollama.phi4: a new model needs a limit"), "{err}");
        let err = load(json!({"openai": {"gpt-4o": {"limits": {}}}})).unwrap_err().to_string();
        assert!(err.contains("openai.gpt-4o: unknown field `limits`"), "{err}");
        let err = load(json!({"openai": {"gpt-4o": {"cost": {"input": -1, "output": 1}}}})).unwrap_err().to_string();
        assert!(err.contains("openai.gpt-4o: cost: input must be a number"), "{err}");
        let err = load(json!({"openai": {"gpt-4o": {"id": "gpt-5"}}})).unwrap_err().to_string();
        assert!(err.contains("openai.gpt-4o: id is \"gpt-5\""), "{err}");
        assert!(load(json!({"openai": {"gpt-4o": {"limit": {"context": 1}}}})).is_err());
        assert!(load(json!(["openai"])).is_err());

        let missing = Path::new("/nonexistent/models.json");
        let err = ModelCatalog::load(Some(missing), &Pricing::defaults()).unwrap_err().to_string();
        assert!(err.contains("cannot read the models file /nonexistent/models.json"), "{err}");
    }

    #[test]
    fn unknown_providers_and_models_are_none() {
        let catalog = ModelCatalog::shipped();
        assert!(catalog.model("anthropic", "nope").is_none());
        assert!(catalog.model("nope", "echo").is_none());
        assert!(catalog.models("nope").is_none());
        assert_eq!(catalog.models("scripted").unwrap().len(), 1);
    }
}
