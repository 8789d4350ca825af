//! `webfold cnt`: the compressed node tree (seed 003), budgeted.

use clap::Parser;
use webfold_core::cnt::{Cnt, CntId, DEFAULT_MAX_TOKENS, ViewOptions};
use webfold_core::tokens::Encoding;

use crate::input::Input;

/// Print the page as a compressed node tree (CNT) that fits a token budget.
///
/// One node per line: `ID TAGS[*] [attr=value]... [text]`, indented one space
/// per level; `*` marks clickable nodes, and lines without an id are text.
/// Nodes with many children show their first and last ones around a marker
/// `… N hidden [P.F-L]`; long texts end in `…+N [ID]`. The budget goes to the
/// page's main content first, then the rest, then navigation, footers and
/// other furniture. Pass either handle to --expand to see what it hides. Ids
/// are the same node ids `webfold chunk --id` takes, so any node's original
/// HTML is one command away.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold cnt page.html --max-tokens 2000
  webfold cnt page.html --expand 12.3-97      # the children a marker hides
  webfold cnt page.html --expand 61           # one node's subtree, text in full if it fits
  webfold chunk page.html --id 61             # the original HTML behind node 61
  webfold cnt page.html --html > cnt.html     # look at the tree in a browser")]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    /// Token budget for the tree as an LLM reads it (the text format)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TOKENS)]
    max_tokens: usize,
    /// Show what a marker hides (P.F-L) or one node's subtree (ID), compressed the same way
    #[arg(long, value_name = "ID")]
    expand: Option<CntId>,
    /// Print the same view as a standalone HTML page, compressed nodes outlined
    #[arg(long, conflicts_with = "json")]
    html: bool,
    /// Print the same view as JSON: nodes {id, tag, text, attrs, clickable, absorbed, children}
    /// with compressed {id, hidden} where children are hidden (compressed_after: a second run)
    #[arg(long)]
    json: bool,
    /// Tokenizer vocabulary for counting
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let page = Input::load_with(&args.input, &args.browser)?.page();
    let cnt = Cnt::build(&page);
    let view = cnt.view(&ViewOptions {
        max_tokens: args.max_tokens,
        encoding: args.encoding,
        expand: args.expand,
    })?;
    if args.json {
        println!("{}", view.to_json());
    } else if args.html {
        print!("{}", view.to_html());
    } else {
        print!("{}", view.text);
    }
    Ok(())
}
