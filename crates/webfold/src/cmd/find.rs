//! `webfold find`: the snapshot nodes matching a text or /regex/, not the whole snapshot.

use std::path::PathBuf;

use clap::Parser;
use webfold_core::snapshot::{self, find::FindOptions};
use webfold_core::tokens::Encoding;

use super::snapshot::{ModeArg, load_session, page_url, print_line};
use crate::input::Input;

/// Find elements in the page's accessibility snapshot by text or /regex/.
///
/// Matches names, values, text and /url or /placeholder props (plain text:
/// case-insensitive). Each match prints its ancestor path and its first few
/// snapshot lines, with refs that `snapshot --ref` and `chunk --ref` accept.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold find page.html 'sign in'
  webfold find page.html '/^(next|older)\\b/i' --lines 2
  webfold find page.html checkout --session s.json --json")]
pub struct Args {
    /// File path, file URL, or - for standard input
    input: String,
    /// Text to look for, or /regex/ (/regex/i for case-insensitive)
    query: String,
    /// Snapshot format
    #[arg(long, value_enum, default_value = "ai")]
    mode: ModeArg,
    /// Most matches to print
    #[arg(long, default_value_t = snapshot::find::DEFAULT_MAX_MATCHES)]
    max_matches: usize,
    /// Snapshot lines to print per match
    #[arg(long, default_value_t = snapshot::find::DEFAULT_LINES_PER_MATCH)]
    lines: usize,
    /// Token budget for the whole output (1000–50000)
    #[arg(long, default_value_t = snapshot::DEFAULT_MAX_TOKENS)]
    max_tokens: usize,
    /// Use this snapshot session's refs (see `snapshot --session`); it is not changed
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    /// The page's address, as given to `snapshot --url`
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Tokenizer vocabulary
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    /// Print the matches as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load_with(&args.input, &args.browser)?;
    let page = input.page();
    let url = page_url(args.url.as_deref(), &input, &args.input);
    let session = match &args.session {
        Some(path) => Some(load_session(path)?),
        None => None,
    };
    let options = FindOptions {
        max_matches: args.max_matches.max(1),
        lines_per_match: args.lines.max(1),
        max_tokens: args
            .max_tokens
            .clamp(snapshot::MAX_TOKENS_RANGE.0, snapshot::MAX_TOKENS_RANGE.1),
        encoding: args.encoding,
    };
    let result = snapshot::find(
        &page,
        &url,
        &args.query,
        args.mode.into(),
        &options,
        session.as_ref(),
    )?;
    if args.json {
        print_line(&serde_json::to_string(&result)?)
    } else {
        print_line(&result.text)
    }
}
