//! The built-in pure functions a formation's nodes may be: what each takes,
//! gives and does. Each is computed in the transaction that stores its
//! inputs, so it runs no code of anyone's and holds no worker.

use serde_json::Value;

use super::Shape;

/// The names of the functions, as a node gives them.
pub const NAMES: &[&str] = &["split_lines", "json_path", "join", "template"];

/// A function node's function, with its arguments checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Function {
    /// Text → the list of its lines that are not blank, trimmed.
    SplitLines,
    /// Any value (text that is JSON is read as JSON first) → the value at
    /// `path`: `$`, then `.key`, `["key"]` or `[index]` steps.
    JsonPath(Vec<Step>),
    /// A list → text: its items (text as it is, other values as JSON)
    /// joined with `separator` (a new line by default).
    Join(String),
    /// Any value → `template` with `{{input}}` replaced by the input (text
    /// as it is, other values as JSON) and `{{0}}`, `{{1}}`, … by the items
    /// of a list input.
    Template(String),
}

/// A step of a `json_path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

impl Function {
    /// The function `name` with `args`, or why they are not one.
    pub fn parse(name: &str, args: Option<&Value>) -> Result<Function, String> {
        let text_arg = |key: &str| -> Result<Option<String>, String> {
            match args.and_then(|a| a.get(key)) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("args.{key} must be a string")),
            }
        };
        let allowed: &[&str] = match name {
            "split_lines" => &[],
            "json_path" => &["path"],
            "join" => &["separator"],
            "template" => &["template"],
            _ => return Err(format!("names an unknown function {name:?} (known: {})", NAMES.join(", "))),
        };
        match args {
            None => {}
            Some(Value::Object(map)) => {
                if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
                    return Err(format!("has an unknown argument {key:?} for {name}"));
                }
            }
            Some(_) => return Err("args must be an object".into()),
        }
        match name {
            "split_lines" => Ok(Function::SplitLines),
            "json_path" => {
                let path = text_arg("path")?.ok_or("json_path needs args.path, such as \"$.items[0]\"")?;
                parse_path(&path).map(Function::JsonPath)
            }
            "join" => Ok(Function::Join(text_arg("separator")?.unwrap_or_else(|| "\n".into()))),
            _ => text_arg("template")?.map(Function::Template).ok_or_else(|| "template needs args.template".into()),
        }
    }

    /// What it takes.
    pub fn input_shape(&self) -> Shape {
        match self {
            Function::SplitLines => Shape::Text,
            Function::Join(_) => Shape::List,
            Function::JsonPath(_) | Function::Template(_) => Shape::Any,
        }
    }

    /// What it gives.
    pub fn output_shape(&self) -> Shape {
        match self {
            Function::SplitLines => Shape::List,
            Function::JsonPath(_) => Shape::Any,
            Function::Join(_) | Function::Template(_) => Shape::Text,
        }
    }

    /// Applies the function to `input`, or says why it cannot.
    pub fn apply(&self, input: &Value) -> Result<Value, String> {
        match self {
            Function::SplitLines => {
                let text = input.as_str().ok_or_else(|| format!("split_lines takes text, not {}", kind(input)))?;
                let lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
                Ok(Value::Array(lines.map(|l| Value::String(l.to_string())).collect()))
            }
            Function::JsonPath(path) => follow(input, path),
            Function::Join(separator) => {
                let items = input.as_array().ok_or_else(|| format!("join takes a list, not {}", kind(input)))?;
                let texts: Vec<String> = items.iter().map(as_text).collect();
                Ok(Value::String(texts.join(separator)))
            }
            Function::Template(template) => Ok(Value::String(fill(template, input))),
        }
    }
}

/// A value as text: text as it is, anything else as JSON.
pub fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("args.path {path:?} is not a path such as \"$.items[0].name\"");
    let mut rest = path.strip_prefix('$').ok_or_else(bad)?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(bad());
            }
            steps.push(Step::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(bad)?;
            let inside = &after[..end];
            let step = match inside.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                Some(key) if !key.contains('"') => Step::Key(key.to_string()),
                Some(_) => return Err(bad()),
                None if inside.bytes().all(|b| b.is_ascii_digit()) => Step::Index(inside.parse().map_err(|_| bad())?),
                None => return Err(bad()),
            };
            steps.push(step);
            rest = &after[end + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(steps)
}

fn follow(input: &Value, path: &[Step]) -> Result<Value, String> {
    // A model's answer is text: text that is JSON is read as JSON.
    let parsed;
    let mut at = match input.as_str().map(serde_json::from_str::<Value>) {
        Some(Ok(value)) => {
            parsed = value;
            &parsed
        }
        _ => input,
    };
    for step in path {
        let next = match step {
            Step::Key(key) => at.get(key.as_str()),
            Step::Index(i) => at.get(*i),
        };
        at = next.ok_or_else(|| match step {
            Step::Key(key) => format!("json_path: no key {key:?} in {}", kind(at)),
            Step::Index(i) => format!("json_path: no item {i} in {}", kind(at)),
        })?;
    }
    Ok(at.clone())
}

fn fill(template: &str, input: &Value) -> String {
    let mut out = template.replace("{{input}}", &as_text(input));
    if let Some(items) = input.as_array() {
        for (i, item) in items.iter().enumerate() {
            out = out.replace(&format!("{{{{{i}}}}}"), &as_text(item));
        }
    }
    out
}
