use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Parser;
use serde::Serialize;
use webfold_chatter_client::client::Connection;
use webfold_daemon::auth::allowed_extensions;
use webfold_daemon::daemon::{Endpoint, configured_port};
use webfold_daemon::home::Home;
use webfold_protocol::agent::GetStatus;

/// Check the UI chatter setup: daemon, port, token, pairing, registry and
/// the coding agents' MCP configuration. Each problem comes with its fix.
#[derive(Parser)]
pub struct Args {
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Check {
    check: &'static str,
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

fn pass(check: &'static str, detail: String) -> Check {
    Check {
        check,
        ok: true,
        detail,
        fix: None,
    }
}

fn fail(check: &'static str, detail: String, fix: &str) -> Check {
    Check {
        check,
        ok: false,
        detail,
        fix: Some(fix.to_string()),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let home = Home::from_env()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut checks = vec![home_check(&home)];
    checks.extend(runtime.block_on(daemon_checks(&home)));
    checks.push(token_check(&home));
    let browsers = super::install_host::set_up_for();
    let how = if browsers.is_empty() {
        "by paste (`webfold install-host` lets the panel pair by itself)".to_string()
    } else {
        format!("by itself in {}", browsers.join(" and "))
    };
    checks.push(pass(
        "pairing",
        format!(
            "{how}; allowed extension origins: {}",
            allowed_extensions(&home)
                .iter()
                .map(|id| format!("chrome-extension://{id}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    checks.push(registry_check(&home));
    checks.extend(agent_configs());
    if args.json {
        crate::out::line(&serde_json::to_string_pretty(&checks)?)?;
    } else {
        let mut text = String::new();
        for c in &checks {
            let mark = if c.ok { "ok " } else { "!! " };
            text += &format!("{mark} {:<10} {}\n", c.check, c.detail);
            if let Some(fix) = &c.fix {
                text += &format!("    fix: {fix}\n");
            }
        }
        crate::out::line(&text)?;
    }
    if checks.iter().any(|c| !c.ok) {
        std::process::exit(1);
    }
    Ok(())
}

fn home_check(home: &Home) -> Check {
    let dir = home.dir();
    match std::fs::metadata(dir) {
        Ok(m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = m.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return fail(
                        "home",
                        format!("{} is readable by others (mode {mode:o})", dir.display()),
                        &format!("chmod 700 {}", dir.display()),
                    );
                }
            }
            let _ = m;
            pass("home", format!("{} (private)", dir.display()))
        }
        Err(_) => fail(
            "home",
            format!("{} does not exist yet", dir.display()),
            "webfold pair (creates it with the token)",
        ),
    }
}

async fn daemon_checks(home: &Home) -> Vec<Check> {
    match Connection::open(&home.socket()).await {
        Ok(conn) => match conn.request(GetStatus {}).await {
            Ok(s) => vec![
                pass(
                    "daemon",
                    format!(
                        "running, pid {}, version {}: {} agent(s), {} tab(s) connected",
                        s.pid, s.version, s.agents, s.tabs
                    ),
                ),
                pass(
                    "port",
                    format!("extension WebSocket on 127.0.0.1:{}", s.port),
                ),
            ],
            Err(e) => vec![fail(
                "daemon",
                format!("answers, but not as expected: {e}"),
                "restart it: stop the running one, then webfold daemon",
            )],
        },
        Err(_) => {
            let stale = Endpoint::read(home)
                .map(|e| format!(" (a stale record names pid {})", e.pid))
                .unwrap_or_default();
            let port = match configured_port() {
                Err(e) => fail(
                    "port",
                    e.to_string(),
                    "unset WEBFOLD_DAEMON_PORT (or set it to a port from 1 to 65535)",
                ),
                Ok(want) => match std::net::TcpListener::bind(("127.0.0.1", want)) {
                    Ok(_) => pass("port", format!("127.0.0.1:{want} is free for the daemon")),
                    Err(_) => fail(
                        "port",
                        format!("127.0.0.1:{want} is taken by another program"),
                        "webfold daemon --port 0 (then webfold pair prints the port for the extension)",
                    ),
                },
            };
            vec![
                fail(
                    "daemon",
                    format!("not running{stale}"),
                    "webfold daemon (or any `webfold mcp --tools page,ui` starts it)",
                ),
                port,
            ]
        }
    }
}

fn token_check(home: &Home) -> Check {
    let path = home.token();
    match std::fs::read_to_string(&path) {
        Ok(t) if t.trim().len() == 64 => pass(
            "token",
            format!("{} (paired extensions present it)", path.display()),
        ),
        Ok(_) => fail(
            "token",
            format!("{} is damaged", path.display()),
            &format!("rm {} && webfold pair", path.display()),
        ),
        Err(_) => fail("token", "no token yet".into(), "webfold pair"),
    }
}

fn registry_check(home: &Home) -> Check {
    let path = home.registry();
    // Written when a tab first picks for a project: before that, its absence
    // is the normal state of a new setup, not a fault.
    if !path.exists() {
        return pass(
            "registry",
            format!(
                "{} not yet created: a tab is written there once it picks or chooses an agent",
                path.display()
            ),
        );
    }
    match webfold_daemon::registry::Registry::load(home) {
        Ok(r) => {
            let here = std::env::current_dir()
                .ok()
                .and_then(|d| std::fs::canonicalize(d).ok());
            let n = here.map(|d| r.sessions_of(&d).len()).unwrap_or(0);
            pass(
                "registry",
                format!("{} ({n} tab(s) of this project)", home.registry().display()),
            )
        }
        Err(e) => fail(
            "registry",
            e.to_string(),
            &format!("mv {0} {0}.bad", home.registry().display()),
        ),
    }
}

/// Where Claude Code and Cursor keep MCP servers, and whether webfold's UI
/// tools are among them.
fn agent_configs() -> Vec<Check> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    let found = |files: &[PathBuf]| files.iter().find_map(|f| ui_server_in(f));
    let claude = [cwd.join(".mcp.json"), home.join(".claude.json")];
    let cursor = [
        cwd.join(".cursor").join("mcp.json"),
        home.join(".cursor").join("mcp.json"),
    ];
    let check = |name: &'static str, files: &[PathBuf], fix: &str| match found(files) {
        Some((path, true)) => pass(
            name,
            format!("webfold's UI tools are configured in {}", path.display()),
        ),
        Some((path, false)) => fail(
            name,
            format!("{} runs webfold mcp without the ui tools", path.display()),
            fix,
        ),
        None => fail(name, "webfold's MCP server is not configured".into(), fix),
    };
    let mut checks = vec![
        check(
            "claude",
            &claude,
            "claude mcp add webfold -- webfold mcp --tools page,ui",
        ),
        check(
            "cursor",
            &cursor,
            r#"add to .cursor/mcp.json: {"mcpServers": {"webfold": {"command": "webfold", "args": ["mcp", "--tools", "page,ui"]}}}"#,
        ),
    ];
    // One configured agent is enough: the other is then only a suggestion.
    if checks.iter().any(|c| c.ok) {
        for c in checks.iter_mut().filter(|c| !c.ok) {
            c.ok = true;
            c.detail = format!("{} (optional)", c.detail);
        }
    }
    checks
}

/// `(file, has ui)` when `file` configures a webfold MCP server.
fn ui_server_in(file: &Path) -> Option<(PathBuf, bool)> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    let mut servers: Vec<&serde_json::Value> = Vec::new();
    if let Some(s) = v["mcpServers"].as_object() {
        servers.extend(s.values());
    }
    // Claude Code keeps per-project servers under "projects".
    if let Some(projects) = v["projects"].as_object() {
        for p in projects.values() {
            if let Some(s) = p["mcpServers"].as_object() {
                servers.extend(s.values());
            }
        }
    }
    let webfold: Vec<String> = servers
        .into_iter()
        .filter(|s| {
            s["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("webfold"))
        })
        .map(|s| s["args"].to_string())
        .collect();
    if webfold.is_empty() {
        return None;
    }
    Some((file.to_owned(), webfold.iter().any(|a| a.contains("ui"))))
}
