//! The `webfold` binary: a thin adapter from the command line to the core.
//!
//! Each subcommand lives in `cmd/<name>.rs` with its `Args` and `run`. Exit
//! codes follow the CLI contract: 0 success, 1 user error (one-line reason on
//! stderr), 2 usage error (clap's own).

// Output goes through `out`, which a closed pipe cannot make panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cmd;
mod flags;
mod input;
mod out;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "webfold",
    version,
    about = "Fold a web page into a small, token-budgeted view an LLM agent can read and act on",
    long_about = None,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Tokens(cmd::tokens::Args),
    Cnt(cmd::cnt::Args),
    Outline(cmd::outline::Args),
    Chunk(cmd::chunk::Args),
    Serve(cmd::serve::Args),
    Mcp(cmd::mcp::Args),
    GetChunk(cmd::get_chunk::Args),
    Snapshot(cmd::snapshot::Args),
    Find(cmd::find::Args),
    Markdown(cmd::markdown::Args),
    Fetch(cmd::fetch::Args),
    Daemon(cmd::daemon::Args),
    Pair(cmd::pair::Args),
    Ui(cmd::ui::Args),
    Doctor(cmd::doctor::Args),
    Agent(cmd::agent::Args),
}

fn main() {
    let cli = parse_args();
    let result = match cli.command {
        Command::Tokens(args) => cmd::tokens::run(args),
        Command::Cnt(args) => cmd::cnt::run(args),
        Command::Outline(args) => cmd::outline::run(args),
        Command::Chunk(args) => cmd::chunk::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::GetChunk(args) => cmd::get_chunk::run(args),
        Command::Snapshot(args) => cmd::snapshot::run(args),
        Command::Find(args) => cmd::find::run(args),
        Command::Markdown(args) => cmd::markdown::run(args),
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Daemon(args) => cmd::daemon::run(args),
        Command::Pair(args) => cmd::pair::run(args),
        Command::Ui(args) => cmd::ui::run(args),
        Command::Doctor(args) => cmd::doctor::run(args),
        Command::Agent(args) => cmd::agent::run(args),
    };
    if let Err(err) = result {
        out::note(&format!("error: {}", one_line(&err)));
        if let Some(more) = detail_lines(&err) {
            out::note(&more);
        }
        std::process::exit(1);
    }
}

/// The command line, or exit with clap's usage error. A view's options are
/// read after clap has matched them (by the core's parser, `flags`), so an
/// error found there is shown with the subcommand's usage, as clap shows its
/// own.
fn parse_args() -> Cli {
    let mut cmd = Cli::command();
    let matches = cmd
        .try_get_matches_from_mut(std::env::args_os())
        .unwrap_or_else(|e| e.exit());
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| {
        let sub = matches
            .subcommand_name()
            .and_then(|name| cmd.find_subcommand_mut(name));
        match sub {
            Some(sub) => e.format(sub).exit(),
            None => e.format(&mut cmd).exit(),
        }
    })
}

/// Lines shown under the one-line reason when they help fix the input: an
/// invalid selector again, with a caret under the column.
fn detail_lines(err: &anyhow::Error) -> Option<String> {
    let core = err
        .chain()
        .find_map(|c| c.downcast_ref::<webfold_core::Error>())?;
    if !matches!(core, webfold_core::Error::InvalidSelector { .. }) {
        return None;
    }
    let full = format!("{core:#}");
    full.split_once('\n').map(|(_, rest)| rest.to_string())
}

/// The error chain on one line: "what failed: because …".
fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}

#[cfg(test)]
mod contract_tests {
    //! Every hint a view writes, spelled for the command line, is a command
    //! line this binary accepts.
    use clap::CommandFactory;
    use webfold_core::contract::{Surface, ViewName};

    use super::Cli;

    /// Splits like a POSIX shell for what hints write: words and '…' quotes.
    fn words(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        let mut any = false;
        for c in s.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    any = true;
                }
                ' ' if !quoted => {
                    if any || !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    any = false;
                }
                c => cur.push(c),
            }
        }
        if any || !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    #[test]
    fn every_hint_is_a_valid_command_line() {
        for view in ViewName::ALL {
            for hint in view.hints() {
                let spelled = hint.spell(Surface::Cli);
                let mut argv = vec!["webfold".to_string()];
                let mut w = words(&spelled);
                let named = hint.view().is_some();
                let sub = if named {
                    w.remove(0)
                } else {
                    view.on(Surface::Cli).to_string()
                };
                argv.push(sub.clone());
                argv.push("page.html".into());
                if sub == "find" && w.first().is_none_or(|x| x != "TEXT") {
                    argv.push("TEXT".into());
                }
                let mut i = 0;
                while i < w.len() {
                    argv.push(w[i].clone());
                    // A bare limit flag asks for a larger value: give it one.
                    let takes_value = w[i].starts_with("--max-") || w[i] == "--lines";
                    if takes_value && w.get(i + 1).is_none_or(|n| n.starts_with("--")) {
                        argv.push("20000".into());
                    }
                    i += 1;
                }
                let r = Cli::command().try_get_matches_from(&argv);
                assert!(
                    r.is_ok(),
                    "{view:?} writes `{spelled}`: {argv:?}: {:?}",
                    r.err()
                );
            }
        }
    }
}
