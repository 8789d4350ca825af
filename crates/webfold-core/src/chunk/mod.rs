//! The chunk view (seed 000): the `outerHTML` of an element an agent picked
//! from an outline, by selector or node id.
//!
//! - A selector gives its first match (`querySelector`); `all` gives every
//!   match (`querySelectorAll`), each headed by its unique selector.
//! - A node id is the number `outline --json` (`nodeId`), the outline's `@N`
//!   and the CNT view print: the element's [`NodeId`] in this page version.
//! - No match is [`Error::ElementNotFound`] with up to three existing
//!   selectors close to the one asked for; a bad selector is
//!   [`Error::InvalidSelector`] with the position.
//! - Over `max_tokens`, nothing is cut silently: subtrees are folded into
//!   placeholders that name their unique selector (see [`fold`] for which), e.g.
//!   `<!-- folded ul.results (48 children, 52.1 KB): chunk --selector "main > ul.results" -->`.
//!   The whole text (headers and placeholders included) is at most
//!   `max_tokens`; when even the element's tags with everything folded do not
//!   fit, the answer is [`Error::BudgetTooSmall`] with the smallest budget
//!   that works.

mod def;
mod fold;
mod kids;

pub use def::{ChunkView, NAME};

use std::cell::OnceCell;

use crate::contract::{Ctx, DEFAULT_MAX_TOKENS, Handle, Hint, Limit, Request, Surface};
use crate::error::Error;
use crate::page::{NodeId, Page};
use crate::select::{Selector, UniqueSelectors, suggest_selectors};
use crate::tokens::{self, Encoding};

use fold::{Fitted, Folder};

/// What to chunk. (Snapshot refs join as a variant when snapshots land.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkTarget {
    /// A CSS selector, matched as `querySelector` / `querySelectorAll`.
    Selector(String),
    /// A node id from `outline --json`, an outline's `@N`, or CNT.
    Id(NodeId),
}

/// The chunk's request (see [`crate::contract`]): one of `selector`, `id`,
/// `ref` names the element.
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkOptions {
    /// CSS selector (first match), e.g. "section.hero"
    pub selector: Option<String>,
    /// Node id from an outline (@N) or CNT
    pub id: Option<u64>,
    /// Snapshot ref, e.g. "e12"
    #[serde(rename = "ref")]
    pub r#ref: Option<String>,
    /// Every match of the selector, not just the first
    pub all: bool,
    /// Token budget; larger subtrees fold into placeholders
    #[schemars(range(min = 1))]
    pub max_tokens: Option<usize>,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            selector: None,
            id: None,
            r#ref: None,
            all: false,
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

impl Request for ChunkOptions {
    fn validate(&self, surface: Surface) -> Result<(), Error> {
        self.named(surface).map(|_| ())
    }
}

/// Longest selector accepted; real selectors are far shorter, and matching
/// cost grows with the selector.
pub const MAX_SELECTOR_LEN: usize = 4096;

/// How a request names its element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    Selector(String),
    Id(NodeId),
    Ref(String),
}

impl ChunkOptions {
    /// The element the request names: exactly one of selector, id and ref.
    pub fn named(&self, s: Surface) -> Result<Named, Error> {
        let name = |o: &str| crate::contract::parse::option_name(o, s);
        match (&self.selector, self.id, &self.r#ref) {
            (Some(sel), None, None) => {
                if sel.trim().is_empty() {
                    Err(Error::InvalidOption(format!(
                        "{} is empty: give a CSS selector such as section.hero",
                        name("selector")
                    )))
                } else if sel.len() > MAX_SELECTOR_LEN {
                    Err(Error::InvalidOption(format!(
                        "{} is longer than {MAX_SELECTOR_LEN} bytes",
                        name("selector")
                    )))
                } else {
                    Ok(Named::Selector(sel.clone()))
                }
            }
            (None, Some(id), None) => u32::try_from(id)
                .ok()
                .and_then(NodeId::try_new)
                .map(Named::Id)
                .ok_or(Error::UnknownNodeId(id)),
            (None, None, Some(r)) => Ok(Named::Ref(r.clone())),
            (None, None, None) => Err(Error::InvalidOption(format!(
                "name the element: give one of {}, {} or {}",
                name("selector"),
                name("id"),
                name("ref")
            ))),
            _ => Err(Error::InvalidOption(format!(
                "give only one of {}, {} or {}",
                name("selector"),
                name("id"),
                name("ref")
            ))),
        }
    }
}

/// One element's HTML.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// Selects this element and nothing else.
    pub selector: String,
    pub node_id: NodeId,
    /// `outerHTML`, with placeholders where parts were folded.
    pub html: String,
    /// Exact tokens of `html`.
    pub tokens: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<FoldedPart>,
}

/// A part of a chunk replaced by a placeholder.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldedPart {
    /// Chunk this selector to unfold the part (with `all` when `all` is set).
    pub selector: String,
    /// The (first) folded element.
    pub node_id: NodeId,
    /// Sibling elements folded together.
    pub elements: usize,
    /// The selector matches several elements: unfold with `all`.
    pub all: bool,
    /// Exact size of the folded HTML.
    pub bytes: u64,
}

/// The chunk view: the text an agent is shown and its parts.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunks {
    /// One element's HTML, or with `all` every shown match after a header
    /// line. Left out of JSON, where `chunks` has the same HTML.
    #[serde(skip)]
    pub text: String,
    /// Exact tokens of `text`.
    pub tokens: usize,
    pub encoding: Encoding,
    /// Elements the target matched.
    pub matches: usize,
    pub chunks: Vec<Chunk>,
    /// Matches left out to keep within the budget (`all` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<NodeId>,
}

/// Node ids listed in the line about omitted matches.
const OMITTED_IDS_SHOWN: usize = 10;

/// The chunk the request names: by selector, node id, or a snapshot ref as
/// the page at `url` numbers it (with the session that handed it out).
pub fn view(
    page: &Page,
    opts: &ChunkOptions,
    url: &str,
    session: Option<&crate::snapshot::SnapshotSession>,
    ctx: Ctx,
) -> Result<Chunks, Error> {
    let target = match opts.named(ctx.surface)? {
        Named::Selector(s) => ChunkTarget::Selector(s),
        Named::Id(id) => ChunkTarget::Id(id),
        Named::Ref(r) => ChunkTarget::Id(crate::snapshot::resolve_ref(page, &r, url, session)?),
    };
    chunk(page, &target, opts, ctx)
}

pub fn chunk(
    page: &Page,
    target: &ChunkTarget,
    opts: &ChunkOptions,
    ctx: Ctx,
) -> Result<Chunks, Error> {
    let (what, needed, max_tokens, advice) = match chunk_within(page, target, opts, ctx) {
        Err(Error::BudgetTooSmall {
            what,
            needed,
            max_tokens,
            advice,
        }) => (what, needed, max_tokens, advice),
        done => return done,
    };
    // The smallest form is planned from estimates of what joins it (match
    // headers, the note on matches left out): advise a budget that was seen
    // to work, so pasting it back does.
    let mut works = needed;
    for _ in 0..4 {
        let at = ChunkOptions {
            max_tokens: Some(works),
            ..opts.clone()
        };
        match chunk_within(page, target, &at, ctx) {
            Err(Error::BudgetTooSmall { needed: more, .. }) if more > works => works = more,
            Err(Error::BudgetTooSmall { .. }) => works += 1,
            _ => break,
        }
    }
    let spell = |n| Hint::Raise(Limit::MaxTokens, Some(n)).spell(ctx.surface);
    Err(Error::BudgetTooSmall {
        what,
        needed: works,
        max_tokens,
        advice: advice.replace(&spell(needed), &spell(works)),
    })
}

fn chunk_within(
    page: &Page,
    target: &ChunkTarget,
    opts: &ChunkOptions,
    ctx: Ctx,
) -> Result<Chunks, Error> {
    let matches = resolve(page, target, opts.all)?;
    // Page-wide indexes (every element's selector names, subtree sizes) are
    // built only once something has to be folded.
    let mut uniq = UniqueSelectors::covering(page, &matches);
    let sizes = OnceCell::new();
    let mut folder = Folder::new(page, &sizes, &mut uniq, ctx.encoding, ctx.surface);
    let headed = opts.all;
    let total = matches.len();
    let header = |i: usize, sel: &str| {
        if headed {
            format!("<!-- match {i}/{total}: {sel} -->\n")
        } else {
            String::new()
        }
    };

    let mut chunks: Vec<Chunk> = Vec::new();
    let mut omitted: Vec<NodeId> = Vec::new();
    match opts.max_tokens {
        None => {
            for &m in &matches {
                let fitted = folder.whole(m);
                chunks.push(make_chunk(&mut folder, m, fitted));
            }
        }
        Some(budget) => {
            let plan = allocate(&mut folder, &matches, budget, &header)?;
            for (m, share) in plan.shown {
                let fitted = folder
                    .fit(m, share)
                    .map_err(|needed| too_small(page, &mut folder, m, needed, share))?;
                chunks.push(make_chunk(&mut folder, m, fitted));
            }
            omitted = plan.omitted;
        }
    }
    let mut text = render_text(&chunks, &omitted, total, &header, ctx.surface);
    // One chunk shown alone is the whole text, and its count is exact already.
    let mut count = match &chunks[..] {
        [only] if text == only.html => only.tokens,
        _ => tokens::count(&text, ctx.encoding),
    };
    // Joining chunks can merge a token or two at the seams; drop trailing
    // matches until the whole is within budget.
    if let Some(budget) = opts.max_tokens {
        while count > budget && chunks.len() > 1 {
            if let Some(c) = chunks.pop() {
                omitted.insert(0, c.node_id);
            }
            text = render_text(&chunks, &omitted, total, &header, ctx.surface);
            count = tokens::count(&text, ctx.encoding);
        }
        if count > budget {
            return Err(Error::BudgetTooSmall {
                what: "this chunk".into(),
                needed: count,
                max_tokens: budget,
                advice: format!(
                    "raise {}",
                    Hint::Raise(Limit::MaxTokens, Some(count)).spell(ctx.surface)
                ),
            });
        }
    }
    Ok(Chunks {
        text,
        tokens: count,
        encoding: ctx.encoding,
        matches: total,
        chunks,
        omitted,
    })
}

/// The elements `target` names, as [`chunk`] finds them before it renders
/// any: the first match, or every one with `all`.
pub fn resolve(page: &Page, target: &ChunkTarget, all: bool) -> Result<Vec<NodeId>, Error> {
    match target {
        ChunkTarget::Selector(source) => {
            let sel = Selector::parse(source)?;
            let found: Vec<NodeId> = if all {
                page.select(&sel)
            } else {
                page.select_first(&sel).into_iter().collect()
            };
            if found.is_empty() {
                return Err(Error::ElementNotFound {
                    selector: source.clone(),
                    suggestions: suggest_selectors(page, source, 3),
                });
            }
            Ok(found)
        }
        ChunkTarget::Id(id) => {
            // A snapshot ref can name an element of a declarative shadow
            // root, which the parser keeps as (inert) template content.
            let ok = page.is_element(*id) && crate::aria::is_shown_content(page, *id);
            if ok {
                Ok(vec![*id])
            } else {
                Err(Error::UnknownNodeId(id.get().into()))
            }
        }
    }
}

fn make_chunk(folder: &mut Folder<'_, '_>, m: NodeId, fitted: Fitted) -> Chunk {
    Chunk {
        selector: folder.uniq.selector(m).unwrap_or_default(),
        node_id: m,
        html: fitted.html,
        tokens: fitted.tokens,
        folded: fitted.folded,
    }
}

fn render_text(
    chunks: &[Chunk],
    omitted: &[NodeId],
    total: usize,
    header: &dyn Fn(usize, &str) -> String,
    surface: Surface,
) -> String {
    let mut text = String::new();
    for (i, c) in chunks.iter().enumerate() {
        text.push_str(&header(i + 1, &c.selector));
        text.push_str(&c.html);
        if chunks.len() > 1 || !omitted.is_empty() {
            text.push('\n');
        }
    }
    if !omitted.is_empty() {
        text.push_str(&omitted_line(omitted, total, surface));
    }
    text
}

fn omitted_line(omitted: &[NodeId], total: usize, surface: Surface) -> String {
    let ids: Vec<String> = omitted
        .iter()
        .take(OMITTED_IDS_SHOWN)
        .map(|n| n.to_string())
        .collect();
    let more = if omitted.len() > OMITTED_IDS_SHOWN {
        " …"
    } else {
        ""
    };
    format!(
        "<!-- {} of {total} matches not shown to stay within the budget: {} for each of {}{more} -->\n",
        omitted.len(),
        Hint::Chunk(Handle::Id("N".into()), false).spell(surface),
        ids.join(" ")
    )
}

struct Allocation {
    /// Matches shown, with each one's token budget.
    shown: Vec<(NodeId, usize)>,
    omitted: Vec<NodeId>,
}

/// Share a budget among matches: each shown match gets at least its smallest
/// folded form; what is left goes to the matches that want more, smallest
/// wants filled first (water-filling). Matches that do not fit even folded
/// are left out, in document order from the end.
fn allocate(
    folder: &mut Folder<'_, '_>,
    matches: &[NodeId],
    budget: usize,
    header: &dyn Fn(usize, &str) -> String,
) -> Result<Allocation, Error> {
    let enc = folder.enc;
    let total = matches.len();
    let mut reserve = 0;
    if total > 1 {
        let tail = &matches[total.saturating_sub(OMITTED_IDS_SHOWN)..];
        reserve = tokens::count(&omitted_line(tail, total, folder.surface), enc) + 2;
    }
    // (match, minimum, wanted) per shown match.
    let mut items: Vec<(NodeId, usize, usize)> = Vec::new();
    let mut used = 0usize;
    for (i, &m) in matches.iter().enumerate() {
        let sel = folder.uniq.selector(m).unwrap_or_default();
        let head = tokens::count(&header(i + 1, &sel), enc) + usize::from(total > 1);
        let room = budget.saturating_sub(used + head);
        let (min, want) = match folder.fit(m, room) {
            Ok(f) if f.folded.is_empty() => (f.tokens, f.tokens),
            Ok(_) => (folder.smallest(m), usize::MAX),
            Err(needed) => (needed, usize::MAX),
        };
        let last = i + 1 == total;
        let needs = head + min + if last { 0 } else { reserve };
        if used + needs > budget {
            if i == 0 {
                let page = folder.page;
                // What it needs, room for the note on matches left out included.
                return Err(too_small(page, folder, m, needs, budget));
            }
            let omitted = matches[i..].to_vec();
            return Ok(Allocation {
                shown: water_fill(&items, budget.saturating_sub(used + reserve)),
                omitted,
            });
        }
        used += head + min;
        items.push((m, min, want));
    }
    Ok(Allocation {
        shown: water_fill(&items, budget.saturating_sub(used)),
        omitted: Vec::new(),
    })
}

/// Each item gets its minimum plus a share of `surplus`, capped at what it wants.
fn water_fill(items: &[(NodeId, usize, usize)], surplus: usize) -> Vec<(NodeId, usize)> {
    let mut extra: Vec<usize> = vec![0; items.len()];
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| items[i].2.saturating_sub(items[i].1));
    let mut left = surplus;
    for (k, &i) in order.iter().enumerate() {
        let wants = items[i].2.saturating_sub(items[i].1);
        let fair = left / (order.len() - k);
        let give = wants.min(fair);
        extra[i] = give;
        left -= give;
    }
    items
        .iter()
        .zip(extra)
        .map(|(&(m, min, _), e)| (m, min + e))
        .collect()
}

fn too_small(
    page: &Page,
    folder: &mut Folder<'_, '_>,
    m: NodeId,
    needed: usize,
    budget: usize,
) -> Error {
    let sel = folder.uniq.selector(m).unwrap_or_default();
    let raise = Hint::Raise(Limit::MaxTokens, Some(needed)).spell(folder.surface);
    let advice = if page.element_children(m).next().is_none() {
        format!("its text cannot be folded; raise {raise}, or read the page as Markdown in parts")
    } else {
        format!("raise {raise}")
    };
    Error::BudgetTooSmall {
        what: format!("the chunk {sel}"),
        needed,
        max_tokens: budget,
        advice,
    }
}
