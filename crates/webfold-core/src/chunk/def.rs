//! The chunk as a view every surface runs.

use serde_json::json;

use super::{ChunkOptions, Chunks};
use crate::Error;
use crate::contract::{Ctx, Handle, Hint, Limit, ViewName};
use crate::view::{Envelope, Input, SessionUse, View};

pub const NAME: ViewName = ViewName::new("chunk", "get_html_chunk");

pub struct ChunkView;

impl View for ChunkView {
    type Request = ChunkOptions;
    type Output = Chunks;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "Print the outerHTML of an element picked from an outline, snapshot or CNT";
    const HELP: &'static str = "\
--selector takes a CSS selector (the first match, or every match with
--all); --id takes a node id: the `@N` of an outline line, `nodeId` in
`outline --json`, or a CNT id, valid for the same page; --ref takes a
snapshot ref. Over --max-tokens, parts are folded into comments that say
how to unfold them, e.g. <!-- folded ul.results (48 children, 52.1 KB):
chunk --selector 'main > ul.results' -->. A miss suggests nearby
selectors; both it and a bad selector exit with status 1.";
    const EXAMPLES: &'static str = "\
webfold chunk page.html --selector 'section.hero'
webfold chunk page.html --selector 'li.product' --all --max-tokens 2000
webfold chunk page.html --id 187 --json
webfold chunk page.html --ref e12   # a ref from `webfold snapshot` or `find`
webfold outline page.html   # find selectors and @ids first";
    const TOOL: &'static str = "outerHTML of one element by CSS selector, node id or snapshot ref; big subtrees fold into placeholders saying how to unfold.";
    const SESSION: SessionUse = SessionUse::Reads;

    fn hints() -> Vec<Hint> {
        let sel = || Handle::Selector("SEL".into());
        vec![
            Hint::Raise(Limit::MaxTokens, None),
            Hint::Chunk(sel(), false),
            Hint::Chunk(sel(), true),
            Hint::Chunk(Handle::Id("N".into()), false),
        ]
    }

    fn run(request: &ChunkOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<Chunks, Error> {
        let session = input.session.as_deref();
        super::view(input.parsed()?, request, input.url, session, ctx)
    }

    fn envelope(request: &ChunkOptions, _: Ctx, out: Chunks) -> Envelope {
        let first = out.chunks.first();
        // The bridge's first answer, kept: the element's selector, its HTML
        // and whether it was found, beside the parts.
        let selector = request
            .selector
            .clone()
            .or_else(|| first.map(|c| c.selector.clone()))
            .unwrap_or_default();
        let id = first.map_or(0, |c| c.node_id.get());
        let folded: Vec<_> = out.chunks.iter().flat_map(|c| &c.folded).collect();
        let hints = folded
            .iter()
            .map(|f| Hint::Chunk(Handle::Selector(f.selector.clone()), f.all))
            .collect();
        let cut = !folded.is_empty() || !out.omitted.is_empty();
        let note = match out.matches {
            1 => format!("{selector} (node {id}, {} tokens)", out.tokens),
            n => format!("{n} matches, {} tokens", out.tokens),
        };
        let folded_json: Vec<_> = folded
            .iter()
            .map(|f| json!({"selector": f.selector, "id": f.node_id.get(), "elements": f.elements, "bytes": f.bytes}))
            .collect();
        let mut envelope = Envelope::new(NAME, out.text.clone(), out.tokens, &out)
            .budget(request.max_tokens)
            .cut(cut, hints)
            .note(note);
        let data = &mut envelope.data;
        data.insert("selector".into(), json!(selector));
        data.insert("html".into(), json!(out.text));
        data.insert("found".into(), json!(true));
        data.insert("id".into(), json!(id));
        if !folded_json.is_empty() {
            data.insert("folded".into(), json!(folded_json));
        }
        envelope
    }
}
