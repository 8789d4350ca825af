//! Main-content extraction: which part of a page is the article.
//!
//! The answer is a subtree (`root`) minus the subtrees inside it that are not
//! content (`is_dropped`), plus the title, byline and date. Views render it
//! (Markdown, text) with that filter, so links, tables and code keep whatever
//! treatment the renderer gives them.
//!
//! How: classify elements (never content / furniture / candidate), score
//! paragraphs and let the scores flow to their ancestors (Readability),
//! take the best container and its sibling parts (and the rest of a body
//! split over like wrappers), add the lede between the page's headline and
//! that body, then drop furniture and junk containers inside it, bottom-up,
//! and the headings left heading nothing. Every pass is a linear walk of the
//! preorder arena, so page depth costs nothing. When the result holds too
//! little text (app shells, listings, home pages) and is not a short piece
//! under its own headline, the extraction falls back to the whole page and
//! says so in `fallback`.

mod candidate;
mod classify;
mod clean;
mod lede;
mod metadata;
mod render;
mod stats;
mod text;

use std::fmt;

pub use metadata::{Metadata, metadata};

use crate::NodeId;
use crate::page::Page;
use classify::{Classes, Kind};
use stats::Stats;

#[derive(Clone, Debug, PartialEq)]
pub struct ExtractOptions {
    /// Fewer non-whitespace characters than this in the article: fall back
    /// to the whole page (unless the article sits under the page's own
    /// headline and holds at least 100: a short post is still a post).
    pub min_chars: u32,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions { min_chars: 200 }
    }
}

/// Why the extraction is the whole page rather than an article.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Fallback {
    /// No element holds paragraph text (an app shell, an empty page).
    NoArticle,
    /// The best candidate held too little of the page's visible text.
    TooLittleText {
        article_chars: u32,
        visible_chars: u32,
    },
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fallback::NoArticle => write!(f, "no main content found, so this is the whole page"),
            Fallback::TooLittleText {
                article_chars,
                visible_chars,
            } => write!(
                f,
                "no main content found (the best candidate held {article_chars} of the page's \
                 {visible_chars} visible characters), so this is the whole page"
            ),
        }
    }
}

/// The main content of a page.
#[derive(Clone, Debug)]
pub struct Extraction {
    /// The subtree that holds the content (the `<body>` on a fallback).
    pub root: NodeId,
    /// Dropped subtrees inside `root`, as sorted disjoint id ranges.
    dropped: Vec<(u32, u32)>,
    pub metadata: Metadata,
    /// Set when this is the whole page rather than an article.
    pub fallback: Option<Fallback>,
    /// Non-whitespace characters of text kept.
    pub chars: u32,
    /// Non-whitespace characters of all rendered text on the page.
    pub visible_chars: u32,
}

impl Extraction {
    /// Whether `id` lies in a dropped subtree (ids outside `root` are not "dropped": use `is_kept`).
    pub fn is_dropped(&self, id: NodeId) -> bool {
        let i = self
            .dropped
            .partition_point(|&(start, _)| start <= id.get());
        i > 0 && id.get() < self.dropped[i - 1].1
    }

    /// Whether `id` is part of the extracted content.
    pub fn is_kept(&self, page: &Page, id: NodeId) -> bool {
        (id == self.root || page.is_ancestor_of(self.root, id)) && !self.is_dropped(id)
    }

    /// Roots of the dropped subtrees, in document order.
    pub fn dropped(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.dropped.iter().map(|&(s, _)| NodeId::new(s))
    }
}

/// Text (non-whitespace chars) an article under its own headline needs to
/// stand, however little of the page it is.
const MIN_ANCHORED_CHARS: u32 = 100;
/// Levels above the content its headline may sit and still head it.
const ANCHOR_LEVELS: usize = 3;

struct Attempt {
    root: NodeId,
    dropped: Vec<NodeId>,
    chars: u32,
    /// The title heading opens or heads the content.
    anchored: bool,
}

fn attempt(
    page: &Page,
    classes: &Classes,
    use_classes: bool,
    title: Option<&str>,
) -> Option<Attempt> {
    let furniture = |k: Kind| match k {
        Kind::Plain => false,
        Kind::Removed | Kind::Boilerplate => true,
        Kind::BoilerplateByClass => use_classes,
    };
    let stats = Stats::compute(page, &classes.kinds, furniture);
    let scores = candidate::score(page, classes, &stats);
    let top = candidate::top_candidate(page, &scores, &stats)?;
    let selection = candidate::merge_siblings(page, &scores, &stats, top);
    let selection = candidate::split_body_parts(page, &stats, &scores.prose, selection);
    let body = page.body().unwrap_or(NodeId::DOCUMENT);
    let before = title
        .zip(selection.keep.first())
        .and_then(|(t, &first)| lede::title_heading(page, &stats, t, body, first));
    let selection = match before {
        Some(h) => lede::gather(page, &stats, &scores.prose, selection, h),
        None => selection,
    };
    // The page's own headline heads or opens the content: it is the article,
    // however short.
    let anchored = before.is_some_and(|h| {
        page.is_ancestor_of(selection.root, h)
            || lede::container(page, selection.root, h, ANCHOR_LEVELS).is_some()
    }) || title.is_some_and(|t| {
        lede::title_heading(
            page,
            &stats,
            t,
            selection.root,
            page.node(selection.root).subtree_end,
        )
        .is_some()
    });
    let root = selection.root;
    let dropped = clean::drops(
        page,
        classes,
        furniture,
        &stats,
        &selection,
        &scores.prose,
        title.map(|text| clean::Title {
            text,
            headline_outside: before.is_some_and(|h| !page.is_ancestor_of(root, h)),
        }),
    );
    let (sums, _) = stats.accumulate(page, root, |id, _| dropped.binary_search(&id).is_ok());
    Some(Attempt {
        root,
        dropped,
        chars: sums.chars,
        anchored,
    })
}

/// A class that only hints at furniture (`read-more`, `sidebar-wrap`) on an
/// element inside the article holding at least half its prose is part of
/// the article (a "read more" expansion, a layout wrapper): make such
/// elements candidates again. Returns whether any changed.
fn rescue_weak_furniture(page: &Page, classes: &mut Classes, prose: &[f32], root: NodeId) -> bool {
    let root_prose = prose[root.index()];
    let mut changed = false;
    for i in page.subtree(root).map(NodeId::index) {
        if classes.kinds[i] == Kind::BoilerplateByClass
            && !classes.signals[i].strong_negative
            && root_prose > 0.0
            && prose[i] >= 0.5 * root_prose
        {
            classes.kinds[i] = Kind::Plain;
            changed = true;
        }
    }
    changed
}

fn ranges(page: &Page, roots: &[NodeId]) -> Vec<(u32, u32)> {
    roots
        .iter()
        .map(|&r| (r.get(), page.node(r).subtree_end.get()))
        .collect()
}

/// Extract the main content of `page`.
pub fn extract(page: &Page, options: &ExtractOptions) -> Extraction {
    extract_classified(page, options).0
}

/// The main content of a page and what its parts are, for views that rank
/// the parts rather than cut them.
pub(crate) struct Parts {
    pub extraction: Extraction,
    /// Per DOM node: page furniture by tag, ARIA role or class words
    /// (navigation, footers, sidebars, navboxes, cookie banners, share
    /// bars), itself or through an ancestor: the classifier extraction ran on.
    pub furniture: Vec<bool>,
    /// Per DOM node: prose, or part of it: a paragraph by the scoring's rule
    /// (enough text, under half of it links), inside one, or holding one.
    pub prose: Vec<bool>,
}

/// Extract the main content of `page` and tell its parts apart.
pub(crate) fn extract_parts(page: &Page, options: &ExtractOptions) -> Parts {
    let (extraction, classes, visible) = extract_classified(page, options);
    let nodes = page.nodes();
    let mut furniture = vec![false; nodes.len()];
    let mut in_paragraph = vec![false; nodes.len()];
    let mut prose = vec![false; nodes.len()];
    // Parents come before children in the preorder arena.
    for (i, n) in nodes.iter().enumerate() {
        let own = matches!(
            classes.kinds[i],
            Kind::Boilerplate | Kind::BoilerplateByClass
        );
        let parent = n.parent.map(NodeId::index);
        furniture[i] = own || parent.is_some_and(|p| furniture[p]);
        in_paragraph[i] = visible.prose_block[i] || parent.is_some_and(|p| in_paragraph[p]);
        prose[i] = in_paragraph[i] || visible.prose[i] > 0.0;
    }
    Parts {
        extraction,
        furniture,
        prose,
    }
}

/// What extraction keeps of the statistics of everything rendered, once it
/// has read the totals: a byte or a float per node, not a table of sums.
struct Visible {
    /// Never rendered (or inside what is not).
    excluded: Vec<bool>,
    /// Paragraph text of each subtree ([`candidate::prose`]).
    prose: Vec<f32>,
    /// A paragraph by the scoring's rule ([`candidate::is_prose_block`]).
    prose_block: Vec<bool>,
}

/// The extraction, the classes it ended with, and what it knows of
/// everything rendered.
fn extract_classified(page: &Page, options: &ExtractOptions) -> (Extraction, Classes, Visible) {
    let metadata = metadata::metadata(page);
    let body = page.body().unwrap_or(NodeId::DOCUMENT);
    let mut classes = classify::classify(page);
    let (visible, visible_chars) = {
        let stats = Stats::compute(page, &classes.kinds, |k| k == Kind::Removed);
        let prose_block = (0..page.len())
            .map(|i| candidate::is_prose_block(&stats, i))
            .collect();
        let chars = stats.total(body.index()).chars;
        let visible = Visible {
            prose: candidate::prose(page, &stats),
            prose_block,
            excluded: stats.excluded,
        };
        (visible, chars)
    };

    // Enough text beats a short article under its headline, which beats
    // too little text.
    let rank = |a: &Attempt| {
        if a.chars >= options.min_chars {
            2
        } else if a.anchored && a.chars >= MIN_ANCHORED_CHARS {
            1
        } else {
            0
        }
    };
    let mut best: Option<Attempt> = None;
    for use_classes in [true, false] {
        let Some(mut a) = attempt(page, &classes, use_classes, metadata.title.as_deref()) else {
            continue;
        };
        if use_classes
            && rescue_weak_furniture(page, &mut classes, &visible.prose, a.root)
            && let Some(again) = attempt(page, &classes, use_classes, metadata.title.as_deref())
        {
            a = again;
        }
        let enough = a.chars >= options.min_chars;
        if best
            .as_ref()
            .is_none_or(|b| (rank(&a), a.chars) > (rank(b), b.chars))
        {
            best = Some(a);
        }
        if enough {
            break;
        }
    }

    let fallback = match &best {
        None => Some(Fallback::NoArticle),
        // A small page that is all article is not a fallback.
        Some(a) if rank(a) == 0 && a.chars * 2 < visible_chars => Some(Fallback::TooLittleText {
            article_chars: a.chars,
            visible_chars,
        }),
        Some(_) => None,
    };
    let extraction = match (best, fallback) {
        (Some(a), None) => Extraction {
            root: a.root,
            dropped: ranges(page, &a.dropped),
            metadata,
            fallback: None,
            chars: a.chars,
            visible_chars,
        },
        (_, fallback) => {
            // The whole page, less what is never rendered.
            Extraction {
                root: body,
                dropped: ranges(page, &never_rendered(page, body, &visible)),
                metadata,
                fallback,
                chars: visible_chars,
                visible_chars,
            }
        }
    };
    (extraction, classes, visible)
}

/// The outermost subtrees under `body` that are never rendered.
fn never_rendered(page: &Page, body: NodeId, visible: &Visible) -> Vec<NodeId> {
    let mut dropped = Vec::new();
    let end = page.node(body).subtree_end.index();
    let mut i = body.index() + 1;
    while i < end {
        if visible.excluded[i] {
            dropped.push(NodeId::new(i as u32));
            i = page.node(NodeId::new(i as u32)).subtree_end.index();
        } else {
            i += 1;
        }
    }
    dropped
}

#[cfg(test)]
mod tests;
