use anyhow::Context;
use clap::Parser;
use webfold_daemon::daemon::configured_port;
use webfold_daemon::home::Home;

/// Run the UI chatter daemon in the foreground: the browser extension and
/// coding agents (through `webfold mcp --tools …,ui`) meet here.
#[derive(Parser)]
#[command(
    after_help = "One daemon runs per user; `webfold mcp --tools page,ui` starts it when it is not running.\nIt listens on 127.0.0.1 only. `webfold pair` prints what the extension needs; `webfold doctor` checks the setup."
)]
pub struct Args {
    /// Port for the extension's WebSocket [default: $WEBFOLD_DAEMON_PORT, else 3457]
    /// (0 picks a free one)
    #[arg(long)]
    port: Option<u16>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let home = Home::from_env()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(webfold_daemon::daemon::run(
        home.clone(),
        args.port.unwrap_or_else(configured_port),
        webfold_server::shutdown_signal(),
        |e| {
            eprintln!(
                "webfold daemon {}: extension at ws://127.0.0.1:{}/ws, agents at {} (pid {}); Ctrl-C stops it",
                e.version,
                e.port,
                e.socket.display(),
                e.pid
            );
        },
    ))?;
    Ok(())
}
