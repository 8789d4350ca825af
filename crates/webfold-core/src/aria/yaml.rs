//! The snapshot's YAML text, byte for byte as Playwright renders it
//! (`renderAriaTreeAsJSON` then `renderAriaSnapshotAsYaml`), plus the quoting
//! helpers a diff renderer needs to print lines that parse the same way.

use super::js::{is_js_space, js_len, js_number};
use super::states::{Invalid, Tristate};
use super::{AriaNode, AriaTree, Mode, Props};

/// Names longer than this many UTF-16 units are not printed.
const MAX_NAME_LEN: usize = 900;

/// Playwright's `yamlStringNeedsQuotes`.
pub fn yaml_needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    let last = s.chars().next_back().unwrap_or(first);
    if is_js_space(first) || is_js_space(last) {
        return true;
    }
    if s.chars().any(|c| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')) {
        return true;
    }
    if first == '-' {
        return true;
    }
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        if (c == '\n' || c == ':') && next.is_none_or(is_js_space) {
            return true;
        }
        if is_js_space(c) && next == Some('#') {
            return true;
        }
        if matches!(c, '\n' | '\r' | '{' | '}' | '`') {
            return true;
        }
    }
    if matches!(
        first,
        '&' | '*' | ']' | ',' | '?' | '!' | '>' | '|' | '@' | '"' | '\'' | '#' | '%' | '['
    ) {
        return true;
    }
    if js_number(s).is_some() {
        return true;
    }
    let lower = s.to_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "true" | "false" | "on" | "off" | "null" | "~"
    ) {
        return true;
    }
    let unsigned = lower.strip_prefix(['-', '+']).unwrap_or(&lower);
    matches!(unsigned, ".inf" | ".nan")
}

/// Playwright's `yamlEscapeKeyIfNeeded`: single quotes, `'` doubled.
pub fn yaml_escape_key_if_needed(s: &str) -> String {
    if !yaml_needs_quotes(s) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "''"))
}

/// Playwright's `yamlEscapeValueIfNeeded`: double quotes with C-style escapes.
pub fn yaml_escape_value_if_needed(s: &str) -> String {
    if !yaml_needs_quotes(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `JSON.stringify(s)`.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A node's key before YAML quoting: `role "name" [state]… [ref=eN] [cursor=pointer]`.
/// `cursor_allowed` is false below a node that already printed `[cursor=pointer]`.
pub fn node_key(node: &AriaNode, mode: Mode, cursor_allowed: bool) -> String {
    let mut key = node.role.to_string();
    if !node.name.is_empty() && js_len(&node.name) <= MAX_NAME_LEN {
        key.push(' ');
        key.push_str(&json_string(&node.name));
    }
    let s = &node.states;
    match s.checked {
        Tristate::Mixed => key.push_str(" [checked=mixed]"),
        Tristate::True => key.push_str(" [checked]"),
        Tristate::False => {}
    }
    if s.disabled {
        key.push_str(" [disabled]");
    }
    if s.expanded {
        key.push_str(" [expanded]");
    }
    if s.active && mode == Mode::Ai {
        key.push_str(" [active]");
    }
    match s.invalid {
        Invalid::Grammar => key.push_str(" [invalid=grammar]"),
        Invalid::Spelling => key.push_str(" [invalid=spelling]"),
        Invalid::True => key.push_str(" [invalid]"),
        Invalid::False => {}
    }
    if s.level > 0 {
        key.push_str(&format!(" [level={}]", s.level));
    }
    match s.pressed {
        Tristate::Mixed => key.push_str(" [pressed=mixed]"),
        Tristate::True => key.push_str(" [pressed]"),
        Tristate::False => {}
    }
    if s.selected {
        key.push_str(" [selected]");
    }
    if node.aria_hidden {
        key.push_str(" [aria-hidden]");
    }
    if node.invisible {
        key.push_str(" [invisible]");
    }
    if let Some(r) = &node.ref_ {
        key.push_str(" [ref=");
        key.push_str(r);
        key.push(']');
        if cursor_allowed && node.cursor_pointer {
            key.push_str(" [cursor=pointer]");
        }
    }
    key
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Where rendered lines go: one text, or blocks of whole lines.
trait LineSink {
    fn push_line(&mut self, line: &str);
}

impl LineSink for String {
    fn push_line(&mut self, line: &str) {
        if !self.is_empty() {
            self.push('\n');
        }
        self.push_str(line);
    }
}

/// Lines in blocks of about this many bytes.
const BLOCK: usize = 16 * 1024;

/// Blocks of whole lines: a block is let go once read back, and none
/// holds more than a block's slack.
struct Blocks(Vec<String>);

impl LineSink for Blocks {
    fn push_line(&mut self, line: &str) {
        match self.0.last_mut() {
            Some(b) if b.len() + 1 + line.len() <= b.capacity() => b.push_line(line),
            _ => {
                let mut b = String::with_capacity(BLOCK.max(line.len()));
                b.push_str(line);
                if let Some(full) = self.0.last_mut() {
                    full.shrink_to_fit();
                }
                self.0.push(b);
            }
        }
    }
}

/// Render the tree as Playwright's YAML.
pub fn render_yaml(tree: &AriaTree) -> String {
    let mut out = String::new();
    render_into(&mut Kept(tree), &mut out);
    out
}

/// [`render_yaml`] as blocks of whole lines (joined by newlines, they are
/// its text), the tree spent as it goes: a page's text is as large as its
/// tree, and each node's strings go once its lines are written.
pub fn render_yaml_blocks(tree: AriaTree) -> Vec<String> {
    let mut out = Blocks(Vec::new());
    render_into(&mut Spent(tree), &mut out);
    if let Some(last) = out.0.last_mut() {
        last.shrink_to_fit();
    }
    out.0
}

/// The tree being rendered, and what is done with a node once written.
trait Rendered {
    fn tree(&self) -> &AriaTree;
    fn written(&mut self, _node: u32) {}
}

struct Kept<'a>(&'a AriaTree);

impl Rendered for Kept<'_> {
    fn tree(&self) -> &AriaTree {
        self.0
    }
}

/// A tree rendered once: a written node's strings are let go.
struct Spent(AriaTree);

impl Rendered for Spent {
    fn tree(&self) -> &AriaTree {
        &self.0
    }

    fn written(&mut self, node: u32) {
        if let Some(n) = self.0.nodes.get_mut(node as usize) {
            n.name = Box::default();
            n.props = None;
            n.ref_ = None;
            n.children = Box::default();
        }
    }
}

fn render_into(tree: &mut impl Rendered, out: &mut impl LineSink) {
    // (node, depth, cursor allowed), pushed in reverse so they pop in order.
    let mut stack: Vec<(u32, usize, bool)> = Vec::new();
    let top_cursor = tree.tree().mode == Mode::Ai;
    let Some(root) = tree.tree().nodes.first() else {
        return;
    };
    for &c in root.children.iter().rev() {
        stack.push((c, 0, top_cursor));
    }
    let mut line = String::new();
    while let Some((i, depth, cursor)) = stack.pop() {
        let at = Place { depth, cursor };
        let inlined = render_node(tree.tree(), i, at, (&mut line, &mut *out), &mut stack);
        tree.written(i);
        if let Some(text) = inlined {
            tree.written(text);
        }
    }
}

/// Where a node's line goes: its depth, and whether it may print
/// `[cursor=pointer]`.
#[derive(Clone, Copy)]
struct Place {
    depth: usize,
    cursor: bool,
}

/// Write node `i`'s lines and queue its children; the text child it
/// printed inline, if any.
fn render_node(
    tree: &AriaTree,
    i: u32,
    Place { depth, cursor }: Place,
    (line, out): (&mut String, &mut impl LineSink),
    stack: &mut Vec<(u32, usize, bool)>,
) -> Option<u32> {
    let node = &tree.nodes[i as usize];
    line.clear();
    indent(line, depth);
    if let Some(text) = node.text() {
        line.push_str("- text: ");
        line.push_str(&yaml_escape_value_if_needed(text));
        out.push_line(line);
        return None;
    }
    line.push_str("- ");
    line.push_str(&yaml_escape_key_if_needed(&node_key(
        node, tree.mode, cursor,
    )));
    let children = &node.children;
    let single_text = match &children[..] {
        [c] => tree.nodes[*c as usize].text().map(|t| (*c, t)),
        _ => None,
    };
    let none = Props::default();
    let p = node.props.as_deref().unwrap_or(&none);
    let props: Vec<(&str, &str)> = [
        ("url", p.url.as_deref()),
        ("placeholder", p.placeholder.as_deref()),
        ("invisible-name", p.invisible_name.as_deref()),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    if children.is_empty() && props.is_empty() {
        out.push_line(line);
        return None;
    }
    if let (Some((c, text)), true) = (single_text, props.is_empty()) {
        line.push_str(": ");
        line.push_str(&yaml_escape_value_if_needed(text));
        out.push_line(line);
        return Some(c);
    }
    line.push(':');
    out.push_line(line);
    for (k, v) in props {
        line.clear();
        indent(line, depth + 1);
        line.push_str("- /");
        line.push_str(k);
        line.push_str(": ");
        line.push_str(&yaml_escape_value_if_needed(v));
        out.push_line(line);
    }
    let child_cursor = cursor && !(node.ref_.is_some() && node.cursor_pointer);
    for &c in children.iter().rev() {
        stack.push((c, depth + 1, child_cursor));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_follows_playwright() {
        for s in [
            "", " a", "a ", "-a", "a: b", "a:", "a #b", "#a", "[a", "{a", "a`b", "42", "3.14",
            "007", "yes", "No", "~", ".inf", "-.NaN", "0x10", "a\nb",
        ] {
            assert!(yaml_needs_quotes(s), "{s:?} needs quotes");
        }
        for s in [
            "a",
            "a:b",
            "a#b",
            "hello world",
            "(unchanged)",
            "e12",
            "a-b",
        ] {
            assert!(!yaml_needs_quotes(s), "{s:?} needs no quotes");
        }
        assert_eq!(yaml_escape_key_if_needed("it's: x"), "'it''s: x'");
        assert_eq!(
            yaml_escape_value_if_needed("a \"b\"\n\u{1}"),
            "\"a \\\"b\\\"\\n\\x01\""
        );
        assert_eq!(json_string("a\"\u{1}"), "\"a\\\"\\u0001\"");
    }
}
