//! `webfold find`: the snapshot nodes matching a text or /regex/, not the whole snapshot.

use std::path::PathBuf;

use clap::Parser;
use webfold_core::snapshot::{self, find::FindOptions};

use super::snapshot::{load_session, page_url};
use crate::flags::Flags;
use crate::input::ViewInput;

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
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<FindOptions>,
    /// Use this snapshot session's refs (see `snapshot --session`); it is not changed
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    /// The page's address, as given to `snapshot --url`
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Print the matches as JSON,
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = args.input.load()?;
    let page = input.page()?;
    let url = page_url(args.url.as_deref(), &input, &args.input.input);
    let session = match &args.session {
        Some(path) => Some(load_session(path)?),
        None => None,
    };
    let options = args.input.ctx(args.view.request);
    let result = snapshot::find(&page, &url, &options, session.as_ref())?;
    if args.json {
        crate::out::line(&serde_json::to_string(&result)?)
    } else {
        crate::out::view(&result.text, result.tokens, Some(options.max_tokens))
    }
}
