//! `webfold cnt`: the compressed node tree, budgeted.

use clap::Parser;
use webfold_core::cnt::{Cnt, ViewOptions};

use crate::flags::Flags;
use crate::input::ViewInput;

/// Print the page as a compressed node tree (CNT) that fits a token budget.
///
/// One node per line: `ID TAGS[*] [attr=value]... [text]`, indented one space
/// per level; `*` marks clickable nodes, and lines without an id are text.
/// An element that took in the loose words around it quotes its own words
/// among them (`Read the "docs"`).
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
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<ViewOptions>,
    /// Print the same view as a standalone HTML page, compressed nodes outlined
    #[arg(long, conflicts_with = "json")]
    html: bool,
    /// Print the same view as JSON: nodes {id, tag, text, attrs, clickable, absorbed, children}
    /// with compressed {id, hidden} where children are hidden (compressed_after: a second run),
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let page = args.input.load()?.page()?;
    let cnt = Cnt::build(&page);
    let opts = args.input.ctx(args.view.request);
    let view = cnt.view(&opts)?;
    if args.json {
        crate::out::line(&view.to_json())
    } else if args.html {
        crate::out::line(&view.to_html())
    } else {
        crate::out::view(&view.text, view.tokens, Some(opts.max_tokens))
    }
}
