//! The LLM text format (defined in the [module docs](super)).

use std::fmt::Write;

use super::actions::Actions;
use super::compress::{Cut, Event, Plan, Scope, cut_text, walk};
use super::{Cnt, CntNode, CutStats};
use crate::contract::{Hint, Surface};
use crate::layers::Front;

/// Renders the view of `scope` under `cut`, and what it left out.
pub(crate) fn text(
    cnt: &Cnt,
    ranks: &Actions,
    scope: Scope,
    plan: &Plan,
    surface: Surface,
) -> (String, CutStats) {
    text_capped(cnt, ranks, scope, plan, usize::MAX, surface).unwrap_or_default()
}

/// [`text`], or `None` as soon as the output passes `max_bytes`: the budget
/// search rejects such cuts without building or tokenizing all of them.
pub(crate) fn text_capped(
    cnt: &Cnt,
    ranks: &Actions,
    scope: Scope,
    plan: &Plan,
    max_bytes: usize,
    surface: Surface,
) -> Option<(String, CutStats)> {
    let mut out = String::new();
    let mut over = false;
    let mut stats = CutStats::default();
    match scope {
        Scope::Whole => {
            if let Some(t) = cnt.title() {
                let limit = plan.cuts.iter().map(|c| c.text_limit).max().unwrap_or(0);
                let (t, _) = cut_text(t, limit.max(80));
                let _ = writeln!(out, "# {t}");
            }
        }
        _ => {
            let _ = writeln!(out, "# expand {}", scope.label(cnt));
        }
    }
    // The page behind an open modal dialog starts at the root's first child
    // that is not the dialog's (shown, or behind a marker).
    let mut behind = match scope {
        Scope::Whole => cnt.lead.as_ref(),
        _ => None,
    };
    let mut note_behind = |out: &mut String, starts: bool| {
        if let Some(lead) = behind.filter(|_| starts) {
            out.push_str(&lead.note);
            out.push('\n');
            behind = None;
        }
    };
    walk(cnt, ranks, scope, plan, &mut |ev| match ev {
        _ if over => {}
        Event::Open {
            node, depth, cut, ..
        } => {
            over = out.len() > max_bytes;
            let on_page = || {
                cnt.find(node.id)
                    .is_some_and(|i| cnt.front(i) != Front::Modal)
            };
            note_behind(&mut out, depth == 1 && on_page());
            indent(&mut out, depth);
            write_node(&mut out, node, cut, &mut stats);
            out.push('\n');
        }
        Event::Close { .. } => {}
        Event::Marker { hidden, depth } => {
            let moved = cnt.lead.as_ref().map_or(0, |l| l.moved);
            note_behind(&mut out, depth == 1 && hidden.first >= moved);
            indent(&mut out, depth);
            let _ = writeln!(out, "… {} hidden [{hidden}]", hidden.count());
            stats.markers += 1;
            stats.hidden_children += hidden.count() as usize;
        }
    });
    note_behind(&mut out, true);
    if over || out.len() > max_bytes {
        return None;
    }
    if stats.is_cut() {
        // In the words of the surface that asked, like every other hint.
        let _ = writeln!(
            out,
            "# to see what is cut (`… N hidden` children, `…+N` characters): {}",
            Hint::Expand("ID".into()).spell(surface)
        );
    }
    Some((out, stats))
}

/// One space per level: a run of spaces after a newline is a single token
/// in o200k and cl100k whatever its length, so deeper costs nothing more.
fn indent(out: &mut String, depth: usize) {
    out.extend(std::iter::repeat_n(' ', depth));
}

fn write_node(out: &mut String, node: &CntNode, cut: Cut, stats: &mut CutStats) {
    let marked = own_marked(node);
    let (text, hidden) = cut_text(marked.as_deref().unwrap_or(&node.text), cut.text_limit);
    if node.is_text() {
        // A text line reads as text unless it could pass for a node line
        // (`12 div`) or a marker; only then is it quoted.
        if text.starts_with(|c: char| c.is_ascii_digit() || c == '"' || c == '…' || c == '#') {
            out.push('"');
            out.push_str(text);
            out.push('"');
        } else {
            out.push_str(text);
        }
    } else {
        let _ = write!(out, "{} {}", node.id, node.tag);
        if node.clickable {
            out.push('*');
        }
        for (name, value) in &node.attrs {
            out.push(' ');
            out.push_str(name);
            if super::filter::is_state_attr(name) {
                continue;
            }
            out.push('=');
            if write_value(out, name, value, cut.text_limit) {
                stats.texts_cut += 1;
            }
        }
        if !text.is_empty() {
            out.push(' ');
            out.push_str(text);
        }
    }
    if hidden > 0 {
        let _ = write!(out, "…+{hidden} [{}]", node.id);
        stats.texts_cut += 1;
    }
}

/// The text with the element's own words quoted among the loose words it
/// took in (`eu "mauris." velit`): which words are the link's own.
fn own_marked(node: &CntNode) -> Option<String> {
    let (s, e) = node.own?;
    let t = &node.text;
    Some(format!(
        "{}\"{}\"{}",
        t.get(..s)?,
        t.get(s..e)?,
        t.get(e..)?
    ))
}

/// Writes an attribute value, quoted only when it has to be; returns whether
/// it was cut.
fn write_value(out: &mut String, name: &str, value: &str, limit: usize) -> bool {
    let value = shown_value(name, value);
    let (v, hidden) = cut_text(&value, limit);
    let needs_quotes =
        v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\');
    if needs_quotes {
        out.push('"');
        for ch in v.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c => out.push(c),
            }
        }
        out.push('"');
    } else {
        out.push_str(v);
    }
    if hidden > 0 {
        out.push('…');
    }
    hidden > 0
}

/// What a view shows of an attribute value: whitespace collapsed (except in
/// `value`, which `write` must reproduce exactly), and a `data:` URL's
/// payload dropped, as no agent reads base64 and it can outweigh the page.
pub(crate) fn shown_value<'v>(name: &str, value: &'v str) -> std::borrow::Cow<'v, str> {
    use std::borrow::Cow;
    let trimmed = value.trim_start();
    if trimmed.len() > 5
        && trimmed
            .get(..5)
            .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        let head = trimmed.split(',').next().unwrap_or(trimmed);
        let head: String = head.chars().take(64).collect();
        return Cow::Owned(format!("{head},…"));
    }
    if name == "value" {
        return Cow::Borrowed(value);
    }
    if !value.contains(|c: char| c.is_whitespace() && c != ' ') && !value.contains("  ") {
        return Cow::Borrowed(value.trim_matches(' '));
    }
    Cow::Owned(crate::page::collapse_whitespace(value))
}
