//! Structured output: checking an agent's `output_schema` and the final
//! answer against it.
//!
//! Providers are asked for JSON that fits the schema through their own
//! mechanism; whatever they answer is still validated here, because a model
//! can stop early, an OpenAI-compatible server may ignore the request, and
//! the `prompt` mode only asks nicely. Schemas may not load anything: `$ref`
//! must point inside the schema (no files, no network).

use boon::{Compiler, SchemaIndex, Schemas, UrlLoader};
use serde_json::Value;

/// Where the schema is registered while it is compiled; only a name.
const LOCATION: &str = "urn:wingman:output-schema";

/// Refuses every external reference.
struct NoLoader;

impl UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("output_schema may not reference {url}: only references inside the schema are allowed").into())
    }
}

fn compile(schema: &Value) -> Result<(Schemas, SchemaIndex), String> {
    let mut schemas = Schemas::new();
    let mut compiler = Compiler::new();
    compiler.use_loader(Box::new(NoLoader));
    compiler.add_resource(LOCATION, schema.clone()).map_err(|e| format!("{e:#}"))?;
    let index = compiler.compile(LOCATION, &mut schemas).map_err(|e| format!("{e:#}"))?;
    Ok((schemas, index))
}

/// Checks that `schema` is a JSON schema this build can validate against.
pub fn check(schema: &Value) -> Result<(), String> {
    if !schema.is_object() {
        return Err("output_schema must be a JSON object".into());
    }
    compile(schema).map(|_| ()).map_err(|e| format!("output_schema is not a valid JSON schema: {e}"))
}

/// Parses the final answer as JSON and validates it against `schema`.
/// A Markdown code fence around the JSON is tolerated.
pub fn validate_answer(schema: &Value, answer: &str) -> Result<Value, String> {
    let (schemas, index) = compile(schema).map_err(|e| format!("output_schema is not a valid JSON schema: {e}"))?;
    let text = strip_fence(answer.trim());
    let value: Value = serde_json::from_str(text).map_err(|e| format!("the answer is not JSON ({e})"))?;
    schemas.validate(&value, index).map_err(|e| format!("the answer does not match output_schema: {}", summary(&e)))?;
    Ok(value)
}

/// The validation error on one line, without the schema's internal location.
fn summary(error: &boon::ValidationError) -> String {
    let text = error.to_string();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let text = lines.join("; ").replace(LOCATION, "schema");
    text.chars().take(1000).collect()
}

fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else { return text };
    let Some(body) = rest.strip_suffix("```") else { return text };
    // Drop the language tag (`json`) on the opening line.
    match body.split_once('\n') {
        Some((_, inner)) => inner.trim(),
        None => body.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn order_schema() -> Value {
        json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}},
               "required": ["ids"], "additionalProperties": false})
    }

    #[test]
    fn conforming_answers_pass_and_others_say_why() {
        let schema = order_schema();
        assert_eq!(validate_answer(&schema, "{\"ids\": [12345, 67890]}").unwrap(), json!({"ids": [12345, 67890]}));
        assert!(validate_answer(&schema, "```json\n{\"ids\": []}\n```").is_ok());
        let e = validate_answer(&schema, "{\"ids\": [\"12345\"]}").unwrap_err();
        assert!(e.starts_with("the answer does not match output_schema") && e.contains("/ids/0"), "{e}");
        let e = validate_answer(&schema, "Sure! Here are the IDs: 12345").unwrap_err();
        assert!(e.starts_with("the answer is not JSON"), "{e}");
        let e = validate_answer(&schema, "{\"ids\": [], \"extra\": 1}").unwrap_err();
        assert!(e.contains("extra"), "{e}");
    }

    #[test]
    fn schemas_are_checked_and_may_not_load_files() {
        assert!(check(&order_schema()).is_ok());
        assert!(check(&json!({"type": "no-such-type"})).is_err());
        assert!(check(&json!([1])).is_err());
        let e = check(&json!({"$ref": "file:///etc/passwd"})).unwrap_err();
        assert!(!e.contains("root:"), "{e}");
        assert!(check(&json!({"$defs": {"id": {"type": "integer"}}, "items": {"$ref": "#/$defs/id"}})).is_ok());
    }
}
