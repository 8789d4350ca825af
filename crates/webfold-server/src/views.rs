//! The one place the surfaces call the core's views. Both the bridge API and
//! the MCP tools render through these functions, so an option means the same
//! thing everywhere. Defaults and clamps stay in the core.

use serde::Serialize;
use webfold_core::chunk::{ChunkOptions, ChunkTarget};
use webfold_core::cnt::{Cnt, CntId};
use webfold_core::fetch_view::{self, PageOptions, Paged};
use webfold_core::markdown::MarkdownOptions;
use webfold_core::outline::{Outline, OutlineOptions};
use webfold_core::snapshot::{Scope, Snapshot, SnapshotOptions, SnapshotSession};
use webfold_core::tokens::Encoding;
use webfold_core::{Error, NodeId, Page};

/// Longest selector accepted; real selectors are far shorter, and the matcher's
/// cost grows with the selector.
pub const MAX_SELECTOR_LEN: usize = 4096;

/// How a chunk's element is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Selector(String),
    /// A node id from an outline, CNT view or `--json` output.
    Id(u32),
    /// A ref from an accessibility snapshot.
    Ref(String),
}

impl Target {
    /// From the three optional request fields: exactly one must be set.
    pub fn from_parts(
        selector: Option<String>,
        id: Option<u32>,
        r#ref: Option<String>,
    ) -> Result<Self, String> {
        match (selector, id, r#ref) {
            (Some(s), None, None) => {
                if s.trim().is_empty() {
                    Err("selector is empty: pass a CSS selector such as section.hero".into())
                } else if s.len() > MAX_SELECTOR_LEN {
                    Err(format!("selector is longer than {MAX_SELECTOR_LEN} bytes"))
                } else {
                    Ok(Target::Selector(s))
                }
            }
            (None, Some(id), None) => Ok(Target::Id(id)),
            (None, None, Some(r)) => Ok(Target::Ref(r)),
            (None, None, None) => Err("name the element: pass one of selector, id or ref".into()),
            _ => Err("pass only one of selector, id or ref".into()),
        }
    }
}

/// One element's HTML (seed 000's chunk answer, plus what a budget folded).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Chunk {
    /// The selector asked for, or a unique selector for the element found by id/ref.
    pub selector: String,
    /// The element's outerHTML. Over max_tokens, subtrees are folded into
    /// `<!-- folded … -->` placeholders naming the selector that unfolds them.
    /// With `all`, every match, each after a `<!-- match i/n: selector -->` line.
    pub html: String,
    pub found: bool,
    /// The (first) element's node id, stable for this page version.
    pub id: u32,
    /// Elements matched: 1 unless `all` was asked.
    pub matches: usize,
    /// Exact tokens of `html` (o200k_base unless another encoding was asked).
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

/// Seed 000's chunk through the core's chunk view: the first element the
/// target names (every match with `all`), budgeted by folding. Refs are
/// resolved as the snapshot numbered them: with the session that handed them
/// out, on the page at `url`.
pub fn chunk(
    page: &Page,
    target: &Target,
    opts: &ChunkOptions,
    url: &str,
    session: Option<&SnapshotSession>,
) -> Result<Chunk, Error> {
    if !opts.all
        && let Some(whole) = whole_element(page, target, opts, url, session)?
    {
        return Ok(whole);
    }
    let (asked, core_target) = match target {
        Target::Selector(s) => (Some(s.clone()), ChunkTarget::Selector(s.clone())),
        Target::Id(id) => (None, ChunkTarget::Id(NodeId(*id))),
        Target::Ref(r) => (
            None,
            ChunkTarget::Id(webfold_core::snapshot::resolve_ref(page, r, url, session)?),
        ),
    };
    let view = webfold_core::chunk::chunk(page, &core_target, opts)?;
    let first = view.chunks.first();
    let selector = asked
        .or_else(|| first.map(|c| c.selector.clone()))
        .unwrap_or_default();
    Ok(Chunk {
        selector,
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

/// The element whole, when it fits the budget (or there is none): exactly
/// what the core's chunk view returns then, without the whole-page indexes it
/// builds for folding (unique selectors, subtree sizes). Those cost O(page)
/// per request, the very cost a cached parse exists to avoid; a test checks
/// this path against the core on real pages.
fn whole_element(
    page: &Page,
    target: &Target,
    opts: &ChunkOptions,
    url: &str,
    session: Option<&SnapshotSession>,
) -> Result<Option<Chunk>, Error> {
    let (asked, node) = match target {
        Target::Selector(s) => (Some(s.clone()), page.query(s)?),
        Target::Id(id) => {
            let node = NodeId(*id);
            let ok = page.get(node).is_some_and(|n| !n.inert) && page.is_element(node);
            if !ok {
                return Err(Error::UnknownNodeId(node));
            }
            (None, node)
        }
        Target::Ref(r) => (
            None,
            webfold_core::snapshot::resolve_ref(page, r, url, session)?,
        ),
    };
    let html = page.outer_html(node);
    let tokens = webfold_core::tokens::count(&html, opts.encoding);
    if opts.max_tokens.is_some_and(|budget| tokens > budget) {
        return Ok(None);
    }
    let selector = match asked {
        Some(s) => s,
        None => webfold_core::select::UniqueSelectors::new(page)
            .selector(node)
            .unwrap_or_default(),
    };
    Ok(Some(Chunk {
        selector,
        html,
        found: true,
        id: node.0,
        matches: 1,
        tokens,
        folded: Vec::new(),
        omitted: Vec::new(),
    }))
}

/// The outline sent back when a page arrives (seed 000's `structure`).
#[derive(Clone, Debug, Serialize)]
pub struct Structure {
    pub text: String,
    pub tokens: usize,
}

/// The default outline of the page; a page with no elements has an empty one.
pub fn structure(page: &Page) -> Structure {
    match outline(page, &OutlineOptions::default()) {
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

pub fn outline(page: &Page, opts: &OutlineOptions) -> Result<Outline, Error> {
    webfold_core::outline::outline(page, opts)
}

/// The page (or the subtree at `root`) as Markdown, paged by lines and budgeted.
pub fn markdown(page: &Page, root: NodeId, md: &MarkdownOptions, paging: &PageOptions) -> Paged {
    let text = webfold_core::markdown::to_markdown(page, root, md);
    fetch_view::page_lines(&text, paging)
}

/// What main-content extraction found, beside its Markdown.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct MainContent {
    pub title: Option<String>,
    pub byline: Option<String>,
    pub date: Option<String>,
    /// Set when no article was found and the Markdown is the whole page: why.
    pub fallback: Option<String>,
}

/// The page as Markdown: with `main`, only its main content under a short
/// header, as `webfold markdown --main` prints it; otherwise all of it.
pub fn page_markdown(
    page: &Page,
    md: &MarkdownOptions,
    main: bool,
) -> (String, Option<MainContent>) {
    if !main {
        return (
            webfold_core::markdown::to_markdown(page, NodeId::DOCUMENT, md),
            None,
        );
    }
    let ex =
        webfold_core::extract::extract(page, &webfold_core::extract::ExtractOptions::default());
    let info = MainContent {
        title: ex.metadata.title.clone(),
        byline: ex.metadata.byline.clone(),
        date: ex.metadata.date.clone(),
        fallback: ex.fallback.as_ref().map(|f| f.to_string()),
    };
    (ex.to_markdown(page, md), Some(info))
}

/// The accessibility snapshot (seed 001), moving the session on when given.
pub fn snapshot(
    page: &Page,
    url: &str,
    scope: &Scope,
    opts: &SnapshotOptions,
    session: Option<&mut SnapshotSession>,
) -> Result<Snapshot, Error> {
    webfold_core::snapshot::snapshot(page, url, scope, opts, session)
}

/// `ai` (refs, for agents; the default) or `aria` (Playwright's plain ARIA snapshot).
pub fn parse_mode(s: &str) -> Result<webfold_core::aria::Mode, Error> {
    match s {
        "ai" => Ok(webfold_core::aria::Mode::Ai),
        "aria" => Ok(webfold_core::aria::Mode::Aria),
        other => Err(Error::InvalidOption(format!(
            "unknown mode '{other}': use ai or aria"
        ))),
    }
}

/// One CNT view (seed 003): the whole tree, or the part behind `expand`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CntView {
    /// The compressed tree; `[ID]` handles expand with cnt_expand.
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

pub fn cnt(
    cnt: &Cnt,
    max_tokens: Option<usize>,
    expand: Option<&str>,
    encoding: Encoding,
) -> Result<CntView, Error> {
    let mut opts = webfold_core::cnt::ViewOptions {
        encoding,
        ..Default::default()
    };
    if let Some(n) = max_tokens {
        opts.max_tokens = n;
    }
    if let Some(e) = expand {
        let id: CntId = e.parse().map_err(Error::InvalidOption)?;
        opts.expand = Some(id);
    }
    let view = cnt.view(&opts)?;
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
