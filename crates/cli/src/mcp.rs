//! `reel mcp`: serve MCP on stdio for AI agents (see [`reel_mcp`]).

use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::output::note;
use reel_engine::config::Settings;
use reel_engine::session::Reach;

#[derive(Debug, Args)]
#[command(after_help = "\
Register it with an MCP client, e.g.: {\"mcpServers\": {\"reel\": {\"command\": \"reel\", \"args\": [\"mcp\"]}}}
Agents cannot send tasks unless the config file says [agents] submit = true (see the README).")]
pub struct McpArgs {}

pub async fn run(_args: &McpArgs, settings: &Settings, reach: &Reach) -> Result<ExitCode, CliError> {
    match reel_mcp::serve(settings.clone(), reach.clone()).await {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            note(&format!("reel mcp: {e}"));
            Ok(ExitCode::from(2))
        }
    }
}
