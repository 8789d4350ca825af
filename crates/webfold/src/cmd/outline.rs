//! `webfold outline`: the page's element tree, small enough to read first (seed 000).

use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use webfold_core::outline::{self, OutlineOptions};
use webfold_core::tokens::Encoding;

use crate::input::Input;

/// Print the page's element tree with selector labels and text previews.
///
/// Lines are `tag#id` or `tag.class` labels; `@N` marks a label that is not
/// unique on the page, and N is the node id `chunk --id N` takes. Repeated
/// siblings fold into one line (`li.product ×48`), wrapper chains share a
/// line (`div.a > div.b > ul`), and what a person does not see (head,
/// scripts, styles, hidden elements) is left out. With --max-tokens, deeper
/// and wider parts are cut first and the last line says how to unfold them.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold outline page.html
  webfold outline page.html --max-depth 6 --exclude footer --exclude '.ads'
  webfold outline page.html --max-tokens 500 --json
  webfold chunk page.html --selector 'section.hero'   # then unfold a part")]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    /// Levels of lines below the root (wrapper chains count as one level; at most 64)
    #[arg(long, default_value_t = outline::DEFAULT_MAX_DEPTH, value_name = "N")]
    max_depth: usize,
    /// Leave out elements matching this CSS selector, with their subtrees (repeatable)
    #[arg(long, value_name = "SEL")]
    exclude: Vec<String>,
    /// Token budget for the outline text
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_tokens: Option<u64>,
    /// Tokenizer vocabulary for counting
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    /// Print the structure as JSON (root, totalElements, maxDepth, timestamp, tokens, text, …)
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let page = Input::load_with(&args.input, &args.browser)?.page();
    let opts = OutlineOptions {
        max_depth: args.max_depth,
        exclude: args.exclude,
        max_tokens: args.max_tokens.map(|n| n as usize),
        encoding: args.encoding,
    };
    let mut out = outline::outline(&page, &opts)?;
    if args.json {
        out.timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64);
        println!("{}", serde_json::to_string(&out)?);
    } else {
        print!("{}", out.text);
    }
    Ok(())
}
