//! Playwright's distiller (`ariaSnapshotDistiller`): plugins that run on each
//! node's exit, children first, and may remove a node or splice its children
//! into its parent. Both modes merge text and unwrap single-child generics;
//! `ai` mode also drops nameless images and redundant names and inlines text.
//! A plugin that removes or unwraps a node stops the ones after it.

use std::collections::HashSet;

use super::Mode;
use super::js::normalize_white_space;
use super::tree::{NameRefs, Raw, RawChild, RawNode, push_child};

/// Roles whose name identifies the node, so it is kept even when its content repeats it.
const IDENTIFYING_NAME_ROLES: &[&str] = &[
    "alertdialog",
    "dialog",
    "banner",
    "complementary",
    "contentinfo",
    "form",
    "main",
    "navigation",
    "region",
    "search",
    "application",
    "document",
    "figure",
    "group",
    "grid",
    "listbox",
    "menu",
    "menubar",
    "radiogroup",
    "tablist",
    "tabpanel",
    "toolbar",
    "tree",
    "treegrid",
    "table",
    "columnheader",
    "rowheader",
];

enum Verdict {
    Keep,
    Remove,
    Unwrap,
}

struct Frame {
    node: u32,
    old: std::vec::IntoIter<RawChild>,
    new: Vec<RawChild>,
    /// This node or an ancestor is a ref'd node with a pointer cursor.
    pointer_root_at_or_above: bool,
}

pub(crate) fn distill(raw: &mut Raw, mode: Mode) {
    let ai = mode == Mode::Ai;
    let mut pending: HashSet<u32> = HashSet::new();
    let nodes = &mut raw.nodes;
    let names = &raw.name_refs;
    if ai {
        enter_redundant_names(nodes, names, 0, &mut pending);
    }
    let root_children = std::mem::take(&mut nodes[0].children);
    let mut stack = vec![Frame {
        node: 0,
        old: root_children.into_iter(),
        new: Vec::new(),
        pointer_root_at_or_above: false,
    }];
    while let Some(top) = stack.last_mut() {
        if let Some(child) = top.old.next() {
            match child {
                RawChild::Text(t) => push_child(&mut top.new, RawChild::Text(t)),
                RawChild::Node(c) => {
                    if ai {
                        enter_redundant_names(nodes, names, c, &mut pending);
                    }
                    let above = top.pointer_root_at_or_above;
                    let n = &mut nodes[c as usize];
                    let old = std::mem::take(&mut n.children).into_iter();
                    let pointer_root_at_or_above = above || (n.has_ref && n.cursor_pointer);
                    stack.push(Frame {
                        node: c,
                        old,
                        new: Vec::new(),
                        pointer_root_at_or_above,
                    });
                }
            }
            continue;
        }
        let Some(done) = stack.pop() else { break };
        nodes[done.node as usize].children = done.new;
        let Some(parent) = stack.last_mut() else {
            // The root: its plugins run for their side effects only.
            merge_string_children(&mut nodes[0]);
            break;
        };
        let ctx = ExitCtx {
            parent: parent.node,
            pointer_root_above: parent.pointer_root_at_or_above,
        };
        match exit(nodes, names, done.node, &ctx, ai, &mut pending) {
            Verdict::Keep => push_child(&mut parent.new, RawChild::Node(done.node)),
            Verdict::Remove => {}
            Verdict::Unwrap => parent.new.append(&mut nodes[done.node as usize].children),
        }
    }
}

struct ExitCtx {
    parent: u32,
    pointer_root_above: bool,
}

fn is_click_target_root(n: &RawNode, ctx: &ExitCtx) -> bool {
    n.has_ref && n.cursor_pointer && !ctx.pointer_root_above
}

fn exit(
    nodes: &mut [Box<RawNode>],
    names: &NameRefs,
    idx: u32,
    ctx: &ExitCtx,
    ai: bool,
    pending: &mut HashSet<u32>,
) -> Verdict {
    merge_string_children(&mut nodes[idx as usize]);
    if nodes[idx as usize].unseen {
        return Verdict::Unwrap;
    }
    if ai {
        let n = &nodes[idx as usize];
        if n.role() == "img"
            && n.name.is_empty()
            && n.children.is_empty()
            && !is_click_target_root(n, ctx)
        {
            return Verdict::Remove;
        }
        exit_redundant_names(nodes, names, idx, pending);
        inline_text_into_generic(nodes, idx);
        let parent_name_empty = nodes[ctx.parent as usize].name.is_empty();
        let n = &nodes[idx as usize];
        if !parent_name_empty && n.role() == "generic" && !n.states.active && !n.has_props() {
            let single_text = match n.children.as_slice() {
                [RawChild::Text(t)] => Some(t.as_str()),
                _ => None,
            };
            let text = if n.name.is_empty() {
                single_text
            } else if n.children.is_empty() {
                Some(&*n.name)
            } else {
                None
            };
            if text.is_some_and(|t| !t.is_empty() && t == &*nodes[ctx.parent as usize].name) {
                if n.has_ref {
                    pending.insert(idx);
                }
                return Verdict::Remove;
            }
        }
    }
    let n = &nodes[idx as usize];
    if n.role() == "generic"
        && n.name.is_empty()
        && n.children.len() <= 1
        && n.children
            .iter()
            .all(|c| matches!(c, RawChild::Node(k) if nodes[*k as usize].has_ref))
        && !(n.children.is_empty() && is_click_target_root(n, ctx))
    {
        return Verdict::Unwrap;
    }
    Verdict::Keep
}

/// Adjacent strings joined and normalised; a lone string equal to the name dropped.
fn merge_string_children(n: &mut RawNode) {
    if n.children.is_empty() {
        return;
    }
    let mut out: Vec<RawChild> = Vec::with_capacity(n.children.len());
    let mut buffer = String::new();
    let mut buffered = false;
    let flush = |buffer: &mut String, buffered: &mut bool, out: &mut Vec<RawChild>| {
        if *buffered {
            let text = normalize_white_space(buffer);
            if !text.is_empty() {
                out.push(RawChild::Text(text));
            }
            buffer.clear();
            *buffered = false;
        }
    };
    for child in std::mem::take(&mut n.children) {
        match child {
            RawChild::Text(t) => {
                buffer.push_str(&t);
                buffered = true;
            }
            node => {
                flush(&mut buffer, &mut buffered, &mut out);
                out.push(node);
            }
        }
    }
    flush(&mut buffer, &mut buffered, &mut out);
    if let [RawChild::Text(t)] = out.as_slice()
        && t.as_str() == &*n.name
    {
        // A cell's text is its name: one child dropped on most cells of a
        // table, so no list is left behind holding nothing.
        out = Vec::new();
    }
    out.shrink_to_fit();
    n.children = out;
}

fn is_leaf_generic(n: &RawNode) -> bool {
    n.role() == "generic" && n.children.iter().all(|c| matches!(c, RawChild::Text(_)))
}

fn enter_redundant_names(
    nodes: &[Box<RawNode>],
    names: &NameRefs,
    idx: u32,
    pending: &mut HashSet<u32>,
) {
    let n = &nodes[idx as usize];
    if !n.has_ref {
        return;
    }
    pending.extend(names.get(&idx).into_iter().flat_map(|r| r.iter().copied()));
    if !is_leaf_generic(n) {
        pending.remove(&idx);
    }
}

/// A name taken from ref'd descendants that are all still printed says nothing new.
fn exit_redundant_names(
    nodes: &mut [Box<RawNode>],
    names: &NameRefs,
    idx: u32,
    pending: &mut HashSet<u32>,
) {
    let n = &mut nodes[idx as usize];
    let Some(name_refs) = names.get(&idx).filter(|_| n.has_ref) else {
        return;
    };
    if !IDENTIFYING_NAME_ROLES.contains(&n.role()) && name_refs.iter().all(|r| !pending.contains(r))
    {
        n.name = Box::default();
    } else {
        for r in name_refs {
            pending.remove(r);
        }
    }
}

fn inline_text_into_generic(nodes: &mut [Box<RawNode>], idx: u32) {
    let n = &nodes[idx as usize];
    if n.role() != "generic" || n.has_props() {
        return;
    }
    let [RawChild::Node(c)] = n.children.as_slice() else {
        return;
    };
    let child = &nodes[*c as usize];
    if child.role() != "generic"
        || !child.name.is_empty()
        || child.states.active
        || child.has_props()
    {
        return;
    }
    if let [RawChild::Text(t)] = child.children.as_slice() {
        let t = t.clone();
        nodes[idx as usize].children = vec![RawChild::Text(t)];
    }
}
