//! `wingman secret set|list|delete`: the write-only secrets that MCP
//! servers' `env` and `headers` refer to. A value goes to the server and is
//! never shown again, here or anywhere.

use clap::Subcommand;
use serde_json::json;

use super::client::value_from_stdin;
use super::remote::{print_json, segment, Remote, ServerArg};

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
        #[arg(long)]
        value: Option<String>,
    },
    /// Show the secrets' names and when they were set (never a value).
    List,
    /// Forget a secret.
    Delete { name: String },
}

/// Runs a `secret` command and prints the server's answer.
pub async fn run(remote: &Remote, args: SecretArgs) -> anyhow::Result<()> {
    let answer = match args.command {
        SecretCommand::Set { name, value } => {
            let value = match value {
                Some(value) => value,
                None => value_from_stdin("the value")?,
            };
            let path = format!("/secrets/{}", segment(&name));
            remote.call(remote.put(&path).json(&json!({"value": value}))).await?
        }
        SecretCommand::List => remote.read("/secrets").await?,
        SecretCommand::Delete { name } => remote.call(remote.delete(&format!("/secrets/{}", segment(&name)))).await?,
    };
    print_json(&answer);
    Ok(())
}
