//! Snapshot state kept per conversation and page name (seed 001's session).
//!
//! - Navigation history: the last [`HISTORY_SIZE`] pages, of which the last
//!   [`BREADCRUMB_SIZE`] print as `# Navigation: A → B → C`
//!   (`# Currently on: A` for one); a page without a title shows its URL path.
//! - Stable refs: a later snapshot gives an element the ref it had while its
//!   role and name are unchanged (Playwright caches refs on elements; we match
//!   role + name + DOM position, then role + name in order). On the same URL,
//!   new elements get numbers after the last one handed out, so an old ref
//!   never points at a different element of that page. On another page of
//!   the same site, elements found again (the site's chrome) keep their refs,
//!   which is what makes a deduped `(unchanged since previous page)` line's
//!   refs usable; the rest are numbered as on a fresh page, around them.
//! - What the next snapshot compares against: the previous full tree (for
//!   diffs) and its navigation-pattern hashes (for same-site dedup).
//!
//! Everything is serde-serializable: the CLI keeps it in `--session FILE`, the
//! server per conversation.

use std::collections::{HashMap, VecDeque};

use super::dedup::{chrome_roots, subtree_hash};
use super::parse::SnapTree;

/// Pages kept in the navigation history.
pub const HISTORY_SIZE: usize = 10;
/// Pages shown in the breadcrumb line.
pub const BREADCRUMB_SIZE: usize = 5;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HistoryEntry {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl HistoryEntry {
    /// The title, or the URL's path when there is none.
    pub fn label(&self) -> String {
        match &self.title {
            Some(t) if !t.trim().is_empty() => t.trim().to_string(),
            _ => url_path(&self.url),
        }
    }
}

/// The identity of a ref'd element, to find it again in a later snapshot.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefIdentity {
    #[serde(rename = "ref")]
    pub aria_ref: String,
    pub role: String,
    #[serde(default)]
    pub name: String,
    /// Hash of the element's DOM position (tag and sibling index chain); 0 when unknown.
    #[serde(default)]
    pub dom: u64,
}

/// The last full snapshot taken in the session.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PreviousSnapshot {
    pub url: String,
    /// `ai` or `aria`: diffs compare like with like.
    pub mode: String,
    /// The full tree (before budget, dedup or diff), refs as shown.
    pub yaml: String,
    /// A hash of the page's markup: while it is unchanged, `refs` resolve
    /// without rebuilding the snapshot (0 when unknown).
    #[serde(default)]
    pub markup: u64,
    pub refs: Vec<RefIdentity>,
    /// Navigation-pattern hashes of its navigation/banner/contentinfo subtrees.
    pub nav: Vec<u64>,
    /// Per such subtree, the refs of its elements in order.
    #[serde(default)]
    pub chrome_refs: Vec<Vec<Option<String>>>,
}

/// One page name's snapshot session.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotSession {
    /// Oldest first, at most [`HISTORY_SIZE`].
    pub history: VecDeque<HistoryEntry>,
    /// The highest ref number handed out on the current page.
    pub last_ref: u64,
    pub previous: Option<PreviousSnapshot>,
}

impl SnapshotSession {
    pub fn new() -> Self {
        Self::default()
    }

    /// Record a visit. Seed 001 records a page when the URL changes; a
    /// repeated snapshot of the same URL refreshes its title only.
    pub fn record_navigation(&mut self, url: &str, title: Option<&str>) {
        let title = title.map(str::to_string).filter(|t| !t.trim().is_empty());
        if let Some(last) = self.history.back_mut()
            && last.url == url
        {
            if title.is_some() {
                last.title = title;
            }
            return;
        }
        self.history.push_back(HistoryEntry {
            url: url.to_string(),
            title,
        });
        while self.history.len() > HISTORY_SIZE {
            self.history.pop_front();
        }
    }

    /// `# Currently on: A` or `# Navigation: A → B → C` (last five pages).
    /// A page with neither address nor title (HTML given inline) has no
    /// name to show, and no line.
    pub fn breadcrumbs(&self) -> Option<String> {
        let n = self.history.len();
        let recent: Vec<String> = self
            .history
            .iter()
            .skip(n.saturating_sub(BREADCRUMB_SIZE))
            .map(|h| one_line(&h.label()))
            .filter(|l| !l.is_empty())
            .collect();
        match recent.as_slice() {
            [] => None,
            [one] => Some(format!("# Currently on: {one}")),
            _ => Some(format!("# Navigation: {}", recent.join(" → "))),
        }
    }

    /// Whether a snapshot of the current page handed out `aria_ref`: refs
    /// are numbered up from 1 and never reused on a page, so one past the
    /// count was never issued (a typo, or another page's numbering), unlike
    /// one whose element has gone since.
    pub fn issued(&self, aria_ref: &str) -> bool {
        ref_number(aria_ref).is_some_and(|n| (1..=self.last_ref).contains(&n))
    }

    /// The previous snapshot if it was of `url` in `mode`.
    pub fn previous_of(&self, url: &str, mode: &str) -> Option<&PreviousSnapshot> {
        self.previous
            .as_ref()
            .filter(|p| p.url == url && p.mode == mode)
    }

    /// The previous snapshot if it was of another page on `url`'s site.
    pub fn previous_same_site(&self, url: &str) -> Option<&PreviousSnapshot> {
        let host = site_of(url)?;
        self.previous
            .as_ref()
            .filter(|p| p.url != url && site_of(&p.url).as_deref() == Some(host.as_str()))
    }

    /// Give `tree`'s refs their session numbers and return the identities to
    /// remember. `dom[k]` is the DOM position hash of the k-th element line
    /// (0 when unknown).
    ///
    /// - Same URL as the previous snapshot: an element keeps its ref while its
    ///   role and name are unchanged (matched by role, name and DOM position,
    ///   then by role and name in order); new elements continue the count.
    /// - Another page of the same site: elements of each navigation, banner
    ///   or contentinfo subtree identical to one on the previous page take
    ///   that subtree's refs, in order (what dedup prints as one line stays
    ///   usable); everything else is numbered as on a fresh page, around them.
    /// - Otherwise: a fresh page's numbers.
    pub fn stabilize_refs(
        &mut self,
        tree: &mut SnapTree,
        url: &str,
        dom: &[u64],
    ) -> Vec<RefIdentity> {
        let element_lines: Vec<usize> = (0..tree.lines.len())
            .filter(|&i| tree.lines[i].is_element())
            .collect();
        let mut dom_of_line = vec![0u64; tree.lines.len()];
        for (k, &i) in element_lines.iter().enumerate() {
            dom_of_line[i] = dom.get(k).copied().unwrap_or(0);
        }
        // Only an AI-mode snapshot has refs to carry.
        let previous = self.previous.as_ref().filter(|p| p.mode == "ai");
        let same_url = previous.is_some_and(|p| p.url == url);
        let mut assigned: Vec<Option<String>> = vec![None; tree.lines.len()];
        match previous {
            Some(p) if same_url => {
                match_identities(tree, &element_lines, &dom_of_line, &p.refs, &mut assigned)
            }
            Some(p) if same_site(&p.url, url) => match_chrome(tree, p, &mut assigned),
            _ => {}
        }

        // Numbers for the rest: after the last one on the same URL (as
        // Playwright's counter goes on); on a new page the renderer's own,
        // unless a carried-over ref took that number.
        let taken: std::collections::HashSet<u64> = assigned
            .iter()
            .flatten()
            .filter_map(|r| ref_number(r))
            .collect();
        let mut next = if same_url {
            self.last_ref
        } else {
            let defaults = element_lines
                .iter()
                .filter_map(|&i| tree.lines[i].aria_ref.as_deref().and_then(ref_number));
            defaults.chain(taken.iter().copied()).max().unwrap_or(0)
        };
        for &i in &element_lines {
            if assigned[i].is_some() {
                continue;
            }
            let Some(n) = tree.lines[i].aria_ref.as_deref().and_then(ref_number) else {
                continue;
            };
            if same_url || taken.contains(&n) {
                next += 1;
                assigned[i] = Some(format!("e{next}"));
            }
        }

        let mut identities = Vec::new();
        for &i in &element_lines {
            let Some(current) = tree.lines[i].aria_ref.as_deref().map(String::from) else {
                continue;
            };
            if let Some(new_ref) = assigned[i].take()
                && new_ref != current
            {
                set_ref(&mut tree.lines[i], &new_ref);
            }
            let l = &tree.lines[i];
            identities.push(RefIdentity {
                aria_ref: l.aria_ref.as_deref().unwrap_or_default().to_string(),
                role: l.role().to_string(),
                name: l.name.as_deref().unwrap_or_default().to_string(),
                dom: dom_of_line[i],
            });
        }
        let max = identities
            .iter()
            .filter_map(|id| ref_number(&id.aria_ref))
            .max()
            .unwrap_or(0);
        self.last_ref = if same_url { max.max(next) } else { max };
        identities
    }
}

/// Same page: old refs go to elements with the same role, name and DOM
/// position, then to the remaining ones with the same role and name, in order.
fn match_identities(
    tree: &SnapTree,
    element_lines: &[usize],
    dom: &[u64],
    previous: &[RefIdentity],
    assigned: &mut [Option<String>],
) {
    let eligible = |i: usize| is_main_frame_ref(tree.lines[i].aria_ref.as_deref());
    let mut used = vec![false; previous.len()];
    let mut exact: HashMap<(&str, &str, u64), VecDeque<usize>> = HashMap::new();
    for (j, p) in previous.iter().enumerate() {
        if p.dom != 0 {
            exact
                .entry((p.role.as_str(), p.name.as_str(), p.dom))
                .or_default()
                .push_back(j);
        }
    }
    for &i in element_lines {
        let l = &tree.lines[i];
        if !eligible(i) || dom[i] == 0 {
            continue;
        }
        let key = (l.role(), l.name.as_deref().unwrap_or(""), dom[i]);
        if let Some(j) = exact.get_mut(&key).and_then(VecDeque::pop_front) {
            used[j] = true;
            assigned[i] = Some(previous[j].aria_ref.clone());
        }
    }
    let mut by_name: HashMap<(&str, &str), VecDeque<usize>> = HashMap::new();
    for (j, p) in previous.iter().enumerate() {
        if !used[j] {
            by_name
                .entry((p.role.as_str(), p.name.as_str()))
                .or_default()
                .push_back(j);
        }
    }
    for &i in element_lines {
        let l = &tree.lines[i];
        if assigned[i].is_some() || !eligible(i) {
            continue;
        }
        if let Some(j) = by_name
            .get_mut(&(l.role(), l.name.as_deref().unwrap_or("")))
            .and_then(VecDeque::pop_front)
        {
            assigned[i] = Some(previous[j].aria_ref.clone());
        }
    }
}

/// Another page of the site: each chrome subtree identical (same hash) to
/// one of the previous page takes its refs, element by element in order.
fn match_chrome(tree: &SnapTree, previous: &PreviousSnapshot, assigned: &mut [Option<String>]) {
    let mut unused: Vec<bool> = vec![true; previous.nav.len()];
    for root in chrome_roots(tree) {
        let hash = subtree_hash(tree, root);
        let Some(j) = (0..previous.nav.len()).find(|&j| unused[j] && previous.nav[j] == hash)
        else {
            continue;
        };
        unused[j] = false;
        let Some(old) = previous.chrome_refs.get(j) else {
            continue;
        };
        let lines = (root..tree.lines[root].subtree_end()).filter(|&i| tree.lines[i].is_element());
        for (i, old_ref) in lines.zip(old) {
            if let Some(r) = old_ref
                && is_main_frame_ref(tree.lines[i].aria_ref.as_deref())
            {
                assigned[i] = Some(r.clone());
            }
        }
    }
}

/// Per chrome subtree (in [`nav_pattern`](super::dedup::nav_pattern) order),
/// the refs of its element lines in order.
pub fn chrome_refs(tree: &SnapTree) -> Vec<Vec<Option<String>>> {
    chrome_roots(tree)
        .into_iter()
        .map(|root| {
            (root..tree.lines[root].subtree_end())
                .filter(|&i| tree.lines[i].is_element())
                .map(|i| tree.lines[i].aria_ref.as_deref().map(String::from))
                .collect()
        })
        .collect()
}

/// Rewrite the ref inside a line's key. The ref is the last `[ref=…]` of the
/// key: the name (which could contain that text) comes before the states.
fn set_ref(line: &mut super::parse::Line, new_ref: &str) {
    if let Some(old) = &line.aria_ref {
        let needle = format!("[ref={old}]");
        if let Some(pos) = line.raw_key().rfind(&needle) {
            let mut key = line.raw_key().to_string();
            key.replace_range(pos..pos + needle.len(), &format!("[ref={new_ref}]"));
            line.set_raw_key(&key);
        }
    }
    line.aria_ref = Some(new_ref.into());
}

/// `e12` → 12; frame refs (`f1e3`) have no main-frame number.
fn ref_number(r: &str) -> Option<u64> {
    r.strip_prefix('e')?.parse().ok()
}

fn is_main_frame_ref(r: Option<&str>) -> bool {
    r.is_some_and(|r| ref_number(r).is_some())
}

/// The site of a URL: its host (`example.com`), or `None` for non-URLs.
pub fn site_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .map(|h| h.trim_start_matches("www.").to_ascii_lowercase())
}

fn same_site(a: &str, b: &str) -> bool {
    matches!((site_of(a), site_of(b)), (Some(x), Some(y)) if x == y)
}

/// The path of a URL (`/docs/intro`), or the string itself when it is not one.
fn url_path(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if !u.cannot_be_a_base() => u.path().to_string(),
        _ => url.to_string(),
    }
}

/// Titles can hold newlines; a breadcrumb is one comment line.
fn one_line(s: &str) -> String {
    crate::page::collapse_whitespace(s)
}
