//! The outline view (seed 000): the page's element tree as a small text tree
//! with selector labels, for an agent to read first and unfold parts of with
//! [`chunk`](crate::chunk).
//!
//! ```text
//! body (212 elements)
//! ├── header#top > div.container > nav.navbar (3 items)
//! ├── main#content
//! │   ├── section.hero "Welcome to Our Platform The best solution for…"
//! │   └── ul.results > li.product ×48 @187 "Widget A $9.99"
//! └── footer#main-footer "© 2024 Acme"
//! ```
//!
//! Rules, on top of the seed's (labels `tag#id.classes`, a 50-character text
//! preview, depth 4 by default, `exclude` selectors, a total element count):
//! - It starts at `<body>`. What a person does not see is left out: `<head>`,
//!   `script`, `style`, `noscript`, `template`, `br`/`wbr`, and elements hidden
//!   by markup (`hidden`, inline `display:none`/`visibility:hidden`, closed
//!   `<details>`/`<dialog>`), with their subtrees. SVG and MathML islands are
//!   one element each. `exclude` adds more selectors.
//! - Three or more consecutive same-shaped siblings (same tag and classes,
//!   same child tags and classes) are one line, `li.product ×48`, whose
//!   children are the first one's.
//! - A chain of wrappers (an element with one child element and no text of its
//!   own) is one line, `div.a > div.b > ul.list`, up to four elements.
//! - Depth counts lines, not DOM levels, so wrappers do not use up depth.
//! - A label that does not select its element alone (and every run) carries
//!   `@N`, the element's [`NodeId`]: `chunk --id N` unfolds it.
//! - A preview is the element's visible text that no line below it shows,
//!   whitespace-collapsed.
//! - `max_tokens` keeps lines in breadth-first order, round-robin across
//!   parents (so the widest lists lose lines first); a parent whose children
//!   were cut says `… N more`, and a last line says what was cut and how to
//!   unfold it. Token counts are exact and the text never exceeds the budget.

mod def;
mod plan;
mod preview;
mod render;
mod scope;

pub(crate) use scope::label;

use crate::contract::{Ctx, DEFAULT_MAX_TOKENS, Hint, Limit};
use crate::error::Error;
use crate::page::{NodeId, Page};
use crate::purpose::TaskFocus;
use crate::tokens::{self, Encoding};

pub use def::{NAME, OutlineView};
pub use preview::PREVIEW_CHARS;

/// Default depth (seed 000).
pub const DEFAULT_MAX_DEPTH: usize = 4;
/// Deepest outline we draw: beyond it lines are mostly indentation.
pub const MAX_DEPTH_LIMIT: usize = 64;

/// The outline's request (see [`crate::contract`]).
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct OutlineOptions {
    /// Levels below <body> (a wrapper chain is one)
    #[schemars(range(min = 1, max = 64))]
    pub max_depth: usize,
    /// CSS selectors to leave out, with their subtrees
    pub exclude: Vec<String>,
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: Option<usize>,
    /// A task: parts it names kept first
    pub focus: Option<String>,
}

impl crate::contract::Request for OutlineOptions {}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            exclude: Vec::new(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
            focus: None,
        }
    }
}

/// The seed's `DOMStructure`, plus the text an agent reads and its tokens.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outline {
    /// The tree as text: what an agent is shown.
    pub text: String,
    /// Exact tokens of `text` in `encoding`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub root: DomNode,
    /// Outlined elements on the page (all depths, exclusions left out).
    pub total_elements: usize,
    /// Elements the text stands for (lines, wrappers, run members).
    pub shown_elements: usize,
    pub max_depth: usize,
    /// Milliseconds since the Unix epoch when the page was captured; set by
    /// the surface (the core has no clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u64>,
    /// Present when the budget cut lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
}

/// The seed's `DOMNode`, plus our node id and run length.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomNode {
    pub tag: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
    /// Selects this element and nothing else.
    pub selector: String,
    /// For `chunk --id`; valid for this page version.
    pub node_id: NodeId,
    /// Outlined element children (which may be more than `children` holds).
    pub child_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_preview: Option<String>,
    /// This node stands for a run of this many same-shaped siblings (itself first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<DomNode>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    pub max_tokens: usize,
    /// Elements whose children were cut, with how many: unfold each with
    /// `chunk --selector`.
    pub cut: Vec<CutPart>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CutPart {
    pub selector: String,
    pub node_id: NodeId,
    pub hidden_children: usize,
}

/// The outline of `page`.
pub fn outline(page: &Page, opts: &OutlineOptions, ctx: Ctx) -> Result<Outline, Error> {
    let max_depth = opts.max_depth.min(MAX_DEPTH_LIMIT);
    let scope = scope::Scope::new(page, &opts.exclude)?;
    let root = page
        .body()
        .or_else(|| page.document_element())
        .ok_or_else(|| Error::InvalidOption("the page has no elements to outline".into()))?;
    let mut plan = plan::build(&scope, root, max_depth);
    if let Some(focus) = opts.focus.as_deref().and_then(TaskFocus::new) {
        plan::focus(&mut plan, &scope, &focus);
    }
    let total = scope.count_outlined(root);
    let mut r = render::Renderer::new(&scope, &plan, total, ctx.surface);
    let all = plan.entries.len();
    let enc = ctx.encoding;

    // Without a budget, every plan fits.
    let budget = opts.max_tokens.unwrap_or(usize::MAX);
    // Every line costs at least one token (its newline), so a plan with more
    // lines than the budget cannot fit whole: rendering a listing's 400,000
    // lines only to count them would cost more than the rest of the view.
    let whole = (all <= budget).then(|| {
        let out = r.render(all, opts.max_tokens);
        let t = tokens::count(&out.text, enc);
        (out, t)
    });
    let (k, rendered, count) = match whole {
        Some((out, t)) if t <= budget => (all, out, t),
        whole => fit_lines(&mut r, all, budget, whole.map(|(_, t)| t), ctx)?,
    };
    // Previews depend on which lines are shown: re-mark for the kept set.
    let _ = r.render(k, opts.max_tokens);
    let root_node = r.dom_tree(k);
    let truncated = match opts.max_tokens {
        Some(max_tokens) if k < all => Some(Truncation {
            max_tokens,
            cut: r.cut_parts(&rendered.cut),
        }),
        _ => None,
    };
    Ok(Outline {
        text: rendered.text,
        tokens: count,
        encoding: enc,
        root: root_node,
        total_elements: total,
        shown_elements: rendered.shown_elements,
        max_depth,
        timestamp: None,
        truncated,
    })
}

/// The most lines (in rank order) whose render fits `budget`, for a plan of
/// `all` lines that does not fit whole (`whole_tokens`, when it was counted).
fn fit_lines(
    r: &mut render::Renderer<'_, '_>,
    all: usize,
    budget: usize,
    whole_tokens: Option<usize>,
    ctx: Ctx,
) -> Result<(usize, render::Rendered, usize), Error> {
    let enc = ctx.encoding;
    let smallest = r.render(1, Some(budget));
    let smallest_tokens = tokens::count(&smallest.text, enc);
    if smallest_tokens > budget {
        // The cut line names the budget, so the one-line outline costs what
        // it costs at the budget advised: settle on a number that takes
        // itself (a digit more can cost a token).
        let mut needed = smallest_tokens;
        for _ in 0..4 {
            let at = tokens::count(&r.render(1, Some(needed)).text, enc);
            if at <= needed {
                break;
            }
            needed = at;
        }
        return Err(Error::BudgetTooSmall {
            what: "the outline of this page".into(),
            needed,
            max_tokens: budget,
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(needed)).spell(ctx.surface)
            ),
        });
    }
    // Tokens grow with lines (not strictly: previews move text to the lines
    // below); the search keeps only renders that fitted. First guess: lines
    // in proportion to the budget, or a typical line's dozen tokens when the
    // whole was not counted.
    let guess = match whole_tokens {
        Some(t) => all * budget / t.max(1),
        None => budget / 12,
    };
    let (k, (out, t)) =
        crate::fit::largest_fitting((1, (smallest, smallest_tokens)), guess, all, |k| {
            let out = r.render(k, Some(budget));
            let t = tokens::count(&out.text, enc);
            (t <= budget).then_some((out, t))
        });
    Ok((k, out, t))
}
