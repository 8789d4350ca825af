//! `webfold chunk`: the HTML of one part of a page, by selector or node id (seed 000).

use clap::{ArgGroup, Parser};
use webfold_core::NodeId;
use webfold_core::chunk::{self, ChunkOptions, ChunkTarget};
use webfold_core::tokens::Encoding;

use crate::input::Input;

/// Print the outerHTML of an element picked from an outline.
///
/// --selector takes a CSS selector (the first match, or every match with
/// --all); --id takes a node id: the `@N` of an outline line, or `nodeId` in
/// `outline --json` (and the CNT view's ids), valid for the same page. Over
/// --max-tokens, parts are folded into comments that name the selector that
/// unfolds them, e.g. <!-- folded ul.results (48 children, 52.1 KB): chunk
/// --selector "main > ul.results" -->. A miss suggests nearby selectors; both
/// it and a bad selector exit with status 1.
#[derive(Parser)]
#[command(
    group(ArgGroup::new("target").required(true).args(["selector", "id", "aria_ref"])),
    after_help = "Examples:
  webfold chunk page.html --selector 'section.hero'
  webfold chunk page.html --selector 'li.product' --all --max-tokens 2000
  webfold chunk page.html --id 187 --json
  webfold chunk page.html --ref e12   # a ref from `webfold snapshot` or `find`
  webfold outline page.html   # find selectors and @ids first"
)]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    /// CSS selector of the element
    #[arg(long, value_name = "SEL")]
    selector: Option<String>,
    /// Node id from an outline (`@N`, `nodeId`) or CNT
    #[arg(long, value_name = "ID")]
    id: Option<u32>,
    /// Ref from `webfold snapshot` or `find` (e.g. e12); with --session, as that session numbers them
    #[arg(long = "ref", value_name = "REF")]
    aria_ref: Option<String>,
    /// The snapshot session the ref comes from (see `snapshot --session`); it is not changed
    #[arg(long, value_name = "FILE", requires = "aria_ref")]
    session: Option<std::path::PathBuf>,
    /// The page's address, as given to `snapshot --url` (with --ref)
    #[arg(long, value_name = "URL", requires = "aria_ref")]
    url: Option<String>,
    /// Every match, each under a header with its unique selector
    #[arg(long)]
    all: bool,
    /// Token budget for the whole output; larger parts are folded into placeholders
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_tokens: Option<u64>,
    /// Tokenizer vocabulary for counting
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    /// Print {matches, tokens, chunks: [{selector, nodeId, html, tokens, folded}], omitted} as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load_with(&args.input, &args.browser)?;
    let page = input.page();
    let target = match (args.selector, args.id, args.aria_ref) {
        (Some(s), _, _) => ChunkTarget::Selector(s),
        (None, Some(id), _) => ChunkTarget::Id(NodeId(id)),
        // A ref names the element its snapshot line stands for.
        (None, None, Some(r)) => {
            let url = super::snapshot::page_url(args.url.as_deref(), &input, &args.input);
            let session = args
                .session
                .as_deref()
                .map(super::snapshot::load_session)
                .transpose()?;
            ChunkTarget::Id(webfold_core::snapshot::resolve_ref(
                &page,
                &r,
                &url,
                session.as_ref(),
            )?)
        }
        // clap's required group rules this out.
        (None, None, None) => anyhow::bail!("give --selector SEL, --id ID or --ref REF"),
    };
    let opts = ChunkOptions {
        all: args.all,
        max_tokens: args.max_tokens.map(|n| n as usize),
        encoding: args.encoding,
    };
    let out = chunk::chunk(&page, &target, &opts)?;
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
    } else if out.text.ends_with('\n') {
        print!("{}", out.text);
    } else {
        println!("{}", out.text);
    }
    Ok(())
}
