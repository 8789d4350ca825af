use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use webfold_live::LiveBrowser;
use webfold_server::mcp::{ToolContext, ToolGroups};
use webfold_server::service::{Conversations, Freshness};
use webfold_store::Database;

/// Serve webfold's MCP tools over standard input/output (for Claude Code, Cursor, …).
#[derive(Parser)]
#[command(
    after_help = "Example (Claude Code):\n  claude mcp add webfold -- webfold mcp\n\nConversations created through `webfold serve` are readable here when both use the same --db.\nThe browser_* tools start headless Chromium on their first call (or attach with --cdp-url) and stop it when the server exits.\n\nWith the ui tools, a message written in the browser's side panel is pushed to the client as it is sent: to Claude Code as a channel event (start it with --dangerously-load-development-channels server:webfold during the channels preview), to other clients through the resource webfold://browser/inbox they subscribe to."
)]
pub struct Args {
    /// SQLite database file or postgres:// URL shared with `webfold serve` [default: $XDG_DATA_HOME/webfold/webfold.db]
    #[arg(long)]
    db: Option<PathBuf>,
    /// Do not open a database: tools take url or html only
    #[arg(long, conflicts_with = "db")]
    no_db: bool,
    /// Memory for parsed pages, in MB
    #[arg(long, default_value_t = 256)]
    cache_mb: usize,
    /// Tool groups to list: page (views of a page), browser (a live Chromium
    /// tab), ui (what the user picks in the browser, through the daemon)
    #[arg(long, default_value = "page,browser", value_name = "GROUPS")]
    tools: ToolGroups,
    /// The browser tools' Chromium
    #[command(flatten)]
    chromium: crate::input::ChromiumArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let conversations = if args.no_db {
        None
    } else {
        let db = match &args.db {
            Some(p) => Some(Database::from_arg(p)),
            None => webfold_store::default_db_path().map(Database::Sqlite),
        };
        match db.map(|db| (runtime.block_on(webfold_store::open(&db)), db)) {
            Some((Ok(store), _)) => Some(Arc::new(Conversations::new(
                store,
                args.cache_mb.max(1) * 1024 * 1024,
                Freshness::Shared,
            ))),
            // stdout belongs to JSON-RPC; say why conversations are off on stderr and carry on.
            Some((Err(e), _)) if args.db.is_none() => {
                crate::out::note(&format!("webfold mcp: conversations disabled: {e}"));
                None
            }
            Some((Err(e), _)) => return Err(e.into()),
            None => {
                crate::out::note(
                    "webfold mcp: conversations disabled: no data directory (pass --db PATH)",
                );
                None
            }
        }
    };
    let fetcher = webfold_fetch::Fetcher::new(webfold_fetch::FetchOptions::default()).ok();
    let browser = Arc::new(LiveBrowser::new(args.chromium.options()));
    let ui = if args.tools.ui {
        Some(Arc::new(agent_link()?))
    } else {
        None
    };
    let ctx = ToolContext {
        conversations,
        fetcher,
        browser: Some(browser.clone()),
        ui: ui.clone(),
        groups: args.tools,
    };
    let served = runtime.block_on(async move {
        if let Some(conversations) = &ctx.conversations {
            // On PostgreSQL, other processes' refreshes and deletions retire
            // cached pages as they commit (a no-op on SQLite).
            conversations
                .follow_changes(std::time::Duration::from_secs(5))
                .await;
        }
        if let Some(link) = &ui {
            // Shown in the browser's agents list from the start; a daemon
            // that cannot start is reported here and at each UI tool call.
            if let Err(e) = link.announce().await {
                crate::out::note(&format!("webfold mcp: {e}"));
            }
            link.keep_announced();
        }
        let served = webfold_server::mcp::serve_stdio(ctx).await;
        browser.shutdown().await;
        served
    });
    // After a signal, a thread may still be blocked reading stdin; waiting
    // for it would keep the process alive until the client writes again.
    runtime.shutdown_background();
    served?;
    Ok(())
}

/// This process as an agent of the project it runs in (its working
/// directory), named after the program that started it.
fn agent_link() -> anyhow::Result<webfold_chatter_client::client::AgentLink> {
    let home = webfold_chatter_client::home::Home::from_env()?;
    let exe = crate::self_exe().context("cannot find the webfold binary to start the daemon")?;
    let project = std::env::current_dir().context("cannot read the working directory")?;
    Ok(webfold_chatter_client::client::AgentLink::new(
        home,
        exe,
        project,
        parent_name(),
    ))
}

/// The parent program's name ("claude", "cursor", …) as the agents list shows it.
fn parent_name() -> String {
    #[cfg(target_os = "linux")]
    if let Ok(name) = std::fs::read_to_string(format!(
        "/proc/{}/comm",
        std::os::unix::process::parent_id()
    )) {
        let name = name.trim();
        if !name.is_empty() {
            return name.to_string();
        }
    }
    "agent".to_string()
}
