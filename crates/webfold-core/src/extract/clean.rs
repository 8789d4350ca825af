//! Removing what is not article inside the chosen container: furniture by
//! tag/role/class, and Readability's "conditional cleaning" of containers
//! that look like link lists, image galleries, forms or ads — decided
//! bottom-up, so a container is judged after its inner junk is gone.

use super::candidate::Selection;
use super::classify::{ClassSignal, Classes, Kind};
use super::stats::{Counts, Stats, count_chars};
use crate::NodeId;
use crate::page::tags::{heading_level, is_heading};
use crate::page::{NodeData, Page};

/// Tags whose elements are judged by their statistics.
fn judged(tag: &str) -> bool {
    matches!(
        tag,
        "div"
            | "section"
            | "ul"
            | "ol"
            | "dl"
            | "table"
            | "form"
            | "fieldset"
            | "figure"
            | "center"
    )
}

/// Longest subtree scanned to tell a data table from a layout table; bigger
/// ones are taken as data (their rows are content either way).
const TABLE_SCAN_LIMIT: usize = 4000;

/// Data tables (rows of facts) are content; layout tables are judged like divs.
pub(crate) fn is_data_table(page: &Page, table: NodeId) -> bool {
    let e = match page.element(table) {
        Some(e) => e,
        None => return false,
    };
    if e.attr("role")
        .is_some_and(|r| r.eq_ignore_ascii_case("presentation"))
    {
        return false;
    }
    if e.attr("summary").is_some_and(|s| !s.trim().is_empty()) {
        return true;
    }
    let end = page.node(table).subtree_end.index();
    if end - table.index() > TABLE_SCAN_LIMIT {
        return true;
    }
    let mut rows = 0usize;
    let mut max_cols = 0usize;
    for d in page.descendants(table) {
        match page.tag(d) {
            Some("table") => return false,
            Some("caption") | Some("thead") | Some("tfoot") | Some("th") | Some("colgroup")
            | Some("col") => {
                return true;
            }
            Some("tr") => {
                rows += 1;
                let cols = page
                    .element_children(d)
                    .filter(|&c| matches!(page.tag(c), Some("td") | Some("th")))
                    .count();
                max_cols = max_cols.max(cols);
            }
            _ => {}
        }
    }
    rows >= 10 || max_cols > 4 || rows * max_cols > 10
}

/// Readability's `_cleanConditionally`, on bottom-up sums.
fn looks_like_junk(
    page: &Page,
    id: NodeId,
    c: &Counts,
    signal: ClassSignal,
    in_figure: bool,
) -> bool {
    let Some(e) = page.element(id) else {
        return false;
    };
    let tag = e.local_name();
    // Figures are illustrations and their captions: an article reads without
    // them (AEB's bodies leave them out, as trafilatura does). Code listings
    // and tables in figures are content.
    if matches!(tag, "figure" | "figcaption") {
        return c.code == 0 && c.tables == 0;
    }
    if !judged(tag) {
        return false;
    }
    if c.code > 0 {
        return false;
    }
    if tag == "table" && is_data_table(page, id) {
        return false;
    }
    let weight = signal.weight();
    if weight < 0.0 {
        return true;
    }
    if c.commas >= 10 {
        return false;
    }
    let is_list = matches!(tag, "ul" | "ol" | "dl")
        || (c.chars > 0 && c.list_chars as f32 / c.chars as f32 > 0.9);
    let p = c.paragraphs as f32;
    let img = c.images as f32;
    let li = c.list_items as f32 - 100.0;
    let heading_density = if c.chars == 0 {
        0.0
    } else {
        c.heading_chars as f32 / c.chars as f32
    };
    let ld = c.link_density();
    let len = c.chars;
    // Embeds (iframes, objects, players) never count against a block:
    // Readability removes them before it judges blocks, so a block keeps
    // its paragraphs whatever it embeds (Readability F1 0.953 → 0.955 on the
    // corpus when this stopped removing blocks with embeds; AEB and
    // trafilatura's set unchanged). The embeds themselves are never content.
    let remove = (img > 1.0 && p / img < 0.5 && !in_figure)
        || (!is_list && li > p)
        || (c.controls as f32 > (p / 3.0).floor())
        || (!is_list
            && heading_density < 0.9
            && len < 20
            && (img == 0.0 || img > 2.0)
            && !in_figure)
        || (!is_list && weight < 25.0 && ld > 0.2)
        || (weight >= 25.0 && ld > 0.5);
    if remove && is_list {
        // A list of images (a gallery in the article) stays.
        if c.images > 0 && c.images >= c.list_items && ld < 0.5 {
            return false;
        }
    }
    remove
}

/// The page's title, and whether its headline stands before the content
/// (outside the root).
#[derive(Clone, Copy)]
pub(crate) struct Title<'a> {
    pub text: &'a str,
    pub headline_outside: bool,
}

/// What to drop inside the selection's root: every excluded subtree
/// (hidden, scripts, furniture), the root's children not kept, and junk
/// containers. The top candidate itself is never dropped. Returns dropped
/// subtree roots in document order.
pub(crate) fn drops(
    page: &Page,
    classes: &Classes,
    furniture: impl Fn(Kind) -> bool,
    stats: &Stats,
    selection: &Selection,
    prose: &[f32],
    title: Option<Title<'_>>,
) -> Vec<NodeId> {
    let root = selection.root;
    let site = site_host(page);
    // The candidate was chosen for its prose: an element inside holding
    // half of it is the article's own wrapper, whatever its class says.
    let core = 0.5 * prose[selection.top.index()];
    let keep = &selection.keep;
    let headline_outside = title.is_some_and(|t| t.headline_outside);
    let title = title
        .map(|t| (t.text, count_chars(t.text)))
        .filter(|&(_, n)| n > 0);
    let start = root.index();
    let end = page.node(root).subtree_end.index();
    let in_figure = in_figure(page, start, end);
    let restricted = selection.restricted();
    let part = if restricted {
        parts(page, root, keep)
    } else {
        Vec::new()
    };
    let outside = |id: NodeId| restricted && part[id.index() - start] == Part::Outside;
    // Elements that repeat the title: the first is the headline (the header
    // shows it); the others are section headings that echo it. When the
    // headline stands before the content, only a verbatim copy is one.
    let mut title_copies = Vec::new();
    let (_, mut dropped) = stats.accumulate(page, root, |id, c| {
        if id == selection.top {
            return false;
        }
        if outside(id) {
            return true;
        }
        if furniture(classes.kinds[id.index()]) {
            return true;
        }
        if core > 0.0 && prose[id.index()] >= core {
            return false;
        }
        if let Some((t, t_chars)) = title
            && let Some(exact) = title_copy(page, id, c, t, t_chars)
        {
            title_copies.push((id, exact));
            return false;
        }
        if points_elsewhere(page, id, c, site.as_deref()) {
            return true;
        }
        looks_like_junk(
            page,
            id,
            c,
            classes.signals[id.index()],
            in_figure[id.index() - start],
        )
    });
    dropped.extend(headline_copy(&title_copies, headline_outside));
    // Text beside the kept parts (under `root` or an ancestor of a part) is not content.
    if restricted {
        dropped.extend(
            (start + 1..end)
                .map(|i| NodeId::new(i as u32))
                .filter(|&id| outside(id) && !page.is_element(id) && !stats.excluded[id.index()]),
        );
    }
    dropped.extend(excluded_roots(page, stats, start, end));
    let dropped = outermost(page, dropped);
    drop_orphan_headings(page, root, dropped)
}

/// The copy of the title that is the headline, to drop since the header
/// shows it: the first, or the first verbatim one when the headline stands
/// before the content. `copies` holds (element, verbatim).
fn headline_copy(copies: &[(NodeId, bool)], headline_outside: bool) -> Option<NodeId> {
    copies
        .iter()
        .filter(|&&(_, exact)| exact || !headline_outside)
        .map(|&(id, _)| id)
        .min()
}

/// Excluded subtrees (scripts, hidden, furniture) inside the root, whose
/// nodes are `start..end`.
fn excluded_roots(page: &Page, stats: &Stats, start: usize, end: usize) -> Vec<NodeId> {
    (start + 1..end)
        .filter(|&i| {
            let p = page
                .parent(NodeId::new(i as u32))
                .map(|p| p.index())
                .unwrap_or(0);
            stats.excluded[i] && !stats.excluded[p]
        })
        .map(|i| NodeId::new(i as u32))
        .collect()
}

/// Per node of `start..end`: inside a `<figure>` (images there are
/// illustrations, not a gallery of links).
fn in_figure(page: &Page, start: usize, end: usize) -> Vec<bool> {
    let mut in_figure = vec![false; end - start];
    for i in start..end {
        let id = NodeId::new(i as u32);
        let own = page.tag(id) == Some("figure");
        let parent = page.parent(id).map(|p| p.index()).filter(|&p| p >= start);
        in_figure[i - start] = own || parent.is_some_and(|p| in_figure[p - start]);
    }
    in_figure
}

/// Whether element `id` repeats the title `t` (of `t_chars` characters):
/// `Some(true)` for the same text, `Some(false)` for a short h1 or h2 that
/// is mostly the title, `None` when it is neither.
fn title_copy(page: &Page, id: NodeId, c: &Counts, t: &str, t_chars: u32) -> Option<bool> {
    if c.chars * 5 >= t_chars * 4
        && c.chars * 4 <= t_chars * 5
        && same_text(&page.text_content(id), t)
    {
        return Some(true);
    }
    if matches!(page.tag(id), Some("h1") | Some("h2"))
        && c.chars < 400
        && mostly_in(&page.text_content(id), t)
    {
        return Some(false);
    }
    None
}

/// Whether element `id` only points to other pages: a short paragraph that
/// is all link to another page of the site ("Read: …"; one to another site
/// is a source), or a short cross-link line.
fn points_elsewhere(page: &Page, id: NodeId, c: &Counts, site: Option<&str>) -> bool {
    if page.tag(id) == Some("p")
        && c.chars < LINK_PARAGRAPH_MAX_CHARS
        && c.link_chars * 20 >= c.chars * 19
        && links_stay_on_site(page, id, site)
    {
        return true;
    }
    c.chars <= CROSS_LINK_MAX_CHARS
        && page
            .tag(id)
            .is_some_and(|t| is_heading(t) || matches!(t, "p" | "div" | "li" | "strong" | "b"))
        && is_cross_link(&page.text_content(id), c.link_density())
}

/// Sorted, without duplicates or drops nested in other drops.
fn outermost(page: &Page, mut dropped: Vec<NodeId>) -> Vec<NodeId> {
    dropped.sort_unstable();
    dropped.dedup();
    let mut out: Vec<NodeId> = Vec::with_capacity(dropped.len());
    for d in dropped {
        if let Some(&last) = out.last()
            && page.is_ancestor_of(last, d)
        {
            continue;
        }
        out.push(d);
    }
    out
}

/// Longest heading (non-whitespace chars) dropped for heading nothing.
const ORPHAN_MAX_CHARS: u32 = 60;

/// Headings that head nothing: everything after them, up to the next
/// heading of their level or above, was dropped ("Related articles" over a
/// dropped link list). One forward walk that jumps over dropped subtrees,
/// with a stack of the headings still waiting for content.
fn drop_orphan_headings(page: &Page, root: NodeId, dropped: Vec<NodeId>) -> Vec<NodeId> {
    let end = page.node(root).subtree_end.index();
    let mut orphans = Vec::new();
    let mut pending: Vec<(u8, NodeId)> = Vec::new();
    let mut next_drop = 0;
    let mut i = root.index() + 1;
    while i < end {
        let id = NodeId::new(i as u32);
        while next_drop < dropped.len() && dropped[next_drop] < id {
            next_drop += 1;
        }
        if dropped.get(next_drop) == Some(&id) {
            i = page.node(id).subtree_end.index();
            continue;
        }
        match &page.node(id).data {
            NodeData::Element(e) => {
                if let Some(level) = heading_level(e.local_name()) {
                    while pending.last().is_some_and(|&(l, _)| l >= level) {
                        orphans.extend(pending.pop().map(|(_, h)| h));
                    }
                    pending.push((level, id));
                    i = page.node(id).subtree_end.index();
                    continue;
                }
                if matches!(e.local_name(), "img" | "picture" | "table" | "pre") {
                    pending.clear();
                }
            }
            NodeData::Text(t) if !t.trim().is_empty() => pending.clear(),
            _ => {}
        }
        i += 1;
    }
    orphans.extend(pending.into_iter().map(|(_, h)| h));
    // A long heading is a statement (a deck, a pull quote), not a label.
    orphans.retain(|&h| count_chars(&page.text_content(h)) <= ORPHAN_MAX_CHARS);
    if orphans.is_empty() {
        return dropped;
    }
    let mut all = dropped;
    all.extend(orphans);
    outermost(page, all)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Neither in a kept part nor above one.
    Outside,
    /// An ancestor of a kept part (inside `root`).
    Path,
    Inside,
}

/// Where each node of `root`'s subtree (indexed from `root`) lies relative
/// to the kept parts: one forward pass, plus one walk up per part that stops
/// at the first ancestor already marked.
fn parts(page: &Page, root: NodeId, keep: &[NodeId]) -> Vec<Part> {
    let start = root.index();
    let end = page.node(root).subtree_end.index();
    let mut part = vec![Part::Outside; end - start];
    part[0] = Part::Path;
    for &k in keep {
        if k.index() < start || k.index() >= end {
            continue;
        }
        let mut cur = page.parent(k);
        // `root` is marked already, so every walk ends at or below it.
        while let Some(p) = cur {
            if p.index() < start || part[p.index() - start] == Part::Path {
                break;
            }
            part[p.index() - start] = Part::Path;
            cur = page.parent(p);
        }
    }
    let mut k = 0;
    let mut i = start;
    while i < end {
        while k < keep.len() && keep[k].index() < i {
            k += 1;
        }
        if k < keep.len() && keep[k].index() == i {
            let e = page.node(keep[k]).subtree_end.index();
            for p in &mut part[i - start..e - start] {
                *p = Part::Inside;
            }
            i = e;
        } else {
            i += 1;
        }
    }
    part
}

/// The page's own host, from its canonical URL (or `og:url`, `<base>`).
fn site_host(page: &Page) -> Option<String> {
    let head = page.head()?;
    let mut found = None;
    for n in page.descendants(head) {
        let Some(e) = page.element(n) else { continue };
        let url = match e.local_name() {
            "link"
                if e.attr("rel")
                    .is_some_and(|r| r.eq_ignore_ascii_case("canonical")) =>
            {
                e.attr("href")
            }
            "meta" if e.attr("property") == Some("og:url") => e.attr("content"),
            "base" => e.attr("href"),
            _ => None,
        };
        if let Some(h) = url.and_then(host_of) {
            found = Some(h.to_ascii_lowercase());
            if e.local_name() == "link" {
                break;
            }
        }
    }
    found
}

/// The host of an absolute (or scheme-relative) URL, without `www.`.
fn host_of(url: &str) -> Option<&str> {
    let url = url.trim();
    let rest = url
        .split_once("://")
        .filter(|(scheme, _)| {
            scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
        })
        .map(|(_, rest)| rest)
        .or_else(|| url.strip_prefix("//"))?;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit('@').next()?.split(':').next()?;
    Some(host.strip_prefix("www.").unwrap_or(host)).filter(|h| !h.is_empty())
}

/// Whether every link under `id` goes to a page of this site: a relative
/// URL, or an absolute one on the page's own host.
fn links_stay_on_site(page: &Page, id: NodeId, site: Option<&str>) -> bool {
    page.subtree(id).all(|n| {
        let Some(e) = page.element(n) else {
            return true;
        };
        if e.local_name() != "a" {
            return true;
        }
        let href = e.attr("href").unwrap_or("").trim();
        if href.starts_with("mailto:") || href.starts_with("tel:") {
            return false;
        }
        match host_of(href) {
            None => !href.contains(':') || href.starts_with("javascript:"),
            Some(h) => site.is_some_and(|s| h.eq_ignore_ascii_case(s)),
        }
    })
}

/// Longest paragraph (non-whitespace chars) dropped for being all link.
const LINK_PARAGRAPH_MAX_CHARS: u32 = 60;

/// Longest block (non-whitespace chars) taken for a "read also" pointer.
const CROSS_LINK_MAX_CHARS: u32 = 160;

/// Openers of pointers to other pages that newsrooms put between paragraphs
/// ("Lea también: …", "Read more: …") and labels of the link blocks after
/// an article, lower case.
const CROSS_LINK_OPENERS: &[&str] = &[
    "read also",
    "also read",
    "read more",
    "see also",
    "related",
    "related articles",
    "related posts",
    "related stories",
    "more stories",
    "you might also like",
    "you may also like",
    "more on this",
    "lea también",
    "lea además",
    "lea más",
    "lea",
    "lee también",
    "lee",
    "mira",
    "mire",
    "vea también",
    "vea",
    "ver también",
    "puedes ver",
    "le puede interesar",
    "te puede interesar",
    "noticias relacionadas",
    "leia também",
    "leia mais",
    "veja também",
    "lire aussi",
    "à lire aussi",
    "lire également",
    "voir aussi",
    "à voir aussi",
    "leggi anche",
    "czytaj też",
    "czytaj także",
    "zobacz też",
    "zobacz także",
    "lesen sie auch",
    "lesen sie mehr",
    "auch lesen",
    "auch interessant",
    "das könnte sie auch interessieren",
    "das könnte dich auch interessieren",
    "schon gelesen",
    "weitere artikel",
    "weitere beiträge",
    "ähnliche beiträge",
    "ähnliche artikel",
    "empfohlene beiträge",
    "zum weiterlesen",
    "mehr zum thema",
    "siehe auch",
];

/// A "read also" pointer: a known opener followed by a colon or a link, or
/// standing alone as a label.
fn is_cross_link(text: &str, link_density: f32) -> bool {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    CROSS_LINK_OPENERS.iter().any(|o| {
        let Some(rest) = t.strip_prefix(o) else {
            return false;
        };
        if rest.starts_with(char::is_alphanumeric) {
            return false;
        }
        let rest = rest.trim_start();
        rest.is_empty()
            || rest.starts_with([':', '?', '!', '»', '|'])
            || link_density >= 0.5
            || rest.chars().all(|c| !c.is_alphanumeric())
    })
}

fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

/// A heading that says the title again in other words: three quarters of
/// its words are the title's (Readability's `_headerDuplicatesTitle` test).
pub(super) fn mostly_in(heading: &str, title: &str) -> bool {
    let title_words: std::collections::HashSet<String> = words(title).collect();
    let (mut all, mut shared) = (0usize, 0usize);
    for w in words(heading) {
        all += 1;
        shared += usize::from(title_words.contains(&w));
    }
    all >= 2 && shared * 4 >= all * 3
}

/// Headline repeated in the body (the header shows it already).
pub(super) fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (normalize(a), normalize(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    a == b
        || (a.len() >= 20 && b.contains(&a))
        || (b.len() >= 20 && a.contains(&b) && b.len() * 4 >= a.len() * 3)
}
