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

mod fold;

use crate::error::Error;
use crate::page::{NodeId, Page};
use crate::select::{Selector, UniqueSelectors, suggest_selectors};
use crate::tokens::{self, Encoding};

use fold::{Fitted, Folder, Sizes};

/// What to chunk. (Snapshot refs join as a variant when snapshots land.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkTarget {
    /// A CSS selector, matched as `querySelector` / `querySelectorAll`.
    Selector(String),
    /// A node id from `outline --json`, an outline's `@N`, or CNT.
    Id(NodeId),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ChunkOptions {
    /// Every match, not just the first.
    pub all: bool,
    /// Token budget for the whole text.
    pub max_tokens: Option<usize>,
    pub encoding: Encoding,
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

pub fn chunk(page: &Page, target: &ChunkTarget, opts: &ChunkOptions) -> Result<Chunks, Error> {
    let matches = resolve(page, target, opts.all)?;
    let mut uniq = UniqueSelectors::new(page);
    let sizes = Sizes::new(page);
    let mut folder = Folder::new(page, &sizes, &mut uniq, opts.encoding);
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
    let mut text = render_text(&chunks, &omitted, total, &header);
    // One chunk shown alone is the whole text, and its count is exact already.
    let mut count = match &chunks[..] {
        [only] if text == only.html => only.tokens,
        _ => tokens::count(&text, opts.encoding),
    };
    // Joining chunks can merge a token or two at the seams; drop trailing
    // matches until the whole is within budget.
    if let Some(budget) = opts.max_tokens {
        while count > budget && chunks.len() > 1 {
            if let Some(c) = chunks.pop() {
                omitted.insert(0, c.node_id);
            }
            text = render_text(&chunks, &omitted, total, &header);
            count = tokens::count(&text, opts.encoding);
        }
        if count > budget {
            return Err(Error::BudgetTooSmall {
                what: "this chunk".into(),
                needed: count,
                max_tokens: budget,
                advice: "raise max_tokens".into(),
            });
        }
    }
    Ok(Chunks {
        text,
        tokens: count,
        encoding: opts.encoding,
        matches: total,
        chunks,
        omitted,
    })
}

fn resolve(page: &Page, target: &ChunkTarget, all: bool) -> Result<Vec<NodeId>, Error> {
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
            let ok = page.get(*id).is_some_and(|n| !n.inert) && page.is_element(*id);
            if ok {
                Ok(vec![*id])
            } else {
                Err(Error::UnknownNodeId(*id))
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
        text.push_str(&omitted_line(omitted, total));
    }
    text
}

fn omitted_line(omitted: &[NodeId], total: usize) -> String {
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
        "<!-- {} of {total} matches not shown to stay within the budget: chunk --id N for each of {}{more} -->\n",
        omitted.len(),
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
        reserve = tokens::count(&omitted_line(tail, total), enc) + 2;
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
                return Err(too_small(page, folder, m, head + min, budget));
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
    let advice = if page.element_children(m).next().is_none() {
        "its text cannot be folded; raise max_tokens, or read the page as Markdown in parts"
            .to_string()
    } else {
        "raise max_tokens".to_string()
    };
    Error::BudgetTooSmall {
        what: format!("the chunk {sel}"),
        needed,
        max_tokens: budget,
        advice,
    }
}
