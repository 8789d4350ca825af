//! The view as an HTML page a person opens to see the tree (seed 003's
//! `output.html`): one nested list item per node, clickable nodes in red,
//! compressed nodes outlined and their markers in orange.

use std::fmt::Write;

use super::compress::{Cut, Event, cut_text, walk};
use super::render::shown_value;
use super::{CntNode, View};

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.2em}.meta{color:#555}\
ul{list-style:none;margin:0;padding-left:1.1em;border-left:1px solid #ddd}\
ul.tree{border:0;padding:0}\
.id{color:#888;font:12px ui-monospace,monospace;margin-right:.3em}\
.tag{color:#05a;font-weight:600}.clickable>.line .tag{color:#c00}\
.clickable>.line .tag::after{content:\" \\2022 clickable\";font-weight:400;font-size:11px}\
.attr{color:#674;font:12px ui-monospace,monospace;margin-left:.4em}\
.text{margin-left:.4em}.textnode>.line .text{margin:0;color:#333}\
.cut{color:#e70;font-size:12px;margin-left:.3em}\
li.compressed>.line{outline:2px dashed #e70;outline-offset:1px}\
li.marker{color:#e70;font-style:italic;border:1px dashed #e70;margin:.15em 0;padding:0 .4em;width:max-content}";

fn esc(out: &mut String, s: &str) {
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

pub(crate) fn render(view: &View<'_>) -> String {
    let cnt = view.cnt;
    let mut out = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>CNT: ");
    let title = cnt.title().unwrap_or("untitled page");
    esc(&mut out, title);
    let _ = write!(
        out,
        "</title><style>{STYLE}</style></head><body>\n<h1>CNT: "
    );
    esc(&mut out, title);
    if view.scope_label() != "page" {
        out.push_str(" — expand ");
        esc(&mut out, &view.scope_label());
    }
    let _ = writeln!(
        out,
        "</h1>\n<p class=\"meta\">{} tokens ({}) of a budget of {}; {} children hidden behind {} markers, {} texts cut. \
         Red: clickable. Dashed orange: compressed (expand the id in brackets).</p>\n<ul class=\"tree\">",
        view.tokens,
        view.encoding.name(),
        if view.max_tokens == usize::MAX {
            "none".to_string()
        } else {
            view.max_tokens.to_string()
        },
        view.stats.hidden_children,
        view.stats.markers,
        view.stats.texts_cut,
    );
    walk(
        cnt,
        view.ranks(),
        view.scope,
        &view.plan,
        &mut |ev| match ev {
            Event::Open {
                node, hidden, cut, ..
            } => open_item(&mut out, node, !hidden.is_empty(), cut),
            Event::Close { node, .. } => {
                if !node.children.is_empty() {
                    out.push_str("</ul>");
                }
                out.push_str("</li>\n");
            }
            Event::Marker { hidden, .. } => {
                let _ = writeln!(
                    out,
                    "<li class=\"marker\">… {} hidden [{hidden}]</li>",
                    hidden.count()
                );
            }
        },
    );
    out.push_str("</ul>\n</body></html>\n");
    out
}

/// A node's list item, up to its children's list: its id, tag, attributes
/// and text, each cut to the text limit of `cut`.
fn open_item(out: &mut String, node: &CntNode, compressed: bool, cut: Cut) {
    let mut class = String::from(if node.is_text() { "textnode" } else { "node" });
    if node.clickable {
        class.push_str(" clickable");
    }
    if compressed {
        class.push_str(" compressed");
    }
    let _ = write!(
        out,
        "<li class=\"{class}\" data-id=\"{}\"><span class=\"line\"><span class=\"id\">{}</span>",
        node.id, node.id
    );
    if !node.is_text() {
        out.push_str("<span class=\"tag\">");
        esc(out, &node.tag);
        out.push_str("</span>");
    }
    for (name, value) in &node.attrs {
        out.push_str("<span class=\"attr\">");
        esc(out, name);
        out.push('=');
        let value = shown_value(name, value);
        let (v, c) = cut_text(&value, cut.text_limit);
        esc(out, v);
        if c > 0 {
            out.push('…');
        }
        out.push_str("</span>");
    }
    let (text, c) = cut_text(&node.text, cut.text_limit);
    if !text.is_empty() {
        out.push_str("<span class=\"text\">");
        esc(out, text);
        out.push_str("</span>");
    }
    if c > 0 {
        let _ = write!(out, "<span class=\"cut\">…+{c} chars [{}]</span>", node.id);
    }
    out.push_str("</span>");
    if !node.children.is_empty() {
        out.push_str("<ul>");
    }
    out.push('\n');
}
