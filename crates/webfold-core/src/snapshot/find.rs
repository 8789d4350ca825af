//! Search the snapshot instead of reading all of it (`webfold find`).
//!
//! A query is plain text (case-insensitive, whitespace-collapsed substring) or
//! `/regex/` (with an optional `i` flag: `/sign ?in/i`). It is matched against
//! each element's name, its inline value, its text children and its props
//! (`/url`, `/placeholder`); a text or prop match is reported on the element
//! it belongs to. Each match prints as its ancestor path (a comment line,
//! nameless generic wrappers left out) followed by its first few snapshot
//! lines, refs included, so an agent can act on it or unfold it with
//! `snapshot --ref` / `chunk --ref`. A match that already shows among an
//! earlier match's lines is not printed again. Matches come in document
//! order; with a `focus` (a task in words), those the task points at come
//! first, the strongest first (see [`crate::purpose::TaskFocus`]).

use super::parse::{LineKind, SnapTree, push_line};
use crate::contract::{Ctx, Handle, Hint, Limit, Request, Surface};

use super::budget::focus_score;
pub use super::def::FIND as NAME;
use crate::error::Error;
use crate::page::collapse_whitespace;
use crate::purpose::TaskFocus;
use crate::tokens;

/// Defaults for [`FindOptions`].
pub const DEFAULT_MAX_MATCHES: usize = 20;
pub const DEFAULT_LINES_PER_MATCH: usize = 4;

/// Tokens kept for the `# N more not shown` line.
const CLOSING_RESERVE: usize = 40;

/// A parsed query.
#[derive(Clone, Debug)]
pub enum Query {
    /// Lower-cased, whitespace-collapsed text.
    Text(String),
    Regex(regex::Regex),
}

impl Query {
    /// `/…/` or `/…/i` is a regex; anything else is text.
    pub fn parse(q: &str) -> Result<Query, Error> {
        let regex_body = q.strip_prefix('/').and_then(|r| {
            r.strip_suffix("/i")
                .map(|b| (b, true))
                .or_else(|| r.strip_suffix('/').map(|b| (b, false)))
        });
        match regex_body {
            Some((body, ci)) if !body.is_empty() => regex::RegexBuilder::new(body)
                .case_insensitive(ci)
                .size_limit(1 << 20)
                .build()
                .map(Query::Regex)
                .map_err(|e| {
                    // The regex crate's message spans lines (a caret under the spot); keep its last.
                    let msg = e.to_string();
                    let reason = msg.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().trim_start_matches("error: ").to_string();
                    Error::InvalidOption(format!("invalid regex /{body}/: {reason}; write plain text to search for it literally"))
                }),
            _ => {
                let t = collapse_whitespace(q).to_lowercase();
                if t.is_empty() {
                    return Err(Error::InvalidOption("empty query: give the text or /regex/ to look for".into()));
                }
                Ok(Query::Text(t))
            }
        }
    }

    pub fn matches(&self, s: &str) -> bool {
        match self {
            Query::Text(t) => s.to_lowercase().contains(t.as_str()),
            Query::Regex(r) => r.is_match(s),
        }
    }
}

/// The find view's request (see [`crate::contract`]): what to look for and how much to show.
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct FindOptions {
    /// Text (case-insensitive) or /regex/ to find in names, values, text and URLs
    pub query: String,
    /// ai (with refs) or aria
    pub mode: crate::aria::Mode,
    /// Matches shown at most
    #[schemars(range(min = 1))]
    pub max_matches: usize,
    /// Snapshot lines shown per match
    #[serde(rename = "lines")]
    #[schemars(range(min = 1))]
    pub lines_per_match: usize,
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: usize,
    /// A task: matches it names first
    pub focus: Option<String>,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            query: String::new(),
            mode: crate::aria::Mode::Ai,
            max_matches: DEFAULT_MAX_MATCHES,
            lines_per_match: DEFAULT_LINES_PER_MATCH,
            max_tokens: crate::contract::DEFAULT_MAX_TOKENS,
            focus: None,
        }
    }
}

impl Request for FindOptions {
    fn validate(&self, surface: Surface) -> Result<(), Error> {
        if self.query.trim().is_empty() {
            return Err(Error::InvalidOption(format!(
                "say what to find: {} is empty; give text (matched ignoring case) or a /regex/",
                crate::contract::parse::option_name("query", surface)
            )));
        }
        Ok(())
    }
}

/// One matching element.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FindMatch {
    /// Line index in the snapshot tree.
    #[serde(skip)]
    pub line: usize,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub aria_ref: Option<String>,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ancestors from the top, as `role "name" [ref=…]`.
    pub path: Vec<String>,
    /// The first lines of its subtree, re-indented to the top level.
    pub lines: Vec<String>,
}

/// The matches and their rendering.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FindResult {
    pub query: String,
    /// Matching elements in the page (all of them, printed or not).
    pub total: usize,
    pub matches: Vec<FindMatch>,
    pub text: String,
    pub tokens: usize,
}

/// Find the elements of `tree` matching `query`, within `options.max_tokens`;
/// a budget too small for even the header and the closing note is an error.
pub fn find_in_tree(
    tree: &SnapTree,
    query_text: &str,
    query: &Query,
    options: &FindOptions,
    ctx: Ctx,
) -> Result<FindResult, Error> {
    let mut hits = matching_elements(tree, query);
    if let Some(focus) = options.focus.as_deref().and_then(TaskFocus::new) {
        // Stable: document order among equals.
        hits.sort_by_key(|&i| std::cmp::Reverse(focus_score(tree, i, &focus).unwrap_or(0)));
    }
    let total = hits.len();
    let header = format!(
        "# {total} match{} for {query_text:?}",
        if total == 1 { "" } else { "es" }
    );
    let mut list = match_blocks(
        tree,
        &hits,
        tokens::count(&header, ctx.encoding),
        (options, ctx),
    );
    // Assemble, and give back matches should the whole count exceed the budget.
    let (text, tokens) = loop {
        let mut text = header.clone();
        for (_, b) in &list.blocks {
            text.push_str(b);
        }
        let left = total - list.blocks.len() - list.skipped;
        if left > 0 {
            // Name the limit that stopped the list, not always the budget.
            let limit = if list.match_limit && list.blocks.len() >= options.max_matches {
                Limit::MaxMatches
            } else {
                Limit::MaxTokens
            };
            text.push_str(&format!(
                "\n# {left} more not shown: narrow the query, or raise {}",
                Hint::Raise(limit, None).spell(ctx.surface)
            ));
        }
        let n = tokens::count(&text, ctx.encoding);
        if n <= options.max_tokens {
            break (text, n);
        }
        if list.blocks.pop().is_none() {
            return Err(Error::BudgetTooSmall {
                what: "the list of matches".into(),
                needed: n,
                max_tokens: options.max_tokens,
                advice: format!(
                    "raise {}",
                    Hint::Raise(Limit::MaxTokens, Some(n)).spell(ctx.surface)
                ),
            });
        }
    };
    let matches = list.blocks.into_iter().map(|(m, _)| m).collect();
    Ok(FindResult {
        query: query_text.to_string(),
        total,
        matches,
        text,
        tokens,
    })
}

/// The elements matching `query`, in document order: by their name or
/// value, or by a text or prop line of theirs.
fn matching_elements(tree: &SnapTree, query: &Query) -> Vec<usize> {
    let mut hits: Vec<usize> = Vec::new();
    let mut seen = vec![false; tree.lines.len()];
    for (i, l) in tree.lines.iter().enumerate() {
        let hit = match l.kind {
            LineKind::Element => {
                l.name.as_deref().is_some_and(|n| query.matches(n))
                    || l.value().is_some_and(|v| query.matches(v))
            }
            LineKind::Text | LineKind::Prop => l.value().is_some_and(|v| query.matches(v)),
        };
        if !hit {
            continue;
        }
        // Text and props report on the element they belong to.
        let owner = if l.kind == LineKind::Element {
            Some(i)
        } else {
            l.parent()
        };
        if let Some(o) = owner
            && !seen[o]
        {
            seen[o] = true;
            hits.push(o);
        }
    }
    // A text child can report its parent after a deeper hit: back to document order.
    hits.sort_unstable();
    hits
}

/// The matches printed, each with its block of text.
struct MatchList {
    blocks: Vec<(FindMatch, String)>,
    /// Matches inside an earlier match's lines: printed already.
    skipped: usize,
    /// `max_matches` stopped the list.
    match_limit: bool,
}

/// A block per match while `max_matches` and the budget (after `used`
/// tokens and room for the closing note) allow.
fn match_blocks(
    tree: &SnapTree,
    hits: &[usize],
    mut used: usize,
    (options, ctx): (&FindOptions, Ctx),
) -> MatchList {
    let mut list = MatchList {
        blocks: Vec::new(),
        skipped: 0,
        match_limit: false,
    };
    // Lines already printed: a match inside an earlier match's lines adds nothing.
    let mut printed_until: Option<(usize, usize)> = None;
    for &h in hits {
        if list.blocks.len() >= options.max_matches {
            list.match_limit = true;
            break;
        }
        if printed_until.is_some_and(|(start, end)| h > start && h < end) {
            list.skipped += 1;
            continue;
        }
        let m = describe(tree, h, options.lines_per_match, ctx.surface);
        let mut block = String::from("\n# in: ");
        block.push_str(if m.path.is_empty() { "(top level)" } else { "" });
        block.push_str(&m.path.join(" > "));
        for l in &m.lines {
            block.push('\n');
            block.push_str(l);
        }
        let cost = tokens::count(&block, ctx.encoding);
        // Leave room for the closing note.
        if used + cost + CLOSING_RESERVE > options.max_tokens {
            break;
        }
        used += cost;
        printed_until = Some((
            h,
            h + m.lines.iter().filter(|l| !l.starts_with('#')).count(),
        ));
        list.blocks.push((m, block));
    }
    list
}

fn describe(tree: &SnapTree, i: usize, max_lines: usize, surface: Surface) -> FindMatch {
    let l = &tree.lines[i];
    // Nameless generic wrappers say nothing about where a node is.
    let mut path: Vec<String> = tree
        .ancestors(i)
        .filter(|&a| !(tree.lines[a].role() == "generic" && tree.lines[a].name.is_none()))
        .map(|a| {
            let al = &tree.lines[a];
            let mut s = super::budget::label(al);
            if let Some(r) = &al.aria_ref {
                s.push_str(&format!(" [ref={r}]"));
            }
            s
        })
        .collect();
    path.reverse();
    let base = l.depth();
    let end = l.subtree_end();
    let mut lines = Vec::new();
    for k in i..end.min(i + max_lines.max(1)) {
        let kl = &tree.lines[k];
        let mut line = kl.clone();
        line.set_depth(line.depth() - base);
        // A child beyond the cut is not printed; say so on the colon line.
        let has_children = kl.subtree_end() > k + 1 && k + 1 < i + max_lines.max(1);
        let mut s = String::new();
        push_line(&mut s, &line, has_children);
        lines.push(s);
    }
    let rest = end - i - lines.len();
    if rest > 0 {
        let r = l.aria_ref.as_deref().unwrap_or("REF");
        lines.push(format!(
            "# … {rest} more lines: {}",
            Hint::Snapshot(Handle::Ref(r.to_string())).spell(surface)
        ));
    }
    FindMatch {
        line: i,
        aria_ref: l.aria_ref.as_deref().map(String::from),
        role: l.role().to_string(),
        name: l.name.as_deref().map(String::from),
        path,
        lines,
    }
}
