//! `webfold outline`: the page's element tree, small enough to read first.

use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use webfold_core::outline::{self, OutlineOptions};

use crate::flags::Flags;
use crate::input::ViewInput;

/// Print the page's element tree with selector labels and text previews.
///
/// Lines are `tag#id` or `tag.class` labels; `@N` marks a label that is not
/// unique on the page, and N is the node id `chunk --id N` takes. Repeated
/// siblings fold into one line (`li.product ×48`), wrapper chains share a
/// line (`div.a > div.b > ul`), and what a person does not see (head,
/// scripts, styles, hidden elements) is left out. Over --max-tokens, deeper
/// and wider parts are cut first and the last line says how to unfold them.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold outline page.html
  webfold outline page.html --max-depth 6 --exclude footer --exclude '.ads'
  webfold outline page.html --max-tokens 500 --json
  webfold chunk page.html --selector 'section.hero'   # then unfold a part")]
pub struct Args {
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<OutlineOptions>,
    /// Print the structure as JSON (root, totalElements, maxDepth, timestamp, tokens, text, …),
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let page = args.input.load()?.page()?;
    let opts = args.input.ctx(args.view.request);
    let mut out = outline::outline(&page, &opts)?;
    if args.json {
        out.timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64);
        crate::out::line(&serde_json::to_string(&out)?)
    } else {
        crate::out::view(&out.text, out.tokens, opts.max_tokens)
    }
}
