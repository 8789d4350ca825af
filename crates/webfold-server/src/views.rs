//! Renders the core's view results in the shapes the bridge and MCP answer
//! with. Requests, defaults, clamps and hint wording all live in the core
//! (`webfold_core::contract`); this only reshapes results.

use serde::Serialize;
use webfold_core::chunk::ChunkOptions;
use webfold_core::cnt::{Cnt, ViewOptions};
use webfold_core::outline::OutlineOptions;
use webfold_core::snapshot::SnapshotSession;
use webfold_core::{Error, Page};

/// One element's HTML (the bridge's chunk answer, plus what a budget folded).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Chunk {
    /// The selector asked for, or a unique selector for the element found by id/ref.
    pub selector: String,
    /// The element's outerHTML. Over max_tokens, subtrees are folded into
    /// `<!-- folded … -->` placeholders saying how to unfold them.
    /// With `all`, every match, each after a `<!-- match i/n: selector -->` line.
    pub html: String,
    pub found: bool,
    /// The (first) element's node id, stable for this page version.
    pub id: u32,
    /// Elements matched: 1 unless `all` was asked.
    pub matches: usize,
    /// Exact tokens of `html`.
    pub tokens: usize,
    /// Parts replaced by placeholders to stay within max_tokens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<Folded>,
    /// Node ids of matches left out to stay within max_tokens (`all` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<u32>,
}

/// A folded part: chunk `selector` to see it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Folded {
    pub selector: String,
    pub id: u32,
    /// Sibling elements folded together.
    pub elements: usize,
    pub bytes: u64,
}

/// The chunk the request names, in the bridge's shape. Refs are resolved as
/// the snapshot numbered them: with the session that handed them out, on the
/// page at `url`.
pub fn chunk(
    page: &Page,
    opts: &ChunkOptions,
    url: &str,
    session: Option<&SnapshotSession>,
) -> Result<Chunk, Error> {
    let view = webfold_core::chunk::view(page, opts, url, session)?;
    let first = view.chunks.first();
    Ok(Chunk {
        selector: opts
            .selector
            .clone()
            .or_else(|| first.map(|c| c.selector.clone()))
            .unwrap_or_default(),
        found: true,
        id: first.map(|c| c.node_id.0).unwrap_or(0),
        matches: view.matches,
        tokens: view.tokens,
        folded: view
            .chunks
            .iter()
            .flat_map(|c| &c.folded)
            .map(|f| Folded {
                selector: f.selector.clone(),
                id: f.node_id.0,
                elements: f.elements,
                bytes: f.bytes,
            })
            .collect(),
        omitted: view.omitted.iter().map(|n| n.0).collect(),
        html: view.text,
    })
}

/// The outline sent back when a page arrives (the bridge's `structure`).
#[derive(Clone, Debug, Serialize)]
pub struct Structure {
    pub text: String,
    pub tokens: usize,
}

/// The default outline of the page; a page with no elements has an empty one.
pub fn structure(page: &Page) -> Structure {
    let opts = OutlineOptions {
        surface: webfold_core::contract::Surface::Http,
        ..Default::default()
    };
    match webfold_core::outline::outline(page, &opts) {
        Ok(o) => Structure {
            text: o.text,
            tokens: o.tokens,
        },
        Err(_) => Structure {
            text: String::new(),
            tokens: 0,
        },
    }
}

/// One CNT view: the whole tree, or the part behind `expand`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CntView {
    /// The compressed tree; `[ID]` handles open with `expand`.
    pub text: String,
    pub tokens: usize,
    pub max_tokens: usize,
    /// What the view shows: the page, a node, or a hidden range.
    pub scope: String,
    /// Compression markers shown (each hides children behind an expandable id).
    pub markers: usize,
    pub hidden_children: usize,
    pub texts_cut: usize,
}

pub fn cnt(cnt: &Cnt, opts: &ViewOptions) -> Result<CntView, Error> {
    let view = cnt.view(opts)?;
    Ok(CntView {
        scope: view.scope_label(),
        text: view.text.clone(),
        tokens: view.tokens,
        max_tokens: view.max_tokens,
        markers: view.stats.markers,
        hidden_children: view.stats.hidden_children,
        texts_cut: view.stats.texts_cut,
    })
}
