//! Which elements an outline shows, and the labels it shows them with.

use crate::error::Error;
use crate::page::tags::{is_inline, is_non_content};
use foldhash::HashMap;

use crate::page::{LocalName, NodeData, NodeId, Page};
use crate::select::Selector;

/// Elements never outlined even when rendered: they carry no structure a
/// reader sees (`br`, `wbr`), or their content is code, not page.
fn is_skipped(tag: &str) -> bool {
    is_non_content(tag) || matches!(tag, "br" | "wbr")
}

/// Classes shown in a label: the first always, more while the label stays
/// short. Hashed and atomic class names cost many tokens and say little.
const LABEL_CLASSES: usize = 3;
const LABEL_CHARS: usize = 32;

/// Whether an HTML tag is skipped and whether it is inline, by interned
/// name: a page has a few dozen tags and many thousands of elements.
#[derive(Default)]
struct TagKinds(HashMap<LocalName, (bool, bool)>);

impl TagKinds {
    fn of(&mut self, tag: &LocalName) -> (bool, bool) {
        if let Some(&kind) = self.0.get(tag) {
            return kind;
        }
        let kind = (is_skipped(tag), is_inline(tag));
        self.0.insert(tag.clone(), kind);
        kind
    }
}

/// The part of a page an outline looks at: rendered, not excluded, not code.
pub(super) struct Scope<'a> {
    pub page: &'a Page,
    excluded: Vec<bool>,
    /// Per node: has a non-whitespace text child.
    own_text: Vec<bool>,
    /// Per node: gets its own place in the outline. Decided in one pass in
    /// document order: the plan asks of each child again and again, and a
    /// long list's items lie far apart in the page.
    outlined: Vec<bool>,
}

impl<'a> Scope<'a> {
    pub fn new(page: &'a Page, exclude: &[String]) -> Result<Self, Error> {
        let mut excluded = vec![false; page.len()];
        for source in exclude {
            let sel = Selector::parse(source)?;
            for n in page.select(&sel) {
                excluded[n.index()] = true;
            }
        }
        let mut own_text = vec![false; page.len()];
        for (i, node) in page.nodes().iter().enumerate() {
            if let (NodeData::Text(t), Some(p)) = (&node.data, node.parent)
                && !t.trim_ascii().is_empty()
                && page.unseen(NodeId::new(i as u32)).is_none()
            {
                own_text[p.index()] = true;
            }
        }
        let mut scope = Scope {
            page,
            excluded,
            own_text,
            outlined: Vec::new(),
        };
        let mut kinds = TagKinds::default();
        scope.outlined = (0..page.len() as u32)
            .map(|i| scope.decide_outlined(NodeId::new(i), &mut kinds))
            .collect();
        Ok(scope)
    }

    /// An element the reader does not see or asked to leave out; its whole
    /// subtree is skipped, text included.
    pub fn is_hidden(&self, n: NodeId) -> bool {
        self.page.is_element(n)
            && (self.page.node(n).inert || self.excluded[n.index()] || self.page.hides_subtree(n))
    }

    /// An element that gets its own place in the outline.
    pub fn is_outlined(&self, n: NodeId) -> bool {
        self.outlined[n.index()]
    }

    fn decide_outlined(&self, n: NodeId, kinds: &mut TagKinds) -> bool {
        let Some(e) = self.page.element(n) else {
            return false;
        };
        let (skipped, inline) = if e.is_html() {
            kinds.of(&e.name.local)
        } else {
            (false, false)
        };
        if skipped || self.is_hidden(n) {
            return false;
        }
        // A link or emphasis inside running text is part of that text: the
        // parent's preview reads it, and a line of its own would split it.
        if inline
            && self
                .page
                .parent(n)
                .is_some_and(|p| self.own_text[p.index()])
        {
            return false;
        }
        // The root of an SVG or MathML island is outlined; its insides are
        // drawing instructions, not page structure.
        e.is_html()
            || self
                .page
                .parent(n)
                .and_then(|p| self.page.element(p))
                .is_none_or(|p| p.is_html())
    }

    /// Whether the outline looks inside this element at all.
    fn is_foreign(&self, n: NodeId) -> bool {
        self.page.element(n).is_some_and(|e| !e.is_html())
    }

    pub fn outlined_children(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let foreign = self.is_foreign(n);
        self.page
            .children(n)
            .filter(move |&c| !foreign && self.is_outlined(c))
    }

    /// Outlined elements in the subtree of `root`, `root` included.
    pub fn count_outlined(&self, root: NodeId) -> usize {
        let end = self.page.node(root).subtree_end.get();
        let mut count = 0;
        let mut i = root.get();
        while i < end {
            let n = NodeId::new(i);
            if !self.page.is_element(n) {
                i += 1;
                continue;
            }
            if !self.is_outlined(n) {
                i = self.page.node(n).subtree_end.get();
                continue;
            }
            count += 1;
            i = if self.is_foreign(n) {
                self.page.node(n).subtree_end.get()
            } else {
                i + 1
            };
        }
        count
    }

    /// Visible text directly in the element (not in a child element).
    pub fn has_own_text(&self, n: NodeId) -> bool {
        self.own_text[n.index()]
    }
}

/// `tag#id`, or `tag.class1.class2`: what a reader recognises (the seed's
/// `header#main-header`, `nav.navbar`), and a valid CSS compound selector.
pub(crate) fn label(page: &Page, n: NodeId, with_id: bool) -> String {
    let Some(e) = page.element(n) else {
        return String::new();
    };
    let mut out = ident(e.local_name());
    if with_id && let Some(id) = e.id() {
        out.push('#');
        out.push_str(&ident(id));
        return out;
    }
    let mut shown: Vec<&str> = Vec::new();
    for c in e.classes() {
        if shown.contains(&c) {
            continue;
        }
        let class = ident(c);
        if shown.len() == LABEL_CLASSES
            || (!shown.is_empty() && out.len() + 1 + class.len() > LABEL_CHARS)
        {
            break;
        }
        shown.push(c);
        out.push('.');
        out.push_str(&class);
    }
    out
}

fn ident(s: &str) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = cssparser::serialize_identifier(s, &mut out);
    out
}

/// Whether `label` selects its element alone, given the element's unique
/// selector: it does when that selector is one compound (`#id`, a bare tag,
/// or `tag.classes`) whose every condition the label also has.
pub(crate) fn label_is_unique(unique_selector: &str, label: &str) -> bool {
    if unique_selector.contains(' ') || unique_selector.starts_with(':') {
        return false;
    }
    if let Some(id) = unique_selector.strip_prefix('#') {
        return label.split_once('#').is_some_and(|(_, l)| l == id);
    }
    let bare_tag = !unique_selector.contains(['.', '#', ':', '[']);
    bare_tag || unique_selector == label
}
