//! The view as JSON, written while walking (no recursion, no `Value` tree
//! whose drop would recurse on deep pages).

use std::fmt::Write;

use super::compress::{Event, Hidden, cut_text, walk};
use super::id::HiddenRange;
use super::render::shown_value;
use super::{CntNode, View};

fn string(out: &mut String, s: &str) {
    // Serializing a &str cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string()));
}

fn compressed(out: &mut String, h: &HiddenRange) {
    out.push_str("\"compressed\":");
    compressed_range(out, h);
}

fn compressed_range(out: &mut String, h: &HiddenRange) {
    let _ = write!(out, "{{\"id\":\"{h}\",\"hidden\":{}}}", h.count());
}

pub(crate) fn render(view: &View<'_>) -> String {
    let cnt = view.cnt;
    let cut = view.cut;
    let mut out = String::new();
    out.push_str("{\"title\":");
    match cnt.title() {
        Some(t) => string(&mut out, t),
        None => out.push_str("null"),
    }
    out.push_str(",\"scope\":");
    string(&mut out, &view.scope_label());
    let _ = write!(
        out,
        ",\"tokens\":{},\"max_tokens\":{},\"encoding\":\"{}\",\"width\":{},\"text_limit\":{},\"hidden_children\":{},\"texts_cut\":{},",
        view.tokens,
        if view.max_tokens == usize::MAX {
            "null".to_string()
        } else {
            view.max_tokens.to_string()
        },
        view.encoding.name(),
        opt(cut.width),
        opt(cut.text_limit),
        view.stats.hidden_children,
        view.stats.texts_cut,
    );
    out.push_str(&members(view));
    out.push('}');
    out
}

/// The tree as the members of a JSON object (`"compressed":…,"nodes":[…]`),
/// for a surface that writes them into its own object.
pub(crate) fn members(view: &View<'_>) -> String {
    let cnt = view.cnt;
    let mut out = String::new();
    if let Some(h) = view.scope.top_hidden(cnt, &view.plan) {
        compressed(&mut out, &h);
        out.push(',');
    }
    out.push_str("\"nodes\":[");
    // Whether the next item in the current array needs a comma before it.
    let mut need_comma = false;
    walk(
        cnt,
        view.ranks(),
        view.scope,
        &view.plan,
        &mut |ev| match ev {
            Event::Open {
                node, hidden, cut, ..
            } => {
                if need_comma {
                    out.push(',');
                }
                open_node(&mut out, node, &hidden, cut.text_limit);
                need_comma = false;
            }
            Event::Close { .. } => {
                out.push_str("]}");
                need_comma = true;
            }
            Event::Marker { .. } => {}
        },
    );
    out.push(']');
    out
}

fn opt(v: usize) -> String {
    if v == usize::MAX {
        "null".to_string()
    } else {
        v.to_string()
    }
}

fn open_node(out: &mut String, node: &CntNode, hidden: &Hidden<'_>, limit: usize) {
    let _ = write!(out, "{{\"id\":{},\"tag\":", node.id);
    string(out, if node.is_text() { "#text" } else { &node.tag });
    let (text, text_cut) = cut_text(&node.text, limit);
    out.push_str(",\"text\":");
    string(out, text);
    if text_cut > 0 {
        let _ = write!(out, ",\"text_cut\":{text_cut}");
    }
    out.push_str(",\"attrs\":{");
    for (i, (name, value)) in node.attrs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, name);
        out.push(':');
        let value = shown_value(name, value);
        let (v, cut) = cut_text(&value, limit);
        if cut > 0 {
            string(out, &format!("{v}…"));
        } else {
            string(out, v);
        }
    }
    let _ = write!(out, "}},\"clickable\":{},\"absorbed\":[", node.clickable);
    for (i, a) in node.absorbed.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{a}");
    }
    out.push_str("],");
    let mut runs = hidden.iter();
    if let Some(h) = runs.next() {
        compressed(out, &h);
        out.push(',');
        let rest: Vec<HiddenRange> = runs.collect();
        // The runs after a child a view keeps (on the path to the main
        // content or to a pinned control).
        if !rest.is_empty() {
            out.push_str("\"compressed_after\":[");
            for (i, h) in rest.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compressed_range(out, h);
            }
            out.push_str("],");
        }
    }
    out.push_str("\"children\":[");
}
