use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use webfold_server::live::LiveBrowser;
use webfold_server::mcp::ToolContext;
use webfold_server::service::{Conversations, Freshness};
use webfold_store::{SqliteOptions, SqliteStore};

/// Serve webfold's MCP tools over standard input/output (for Claude Code, Cursor, …).
#[derive(Parser)]
#[command(
    after_help = "Example (Claude Code):\n  claude mcp add webfold -- webfold mcp\n\nConversations created through `webfold serve` are readable here when both use the same --db.\nThe browser_* tools start headless Chromium on their first call (or attach with --cdp-url) and stop it when the server exits."
)]
pub struct Args {
    /// SQLite database shared with `webfold serve` [default: $XDG_DATA_HOME/webfold/webfold.db]
    #[arg(long)]
    db: Option<PathBuf>,
    /// Do not open a database: tools take url or html only
    #[arg(long, conflicts_with = "db")]
    no_db: bool,
    /// Memory for parsed pages, in MB
    #[arg(long, default_value_t = 256)]
    cache_mb: usize,
    /// The browser tools' Chromium
    #[command(flatten)]
    chromium: crate::input::ChromiumArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let conversations = if args.no_db {
        None
    } else {
        let path = args.db.clone().or_else(webfold_store::default_db_path);
        match path.map(|p| (SqliteStore::open(&p, SqliteOptions::default()), p)) {
            Some((Ok(store), _)) => Some(Arc::new(Conversations::new(
                Arc::new(store),
                args.cache_mb.max(1) * 1024 * 1024,
                Freshness::Shared,
            ))),
            // stdout belongs to JSON-RPC; say why conversations are off on stderr and carry on.
            Some((Err(e), _)) if args.db.is_none() => {
                eprintln!("webfold mcp: conversations disabled: {e}");
                None
            }
            Some((Err(e), _)) => return Err(e.into()),
            None => {
                eprintln!(
                    "webfold mcp: conversations disabled: no data directory (pass --db PATH)"
                );
                None
            }
        }
    };
    let fetcher = webfold_fetch::Fetcher::new(webfold_fetch::FetchOptions::default()).ok();
    let browser = Arc::new(LiveBrowser::new(args.chromium.options()));
    let ctx = ToolContext {
        conversations,
        fetcher,
        browser: Some(browser.clone()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async move {
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
