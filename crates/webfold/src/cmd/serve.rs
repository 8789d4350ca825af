use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Parser;
use webfold_live::LiveBrowser;
use webfold_server::mcp::ToolContext;
use webfold_server::security::{Policy, Token, loopback_hosts};
use webfold_server::service::{Conversations, Freshness};
use webfold_store::Database;

/// Run the bridge HTTP API and MCP over streamable HTTP at /mcp.
#[derive(Parser)]
#[command(
    after_help = "Examples:\n  webfold serve\n  webfold serve --port 4000 --db ./webfold.db --allow-origin chrome-extension://<extension-id>\n  webfold serve --host 0.0.0.0 --token-file ~/.config/webfold/token --allow-host myhost:3456"
)]
pub struct Args {
    /// Port to listen on (0 picks a free one)
    #[arg(long, default_value_t = webfold_server::DEFAULT_PORT)]
    port: u16,
    /// Address to bind. Anything but loopback requires --token-file
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// SQLite database file, or a postgres://user@host:5432/db URL that several instances share [default: $XDG_DATA_HOME/webfold/webfold.db]
    #[arg(long)]
    db: Option<PathBuf>,
    /// Require `Authorization: Bearer <token>`; the file (mode 0600) is created with a random token if missing
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// A browser Origin allowed to call the server, e.g. chrome-extension://<id> (repeatable)
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// An extra Host header value to accept, as host:port (repeatable)
    #[arg(long = "allow-host", value_name = "HOST:PORT")]
    allow_hosts: Vec<String>,
    /// Largest request body, in MB
    #[arg(long, default_value_t = 32)]
    max_body_mb: usize,
    /// Memory for parsed pages, in MB
    #[arg(long, default_value_t = 512)]
    cache_mb: usize,
    /// Print the listening address as JSON {"url","port","db"} instead of a sentence
    #[arg(long)]
    json: bool,
    /// The MCP browser tools' Chromium (started on their first call, stopped on exit)
    #[command(flatten)]
    chromium: crate::input::ChromiumArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let loopback = args.host.is_loopback();
    if !loopback && args.token_file.is_none() {
        bail!(
            "binding {} exposes the server beyond this machine; pass --token-file PATH so every request needs a token (or keep the default 127.0.0.1)",
            args.host
        );
    }
    let token = match &args.token_file {
        Some(path) => {
            let (token, created) = Token::read_or_create(path).map_err(anyhow::Error::msg)?;
            if created {
                crate::out::note(&format!(
                    "created a new token in {} (mode 0600)",
                    path.display()
                ));
            }
            Some(token)
        }
        None => None,
    };
    let db = match &args.db {
        Some(p) => Database::from_arg(p),
        None => Database::Sqlite(webfold_store::default_db_path().context(
            "cannot find a data directory (set HOME or XDG_DATA_HOME, or pass --db PATH)",
        )?),
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let store = webfold_store::open(&db).await?;
        // On PostgreSQL other instances write too: each lookup asks the store
        // for the latest version, so no instance serves a page older than a
        // refresh another one acknowledged.
        let freshness = match &db {
            Database::Sqlite(_) => Freshness::Exclusive,
            Database::Postgres(_) => Freshness::Shared,
        };
        let addr = SocketAddr::new(args.host, args.port);
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
            format!("cannot listen on {addr}: is another server using the port? pass --port to choose another")
        })?;
        let port = listener.local_addr()?.port();

        let mut allowed_hosts = loopback_hosts(port);
        if !loopback && !args.host.is_unspecified() {
            allowed_hosts.push(match args.host {
                IpAddr::V4(ip) => format!("{ip}:{port}"),
                IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            });
        }
        allowed_hosts.extend(args.allow_hosts.iter().map(|h| h.to_ascii_lowercase()));
        let policy = Policy {
            allowed_hosts,
            allowed_origins: args.allow_origins.clone(),
            token,
            max_body_bytes: args.max_body_mb.max(1) * 1024 * 1024,
        };

        let conversations = Arc::new(Conversations::new(
            store,
            args.cache_mb.max(1) * 1024 * 1024,
            freshness,
        ));
        // Other instances' refreshes and deletions retire this one's cached
        // copies as they commit (PostgreSQL's LISTEN/NOTIFY).
        if matches!(db, Database::Postgres(_))
            && !conversations.follow_changes(std::time::Duration::from_secs(5)).await
        {
            crate::out::note(&format!(
                "warning: not yet listening for other instances' changes on {db}; pages are still checked against the database on every read, and listening starts when PostgreSQL answers"
            ));
        }
        let fetcher = webfold_fetch::Fetcher::new(webfold_fetch::FetchOptions::default()).ok();
        let browser = Arc::new(LiveBrowser::new(args.chromium.options()));
        let tools = ToolContext { conversations: Some(conversations.clone()), fetcher, browser: Some(browser.clone()), ..ToolContext::default() };
        let app = webfold_server::app(conversations, tools, policy);

        let shown_host = if loopback { "127.0.0.1".to_string() } else { args.host.to_string() };
        let url = format!("http://{}:{port}", if args.host == IpAddr::V4(Ipv4Addr::LOCALHOST) { "127.0.0.1" } else { &shown_host });
        if !loopback {
            crate::out::note(&format!(
                "warning: listening on {} — reachable from other machines; every request needs the bearer token",
                args.host
            ));
        }
        if args.json {
            crate::out::line(&serde_json::json!({ "url": url, "port": port, "db": db.to_string(), "mcp": format!("{url}/mcp") }).to_string())?;
        } else {
            crate::out::line(&format!("webfold serving on {url} (bridge API; MCP at {url}/mcp); database {db}"))?;
        }
        let served = webfold_server::serve(listener, app).await;
        browser.shutdown().await;
        served.context("server failed")
    })
}
