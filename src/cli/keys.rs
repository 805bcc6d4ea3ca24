//! `wingman key create|list|revoke`: the API keys that open a server to an
//! owner with a role (an admin's commands). A key is printed once, when it
//! is made; lists show its owner, role, name and last four characters.

use clap::Subcommand;
use serde_json::{json, Value};

use super::format;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::Tone;
use super::view::{announce, print_table, JsonArg};

/// `wingman key …`.
#[derive(Debug, clap::Args)]
pub struct KeyArgs {
    #[command(subcommand)]
    command: KeyCommand,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum KeyCommand {
    /// Make a key and print it: it is shown this once.
    Create {
        /// Whose work the key opens: 1 to 64 letters, digits, '.', '_', '-' or '@'.
        #[arg(long)]
        owner: String,
        /// admin (everything), member (its owner's work: read, submit, cancel,
        /// approve, steer) or reader (read and tail its owner's work).
        #[arg(long, value_parser = ["admin", "member", "reader"])]
        role: String,
        /// A name to tell the key by.
        #[arg(long)]
        name: Option<String>,
        /// When the key stops working by itself (RFC 3339, e.g. 2027-01-01T00:00:00Z).
        #[arg(long)]
        expires_at: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show every key, the newest first, revoked ones included (never a key itself).
    List {
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key: every server refuses it within a second.
    Revoke {
        /// The key's ID (from `wingman key list`), not the key.
        id: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Runs a `key` command.
pub async fn run(remote: &Remote, args: KeyArgs) -> anyhow::Result<()> {
    match args.command {
        KeyCommand::Create { owner, role, name, expires_at, json } => {
            let body = json!({"owner": owner, "role": role, "name": name, "expires_at": expires_at});
            let body = without_nulls(body);
            let answer = remote.call(remote.post("/keys").json(&body)).await?;
            if json.json {
                print_json(&answer);
                return Ok(());
            }
            println!("{}", answer["key"].as_str().unwrap_or_default());
            eprintln!(
                "key {} for {} ({}): shown this once; send it as Authorization: Bearer <key> (or WINGMAN_AUTH_TOKEN)",
                answer["id"].as_str().unwrap_or("?"),
                answer["owner"].as_str().unwrap_or("?"),
                answer["role"].as_str().unwrap_or("?"),
            );
        }
        KeyCommand::List { json } => list(&remote.read("/keys").await?, json),
        KeyCommand::Revoke { id, json } => {
            let answer = remote.call(remote.delete(&format!("/keys/{}", segment(&id)))).await?;
            announce(json.json, &answer, format!("key {id} revoked"));
        }
    }
    Ok(())
}

/// The body without the options left out, which the API takes as absent.
fn without_nulls(mut body: Value) -> Value {
    if let Some(fields) = body.as_object_mut() {
        fields.retain(|_, value| !value.is_null());
    }
    body
}

/// The keys as a table or the API's JSON.
fn list(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let text = |key: &Value, field: &str| key[field].as_str().unwrap_or("-").to_string();
    let rows = answer.as_array().into_iter().flatten().map(|key| {
        let (state, tone) = match (key["revoked_at"].is_string(), key["expires_at"].is_string()) {
            (true, _) => ("revoked".to_string(), Tone::Dim),
            (false, true) => (format!("expires {}", text(key, "expires_at")), Tone::Plain),
            (false, false) => ("live".to_string(), Tone::Plain),
        };
        vec![
            (text(key, "id"), Tone::Bold),
            (text(key, "owner"), Tone::Plain),
            (text(key, "role"), Tone::Plain),
            (text(key, "name"), Tone::Plain),
            (text(key, "hint"), Tone::Dim),
            (format::age(&key["created_at"]), Tone::Dim),
            (state, tone),
        ]
    });
    print_table("no keys", &["ID", "OWNER", "ROLE", "NAME", "KEY", "MADE", "STATE"], rows.collect());
}
