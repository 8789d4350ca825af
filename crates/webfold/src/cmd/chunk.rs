//! `webfold chunk`: the HTML of one part of a page, by selector, node id or ref.

use clap::Parser;
use webfold_core::chunk::{self, ChunkOptions};

use crate::flags::Flags;
use crate::input::ViewInput;

/// Print the outerHTML of an element picked from an outline, snapshot or CNT.
///
/// --selector takes a CSS selector (the first match, or every match with
/// --all); --id takes a node id: the `@N` of an outline line, `nodeId` in
/// `outline --json`, or a CNT id, valid for the same page; --ref takes a
/// snapshot ref. Over --max-tokens, parts are folded into comments that say
/// how to unfold them, e.g. <!-- folded ul.results (48 children, 52.1 KB):
/// chunk --selector 'main > ul.results' -->. A miss suggests nearby
/// selectors; both it and a bad selector exit with status 1.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold chunk page.html --selector 'section.hero'
  webfold chunk page.html --selector 'li.product' --all --max-tokens 2000
  webfold chunk page.html --id 187 --json
  webfold chunk page.html --ref e12   # a ref from `webfold snapshot` or `find`
  webfold outline page.html   # find selectors and @ids first")]
pub struct Args {
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<ChunkOptions>,
    /// The snapshot session a ref comes from (see `snapshot --session`); it is not changed
    #[arg(long, value_name = "FILE")]
    session: Option<std::path::PathBuf>,
    /// The page's address, as given to `snapshot --url` (with --ref)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Print {matches, tokens, chunks: [{selector, nodeId, html, tokens, folded}], omitted} as JSON,
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = args.input.load()?;
    let page = input.page()?;
    let opts = args.input.ctx(args.view.request);
    let url = super::snapshot::page_url(args.url.as_deref(), &input, &args.input.input);
    let session = args
        .session
        .as_deref()
        .map(super::snapshot::load_session)
        .transpose()?;
    let out = chunk::view(&page, &opts, &url, session.as_ref())?;
    if args.json {
        crate::out::line(&serde_json::to_string(&out)?)
    } else {
        crate::out::view(&out.text, out.tokens, opts.max_tokens)
    }
}
