use std::path::Path;

use anyhow::{Context, bail};
use clap::Parser;
use webfold_daemon::builtin::BuiltinAgent;
use webfold_daemon::daemon::configured_port;
use webfold_daemon::home::Home;
use webfold_store::{ChatterStore, Database, StoreError};

use super::agent::ModelArgs;

/// Run the UI chatter daemon in the foreground: the browser extension and
/// coding agents (through `webfold mcp --tools …,ui`) meet here.
///
/// With --provider, the side panel also offers a built-in agent, "webfold
/// agent · PROVIDER MODEL", that answers with this model itself: it reads the
/// outline of the page the user picked on and the live HTML of the parts it
/// needs, and proposes DOM changes (shown in the panel, not applied). The API
/// key comes from ANTHROPIC_API_KEY or OPENAI_API_KEY; a server on 127.0.0.1
/// or localhost needs none.
#[derive(Parser)]
#[command(
    mut_arg("provider", |a| a.help("Offer the built-in agent, calling this API [default: none]")),
    after_help = "Examples:\n  webfold daemon\n  webfold daemon --provider openai --base-url http://127.0.0.1:8080/v1 --model local\n  webfold daemon --db postgres://webfold@db.internal:5432/webfold\n\nOne daemon runs per user; `webfold mcp --tools page,ui` starts it when it is not running.\nIt listens on 127.0.0.1 only. `webfold pair` prints what the extension needs; `webfold doctor` checks the setup."
)]
pub struct Args {
    /// Port for the extension's WebSocket [default: $WEBFOLD_DAEMON_PORT, else 3457]
    /// (0 picks a free one)
    #[arg(long)]
    port: Option<u16>,
    /// A postgres://user@host:5432/db URL to share with other daemons: a tab
    /// on one reaches an agent on another [default: each project's .webfold/]
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    // `webfold agent`'s model flags, one definition for both.
    #[command(flatten)]
    model: ModelArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let agent = match args.model.provider {
        Some(p) => Some(BuiltinAgent::new(args.model.config(p.kind())?)?),
        None if args.model.base_url.is_some() || args.model.model.is_some() => {
            bail!("--base-url and --model choose the built-in agent's model: give --provider too")
        }
        None => None,
    };
    let db = match args.db {
        Some(url) => match Database::from_arg(Path::new(&url)) {
            Database::Postgres(url) => Some(url),
            Database::Sqlite(_) => bail!(
                "--db takes a postgres:// URL shared with other daemons; without it each project keeps its history in its own .webfold/"
            ),
        },
        None => None,
    };
    let port = match args.port {
        Some(port) => port,
        None => configured_port()?,
    };
    let home = Home::from_env()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let shared = match db {
        Some(url) => match runtime.block_on(ChatterStore::open(&url)) {
            Ok(store) => Some(store),
            // The store's wording promises a retry, which a daemon that did
            // not start cannot keep.
            Err(StoreError::Unavailable { target, reason }) => bail!(
                "cannot reach PostgreSQL at {target}: {reason}; start it and run the daemon again, or leave out --db"
            ),
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    runtime.block_on(webfold_daemon::daemon::run(
        home.clone(),
        port,
        agent,
        shared,
        webfold_server::shutdown_signal(),
        |e| {
            crate::out::note(&format!(
                "webfold daemon {}: extension at ws://127.0.0.1:{}/ws, agents at {} (pid {}); Ctrl-C stops it",
                e.version,
                e.port,
                e.socket.display(),
                e.pid
            ));
        },
    ))?;
    Ok(())
}
