//! The `webfold` command: a thin adapter from the command line to the core.
//! A library so that the Python package runs the same command (`webfold` on
//! PATH after `pip install`); `main.rs` only calls [`main_with`].
//!
//! Each subcommand lives in `cmd/<name>.rs` with its `Args` and `run`. Exit
//! codes follow the CLI contract: 0 success, 1 user error (one-line reason on
//! stderr), 2 usage error (clap's own).

// Output goes through `out`, which a closed pipe cannot make panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// The allocator of the command and of both packages, which link this
/// library. A page's parse and views make many small allocations: on 92
/// corpus pages mimalloc took parse + main-content Markdown from 0.233 to
/// 0.181 s in Rust, and in the Python package from 0.58 to 0.24 s. It also
/// keeps webfold's heap apart from the host's: on the system allocator, the
/// same calls took 0.73 s after another library's run had left Python's
/// heap full of freed objects; with mimalloc, 0.24 s either way.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Serve(cmd::serve::Args),
    Mcp(cmd::mcp::Args),
    GetChunk(cmd::get_chunk::Args),
    Fetch(cmd::fetch::Args),
    Daemon(cmd::daemon::Args),
    Pair(cmd::pair::Args),
    Extension(cmd::extension::Args),
    InstallHost(cmd::install_host::Args),
    Ui(cmd::ui::Args),
    Doctor(cmd::doctor::Args),
    Agent(cmd::agent::Args),
    Batch(cmd::batch::Args),
}

/// Runs the command `args` names (the program's name first), then exits
/// with its status.
pub fn main_with(args: Vec<std::ffi::OsString>) -> ! {
    // Started by the browser for its extension (`webfold install-host`):
    // no subcommand, the caller's origin instead.
    if let Some(origin) = cmd::native_host::caller(args.get(1).map(|a| a.as_os_str())) {
        if let Err(err) = cmd::native_host::serve(&origin) {
            out::note(&format!("error: {}", one_line(&err)));
            std::process::exit(1);
        }
        std::process::exit(0);
    }
    let result = match parse_args(args) {
        Parsed::View(view, call, matches) => cmd::view::run(view, call, &matches),
        Parsed::Other(cli) => run(cli.command),
    };
    if let Err(err) = result {
        out::note(&format!("error: {}", one_line(&err)));
        if let Some(more) = detail_lines(&err) {
            out::note(&more);
        }
        std::process::exit(1);
    }
    std::process::exit(0);
}

/// This program, as other processes start it (the daemon, the browser's
/// native host): `WEBFOLD_EXE` when a launcher set it (the Python package's
/// `webfold` script), else this executable.
pub fn self_exe() -> std::io::Result<std::path::PathBuf> {
    match std::env::var_os("WEBFOLD_EXE").filter(|p| !p.is_empty()) {
        Some(p) => Ok(std::path::PathBuf::from(p)),
        None => std::env::current_exe(),
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Tokens(args) => cmd::tokens::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::GetChunk(args) => cmd::get_chunk::run(args),
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Daemon(args) => cmd::daemon::run(args),
        Command::Pair(args) => cmd::pair::run(args),
        Command::Extension(args) => cmd::extension::run(args),
        Command::InstallHost(args) => cmd::install_host::run(args),
        Command::Ui(args) => cmd::ui::run(args),
        Command::Doctor(args) => cmd::doctor::run(args),
        Command::Agent(args) => cmd::agent::run(args),
        Command::Batch(args) => cmd::batch::run(args),
    }
}

/// What the command line asks for: a view (from the core's registry) or
/// another command.
enum Parsed {
    View(
        &'static dyn webfold_core::view::AnyView,
        webfold_core::view::Call,
        clap::ArgMatches,
    ),
    Other(Cli),
}

/// The whole command: the commands declared here and a subcommand per view.
fn command() -> clap::Command {
    Cli::command().subcommands(cmd::view::commands())
}

/// The command line, or exit with clap's usage error. A view's options are
/// read after clap has matched them (by the core's parser, `flags`), so an
/// error found there is shown with the subcommand's usage, as clap shows its
/// own.
fn parse_args(args: Vec<std::ffi::OsString>) -> Parsed {
    let mut cmd = command();
    let matches = cmd
        .try_get_matches_from_mut(args)
        .unwrap_or_else(|e| e.exit());
    let with_usage = |e: clap::Error, cmd: &mut clap::Command| -> ! {
        let sub = matches
            .subcommand_name()
            .and_then(|name| cmd.find_subcommand_mut(name));
        match sub {
            Some(sub) => e.format(sub).exit(),
            None => e.format(cmd).exit(),
        }
    };
    if let Some((name, sub)) = matches.subcommand()
        && let Some(view) = cmd::view::named(name)
    {
        return match cmd::view::read(view, sub) {
            Ok(call) => Parsed::View(view, call, sub.clone()),
            Err(e) => with_usage(e, &mut cmd),
        };
    }
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => Parsed::Other(cli),
        Err(e) => with_usage(e, &mut cmd),
    }
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
    use webfold_core::contract::Surface;
    use webfold_core::view::VIEWS;

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
        for view in VIEWS {
            for hint in view.hints() {
                let spelled = hint.spell(Surface::Cli);
                let mut argv = vec!["webfold".to_string()];
                let mut w = words(&spelled);
                let named = hint.view().is_some();
                let sub = if named {
                    w.remove(0)
                } else {
                    view.name().on(Surface::Cli).to_string()
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
                let r = super::command().try_get_matches_from(&argv);
                assert!(
                    r.is_ok(),
                    "{} writes `{spelled}`: {argv:?}: {:?}",
                    view.name(),
                    r.err()
                );
            }
        }
    }
}
