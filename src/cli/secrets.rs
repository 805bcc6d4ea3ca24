//! `wingman secret set|list|delete`: the write-only secrets that MCP
//! servers' `env` and `headers` refer to. A value goes to the server and is
//! never shown again, here or anywhere.

use clap::Subcommand;
use serde_json::{json, Value};

use super::client::given_or_from_stdin;
use super::format;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::Tone;
use super::view::{announce, print_table, JsonArg};

/// `wingman secret …`.
#[derive(Debug, clap::Args)]
pub struct SecretArgs {
    #[command(subcommand)]
    command: SecretCommand,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum SecretCommand {
    /// Store a secret, or replace its value. The value is read from standard
    /// input (so that it stays out of shell history: all of it when piped,
    /// one line when typed, without the final newline) unless --value is given.
    Set {
        /// 1 to 128 characters of A-Z, a-z, 0-9, '_', '.', '-'.
        name: String,
        /// The value (it then shows in shell history and `ps`; standard input does not).
        #[arg(long)]
        value: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show the secrets' names and when they were set (never a value).
    List {
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Forget a secret.
    Delete {
        /// The secret's name.
        name: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Runs a `secret` command.
pub async fn run(remote: &Remote, args: SecretArgs) -> anyhow::Result<()> {
    match args.command {
        SecretCommand::Set { name, value, json } => {
            let value = given_or_from_stdin(value, "the value")?;
            let path = format!("/secrets/{}", segment(&name));
            let answer = remote.call(remote.put(&path).json(&json!({"value": value}))).await?;
            announce(json.json, &answer, format!("secret {name} set"));
        }
        SecretCommand::List { json } => list(&remote.read("/secrets").await?, json),
        SecretCommand::Delete { name, json } => {
            let answer = remote.call(remote.delete(&format!("/secrets/{}", segment(&name)))).await?;
            announce(json.json, &answer, format!("secret {name} deleted"));
        }
    }
    Ok(())
}

/// The secrets' names and times, as a table or the API's JSON.
fn list(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let rows = answer.as_array().into_iter().flatten().map(|secret| {
        let when = if secret["updated_at"].is_null() { &secret["created_at"] } else { &secret["updated_at"] };
        vec![(secret["name"].as_str().unwrap_or_default().to_string(), Tone::Bold), (format::age(when), Tone::Dim)]
    });
    print_table("no secrets", &["NAME", "UPDATED"], rows.collect());
}
