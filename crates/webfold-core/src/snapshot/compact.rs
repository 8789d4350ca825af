//! The budgeted view's lines, said in fewer tokens.
//!
//! Playwright's AI snapshot is written for completeness; an agent acting on
//! a page needs each element's role, name, states and ref, the landmarks and
//! headings around it, and where links go. Measured over the corpus
//! (`tests/snapshot_tokens.rs`), a third of the default view's tokens said
//! none of that: `[cursor=pointer]` on links (11%), and the `listitem`,
//! `list` and `generic` wrappers above them (20%). So before the budget is spent
//! the tree is rewritten, line by line, into one that still reads back with
//! our parser (refs included) and tells the same things:
//!
//! - `[cursor=pointer]` is dropped on roles that are interactive anyway
//!   (links, buttons, inputs): the role already says "click me". It stays on
//!   other roles, where it is the only sign that a `generic` is clickable.
//! - `/url` says where a link goes, in the fewest characters that stay
//!   unambiguous: a link to the page's own origin prints as a root-relative
//!   path (`/blog/post?id=3`), resolved against the document's base
//!   (`<base href>`), so `../x` and absolute URLs read the same way. Other
//!   origins and schemes print as written, and so does everything when the
//!   page has no http(s) address. It is left out where it adds nothing:
//!   `javascript:` URLs, links to the page itself (pure `#fragment` jumps),
//!   and a URL equal to the link's name. URLs past [`URL_CAP`] characters
//!   (share links, tracking queries) end in `…`.
//! - Names past [`NAME_CAP`] characters (cards whose whole text is one
//!   link) end in `…`. A closing note says so whenever such a line is shown;
//!   `find` and `--full` print them whole.
//! - With `interactive_only`, wrapper lines that carry nothing but a ref
//!   (nameless, stateless `generic`, `list`, `listitem`, `paragraph`,
//!   `rowgroup` and inline text semantics) are left out and their children
//!   move up a level. They are never candidates in that mode and their text
//!   is never printed there, so the view loses no element, name, state or
//!   text; landmarks, headings, named groups, forms, tables, rows, cells and
//!   the body stay as the context agents need. Inside a live region
//!   (`status`, `alert`, `log`) nothing is left out: its text is printed,
//!   and a wrapper there may hold it. Their refs still resolve
//!   (`snapshot --ref`, `chunk --ref`), and the budget's closing line still
//!   names them as the place where cut elements are.
//!
//! What is not cut: `/url` itself. It is now the largest part of the view
//! (near half of its tokens); leaving it out would bring the default view
//! past 80% fewer tokens than the full snapshot, but agents use it to tell
//! links apart, to leave the site knowingly, and to collect links, and tools
//! that dropped it were asked to put it back.
//!
//! `--full` output is never rewritten: it stays byte-identical to
//! Playwright's. Budgeted views and diffs go through [`compact`] in the core,
//! so the CLI, the bridge and MCP print the same lines.

use url::Url;

use super::budget::Containers;
use super::parse::{Line, LineKind, SnapTree};
use super::priority::{is_interactive_role, is_live_region_role};
use crate::aria::{json_string, yaml_escape_key_if_needed, yaml_escape_value_if_needed};

/// Names longer than this many characters are cut with `…`.
pub const NAME_CAP: usize = 80;

/// URLs longer than this many characters are cut with `…`.
pub const URL_CAP: usize = 100;

/// Roles of wrappers that, nameless and stateless, say nothing in an
/// interactive-only view beyond holding their children.
const WRAPPER_ROLES: &[&str] = &[
    "generic",
    "list",
    "listitem",
    "paragraph",
    "rowgroup",
    "strong",
    "emphasis",
    "code",
    "mark",
    "time",
    "deletion",
    "insertion",
    "subscript",
    "superscript",
];

/// Where the page lives, for printing its links.
#[derive(Clone, Debug, Default)]
pub struct PageUrls {
    /// The page's own URL (http or https only; else links print as written).
    page: Option<Url>,
    /// What relative links resolve against: `<base href>` or the page.
    base: Option<Url>,
}

impl PageUrls {
    /// `url` is the page's address, `base_href` its first `<base href>`.
    pub fn new(url: &str, base_href: Option<&str>) -> PageUrls {
        let page = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        let base = match (base_href.map(str::trim).filter(|h| !h.is_empty()), &page) {
            (Some(h), Some(p)) => p.join(h).ok().or_else(|| Some(p.clone())),
            (None, p) => p.clone(),
            (Some(_), None) => None,
        };
        PageUrls { page, base }
    }

    /// How a link's `href` prints in the view, or `None` when it says nothing.
    pub fn display(&self, href: &str) -> Option<String> {
        let h = href.trim_matches(|c: char| c.is_ascii_whitespace());
        if h.is_empty()
            || h.starts_with('#')
            || h.get(..11)
                .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"))
        {
            return None;
        }
        let (Some(page), Some(base)) = (&self.page, &self.base) else {
            return Some(h.to_string());
        };
        let Ok(abs) = base.join(h) else {
            return Some(h.to_string());
        };
        if abs.origin() != page.origin() {
            // Another site: as written, unless it only makes sense against the base.
            let relative = !h.contains(':') || h.starts_with("//");
            return Some(if relative { abs.into() } else { h.to_string() });
        }
        if abs.path() == page.path() && abs.query() == page.query() {
            return None;
        }
        let mut s = abs.path().to_string();
        if let Some(q) = abs.query() {
            s.push('?');
            s.push_str(q);
        }
        if let Some(f) = abs.fragment() {
            s.push('#');
            s.push_str(f);
        }
        Some(s)
    }
}

/// A rewritten tree and where its lines came from.
#[derive(Clone, Debug)]
pub struct Compacted {
    pub tree: SnapTree,
    /// Line of the new tree → line of the input tree (32-bit: a line per
    /// node of the page).
    pub source: Vec<u32>,
    /// Per line of the new tree: its name or URL was cut with `…`.
    pub shortened: Vec<bool>,
    /// Where the input tree's cut elements are, for the budget's closing line.
    pub containers: Containers,
}

/// Rewrite `tree` for the budgeted view (see the module docs). The tree is
/// rewritten in place (a line kept moves to its place in the new tree,
/// never after where it was): a page's lines are held once, not twice.
pub fn compact(tree: SnapTree, urls: &PageUrls, interactive_only: bool) -> Compacted {
    let containers = Containers::of_tree(&tree);
    let SnapTree {
        header,
        footer,
        mut lines,
    } = tree;
    let n = lines.len();
    // Lines of the new tree written so far, at `lines[..written]`.
    let mut written = 0;
    let mut source = Vec::with_capacity(n);
    let mut shortened = Vec::with_capacity(n);
    // Per input line: the depth its children take.
    let mut child_depth = vec![0u32; n];
    // Per input line: its line in the new tree, or `NOT_KEPT` (a wrapper's
    // text and props go with it).
    const NOT_KEPT: u32 = u32::MAX;
    let mut new_index = vec![NOT_KEPT; n];
    // The names cut with `…`, as they were: a link's URL is compared with
    // its name as written.
    let mut names_before_cut: std::collections::HashMap<usize, Box<str>> = Default::default();
    // One past the last line of the live region being walked, if any.
    let mut live_end = 0;
    let mut i = 0;
    while i < n {
        let l = &lines[i];
        let depth = l.parent().map_or(0, |p| child_depth[p]);
        if l.kind == LineKind::Element && is_live_region_role(l.role()) {
            live_end = live_end.max(l.subtree_end());
        }
        // A live region's text is what the view keeps it for, and a wrapper
        // inside one may hold that text: keep the region's lines as they are.
        if interactive_only && i >= live_end && is_wrapper(l) {
            // Its own text and props never print in this mode; its elements move up.
            child_depth[i] = depth;
            i += 1;
            continue;
        }
        if l.kind != LineKind::Element && l.parent().is_some_and(|p| new_index[p] == NOT_KEPT) {
            // A wrapper's text or prop: left out with it.
            child_depth[i] = depth;
            i = l.subtree_end();
            continue;
        }
        let mut line = std::mem::take(&mut lines[i]);
        let mut was_cut = false;
        match line.kind {
            LineKind::Element => {
                let name = line
                    .name
                    .as_deref()
                    .filter(|n| n.chars().count() > NAME_CAP);
                let name = name.map(Box::<str>::from);
                was_cut = rewrite_key(&mut line);
                if let Some(name) = name {
                    names_before_cut.insert(i, name);
                }
            }
            LineKind::Prop if line.role() == "/url" => {
                // Its parent is kept (a dropped one's props go with it),
                // already written to the new tree.
                let parent_name = line.parent().and_then(|p| {
                    names_before_cut.get(&p).map(|n| &**n).or_else(|| {
                        lines[..written]
                            .get(new_index[p] as usize)
                            .and_then(|k: &Line| k.name.as_deref())
                    })
                });
                let shown = line
                    .value()
                    .and_then(|v| urls.display(v))
                    .filter(|u| Some(u.as_str()) != parent_name && line.value() != parent_name);
                let Some(mut u) = shown else {
                    child_depth[i] = depth;
                    i = line.subtree_end();
                    continue;
                };
                was_cut = cut(&mut u, URL_CAP);
                if Some(u.as_str()) != line.value() {
                    line.set_value(Some((&yaml_escape_value_if_needed(&u), &u)));
                }
            }
            _ => {}
        }
        line.set_depth(depth as usize);
        new_index[i] = written as u32;
        child_depth[i] = depth + 1;
        lines[written] = line;
        written += 1;
        source.push(i as u32);
        shortened.push(was_cut);
        i += 1;
    }
    lines.truncate(written);
    Compacted {
        tree: SnapTree::from_lines(header, lines, footer),
        source,
        shortened,
        containers,
    }
}

/// A line that holds only a ref: a nameless, stateless wrapper.
fn is_wrapper(l: &Line) -> bool {
    l.kind == LineKind::Element
        && WRAPPER_ROLES.contains(&l.role())
        && !l.cursor_pointer
        && l.name.as_deref().is_none_or(str::is_empty)
        && l.raw_value().is_none()
        && l.comment().is_none()
        // The body (`generic [active]`) stays the root, as in Playwright's output.
        && l.attrs().is_empty()
}

/// Drop a redundant `[cursor=pointer]` and cut a long name; true when the name was cut.
fn rewrite_key(line: &mut Line) -> bool {
    let drop_cursor = line.cursor_pointer && is_interactive_role(line.role());
    let mut name_cut = false;
    if let Some(n) = &mut line.name {
        let mut name = String::from(std::mem::take(n));
        name_cut = cut(&mut name, NAME_CAP);
        *n = name.into();
    }
    if !drop_cursor && !name_cut {
        return false;
    }
    if drop_cursor {
        line.cursor_pointer = false;
    }
    line.set_raw_key(&yaml_escape_key_if_needed(&key_text(line)));
    name_cut
}

/// The key as the renderer writes it: `role "name" [attr]… [ref=eN] [cursor=pointer]`.
fn key_text(l: &Line) -> String {
    let mut key = l.role().to_string();
    if let Some(n) = l.name.as_deref().filter(|n| !n.is_empty()) {
        key.push(' ');
        key.push_str(&json_string(n));
    }
    for (a, v) in l.attrs() {
        key.push_str(" [");
        key.push_str(a);
        if let Some(v) = v {
            key.push('=');
            key.push_str(v);
        }
        key.push(']');
    }
    if let Some(r) = &l.aria_ref {
        key.push_str(" [ref=");
        key.push_str(r);
        key.push(']');
        if l.cursor_pointer {
            key.push_str(" [cursor=pointer]");
        }
    }
    key
}

/// Cut `s` to `cap` characters, the last being `…`; true when it was cut.
fn cut(s: &mut String, cap: usize) -> bool {
    if s.chars().count() <= cap {
        return false;
    }
    let keep: String = s.chars().take(cap.saturating_sub(1)).collect();
    *s = format!("{}…", keep.trim_end());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_print_relative_to_the_page() {
        let u = PageUrls::new("https://ex.com/blog/post?x=1#top", None);
        assert_eq!(u.display("https://ex.com/about").as_deref(), Some("/about"));
        assert_eq!(u.display("../a/b?c=d#e").as_deref(), Some("/a/b?c=d#e"));
        assert_eq!(
            u.display("https://other.org/x").as_deref(),
            Some("https://other.org/x")
        );
        assert_eq!(
            u.display("//cdn.org/x").as_deref(),
            Some("https://cdn.org/x")
        );
        assert_eq!(u.display("mailto:a@b.c").as_deref(), Some("mailto:a@b.c"));
        assert_eq!(u.display("#comments"), None);
        assert_eq!(u.display("?x=1#reply"), None);
        assert_eq!(u.display("JavaScript:void(0)"), None);
        assert_eq!(u.display(" "), None);
        assert_eq!(u.display("?x=2").as_deref(), Some("/blog/post?x=2"));
    }

    #[test]
    fn base_href_decides_what_relative_links_mean() {
        let u = PageUrls::new("https://ex.com/a/b", Some("/docs/"));
        assert_eq!(u.display("intro").as_deref(), Some("/docs/intro"));
        let other = PageUrls::new("https://ex.com/a/b", Some("https://cdn.org/"));
        assert_eq!(other.display("x").as_deref(), Some("https://cdn.org/x"));
    }

    #[test]
    fn without_a_web_url_links_print_as_written() {
        for page in ["", "stdin", "file:///tmp/page.html"] {
            let u = PageUrls::new(page, None);
            assert_eq!(u.display("../x.html").as_deref(), Some("../x.html"));
            assert_eq!(
                u.display("https://ex.com/").as_deref(),
                Some("https://ex.com/")
            );
            assert_eq!(u.display("#top"), None);
        }
    }

    #[test]
    fn cut_counts_characters() {
        let mut s = "é".repeat(10);
        assert!(!cut(&mut s, 10));
        assert!(cut(&mut s, 5));
        assert_eq!(s, "éééé…");
    }
}
