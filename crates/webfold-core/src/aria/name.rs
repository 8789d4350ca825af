//! Accessible names (W3C accname 1.2) as Playwright's `getTextAlternativeInternal`
//! computes them, quirks included.
//!
//! The algorithm is naturally recursive (content, labels, labelledby). Here it
//! runs as a machine over an explicit stack of frames, so a page nested
//! arbitrarily deep cannot overflow the thread's stack: an `Alt` frame is one
//! call of the text-alternative function, a `Join` frame is a loop over the
//! sub-calls whose results it joins.

use crate::page::tags::is_non_content;
use crate::page::{ElementData, NodeData, NodeId, ns};

use super::dom::DomIndex;
use super::js::{as_flat_string, js_trim};
use super::roles::Roles;
use super::style::{Display, Styles, input_type};

/// Text plus the elements it came from (Playwright's `collectElements`).
#[derive(Clone, Debug, Default)]
pub struct Composite {
    pub text: String,
    pub elements: Vec<NodeId>,
}

impl Composite {
    fn of(text: &str, el: NodeId) -> Composite {
        let elements = if text.is_empty() {
            Vec::new()
        } else {
            vec![el]
        };
        Composite {
            text: text.to_string(),
            elements,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Target {
    #[default]
    None,
    SelfEl,
    Descendant,
}

/// Traversal context. `Some(hidden)` marks a traversal through a label,
/// labelledby or native text alternative, and whether that root is hidden.
#[derive(Clone, Copy, Debug, Default)]
struct Opts {
    labelled_by: Option<bool>,
    label: Option<bool>,
    native: Option<bool>,
    target: Target,
}

impl Opts {
    fn hidden_reference(self) -> bool {
        self.labelled_by == Some(true) || self.label == Some(true) || self.native == Some(true)
    }

    fn child(self) -> Opts {
        let target = if self.target == Target::SelfEl {
            Target::Descendant
        } else {
            self.target
        };
        Opts { target, ..self }
    }
}

enum Item {
    El {
        el: NodeId,
        opts: Opts,
        pad: bool,
    },
    Text(NodeId),
    /// CSS generated content (`::before`/`::after`), which has no node.
    Generated(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum JoinKind {
    /// `parts.join(" ")`.
    Space,
    /// Labels: empty parts dropped, then joined by spaces.
    SpaceNonEmpty,
    /// Name from content: tokens concatenated.
    Concat,
}

struct Join {
    items: Vec<Item>,
    next: usize,
    kind: JoinKind,
    parts: Vec<String>,
    elements: Vec<NodeId>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Start,
    AfterLabelledBy,
    /// The sub-call's result is the answer.
    Forward,
    AfterContent,
}

struct Alt {
    el: NodeId,
    opts: Opts,
    stage: Stage,
    labelled_by: Vec<NodeId>,
}

enum Frame {
    Alt(Alt),
    Join(Join),
}

enum Step {
    Done(Composite),
    Call(Join),
}

const NAMING_PROHIBITED: &[&str] = &[
    "caption",
    "code",
    "definition",
    "deletion",
    "emphasis",
    "generic",
    "insertion",
    "mark",
    "paragraph",
    "presentation",
    "strong",
    "subscript",
    "suggestion",
    "superscript",
    "term",
    "time",
];

const NAME_FROM_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
];

const NAME_FROM_CONTENT_AS_DESCENDANT: &[&str] = &[
    "",
    "caption",
    "code",
    "contentinfo",
    "definition",
    "deletion",
    "emphasis",
    "insertion",
    "list",
    "listitem",
    "mark",
    "none",
    "paragraph",
    "presentation",
    "region",
    "row",
    "rowgroup",
    "section",
    "strong",
    "subscript",
    "superscript",
    "table",
    "term",
    "time",
];

pub struct Names<'a> {
    dom: &'a DomIndex<'a>,
    roles: &'a Roles,
    styles: &'a Styles,
    visited: Vec<u16>,
    generation: u16,
    /// Leave out text a person cannot see ([`crate::page::Page::unseen`]).
    pub seen_only: bool,
}

impl<'a> Names<'a> {
    pub fn new(dom: &'a DomIndex<'a>, roles: &'a Roles, styles: &'a Styles) -> Names<'a> {
        Names {
            dom,
            roles,
            styles,
            visited: vec![0; dom.page().len()],
            generation: 0,
            seen_only: false,
        }
    }

    /// `getElementAccessibleName(element, false)`: the flattened name and the
    /// elements it was taken from.
    pub fn accessible_name(&mut self, el: NodeId) -> Composite {
        if NAMING_PROHIBITED.contains(&self.roles.get(el).unwrap_or("")) {
            return Composite::default();
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.visited.iter_mut().for_each(|v| *v = 0);
            self.generation = 1;
        }
        let mut result = self.run(
            el,
            Opts {
                target: Target::SelfEl,
                ..Opts::default()
            },
        );
        result.text = as_flat_string(&result.text);
        result.elements.sort_unstable();
        result.elements.dedup();
        result
    }

    fn visit(&mut self, el: NodeId) {
        self.visited[el.index()] = self.generation;
    }

    fn is_visited(&self, el: NodeId) -> bool {
        self.visited[el.index()] == self.generation
    }

    fn run(&mut self, el: NodeId, opts: Opts) -> Composite {
        let mut stack = vec![Frame::Alt(Alt {
            el,
            opts,
            stage: Stage::Start,
            labelled_by: Vec::new(),
        })];
        let mut ret: Option<Composite> = None;
        while let Some(top) = stack.last_mut() {
            let next = match top {
                Frame::Alt(alt) => match ret.take() {
                    None => self.alt_start(alt),
                    Some(r) => self.alt_resume(alt, r),
                },
                Frame::Join(join) => {
                    if let Some(r) = ret.take() {
                        join.accept(r);
                    }
                    match join.advance(self.dom) {
                        Some((el, opts)) => {
                            stack.push(Frame::Alt(Alt {
                                el,
                                opts,
                                stage: Stage::Start,
                                labelled_by: Vec::new(),
                            }));
                            continue;
                        }
                        None => Step::Done(join.finish()),
                    }
                }
            };
            match next {
                Step::Done(c) => {
                    stack.pop();
                    ret = Some(c);
                }
                Step::Call(join) => stack.push(Frame::Join(join)),
            }
        }
        ret.unwrap_or_default()
    }

    fn element(&self, el: NodeId) -> Option<&'a ElementData> {
        self.dom.page().element(el)
    }

    fn alt_start(&mut self, f: &mut Alt) -> Step {
        let el = f.el;
        let Some(e) = self.element(el) else {
            return Step::Done(Composite::default());
        };
        if self.is_visited(el) {
            return Step::Done(Composite::default());
        }
        let ignored = is_non_content(&e.local_name().to_ascii_lowercase());
        if ignored || (!f.opts.hidden_reference() && self.styles.hidden_for_aria(el)) {
            self.visit(el);
            return Step::Done(Composite::default());
        }
        f.labelled_by = self.dom.id_refs(el, e.attr("aria-labelledby"));
        if f.opts.labelled_by.is_none() && !f.labelled_by.is_empty() {
            let items = f
                .labelled_by
                .iter()
                .map(|&r| Item::El {
                    el: r,
                    opts: Opts {
                        labelled_by: Some(self.styles.hidden_for_aria(r)),
                        ..Opts::default()
                    },
                    pad: false,
                })
                .collect();
            f.stage = Stage::AfterLabelledBy;
            return Step::Call(Join::new(items, JoinKind::Space));
        }
        self.alt_rest(f)
    }

    fn alt_resume(&mut self, f: &mut Alt, mut r: Composite) -> Step {
        match f.stage {
            Stage::AfterLabelledBy => {
                if r.text.is_empty() {
                    self.alt_rest(f)
                } else {
                    Step::Done(r)
                }
            }
            Stage::AfterContent => {
                let considered = if f.opts.target == Target::SelfEl {
                    js_trim(&r.text)
                } else {
                    &r.text
                };
                if considered.is_empty() {
                    return self.alt_title(f);
                }
                if !js_trim(&r.text).is_empty() {
                    r.elements.push(f.el);
                }
                Step::Done(r)
            }
            Stage::Forward | Stage::Start => Step::Done(r),
        }
    }

    fn call(&self, f: &mut Alt, items: Vec<Item>, kind: JoinKind) -> Step {
        f.stage = Stage::Forward;
        Step::Call(Join::new(items, kind))
    }

    /// The name from `el`'s first `tag` child (a fieldset's legend, a
    /// figure's figcaption, a table's caption), computed as native text.
    fn name_from_child(
        &self,
        f: &mut Alt,
        el: NodeId,
        tag: &str,
        child_opts: Opts,
    ) -> Option<Step> {
        let c = self
            .dom
            .page()
            .element_children(el)
            .find(|&c| self.tag_is(c, tag))?;
        let opts = Opts {
            native: Some(self.styles.hidden_for_aria(c)),
            ..child_opts
        };
        Some(self.call(
            f,
            vec![Item::El {
                el: c,
                opts,
                pad: false,
            }],
            JoinKind::Space,
        ))
    }

    fn label_items(&self, labels: &[NodeId]) -> Vec<Item> {
        labels
            .iter()
            .map(|&l| Item::El {
                el: l,
                opts: Opts {
                    label: Some(self.styles.hidden_for_aria(l)),
                    ..Opts::default()
                },
                pad: false,
            })
            .collect()
    }

    /// The steps of the text alternative after `aria-labelledby`: the value
    /// of a control embedded in a label, `aria-label`, the host language's
    /// own label, the content, and last the title.
    fn alt_rest(&mut self, f: &mut Alt) -> Step {
        let el = f.el;
        let Some(e) = self.element(el) else {
            return Step::Done(Composite::default());
        };
        let role = self.roles.get(el).unwrap_or("");
        let tag = e.local_name().to_ascii_lowercase();
        let opts = f.opts;

        if (opts.label.is_some() || opts.labelled_by.is_some() || opts.target == Target::Descendant)
            && !f.labelled_by.contains(&el)
            && let Some(step) = self.embedded_control(f, e, role, &tag)
        {
            return step;
        }

        let aria_label = e.attr("aria-label").unwrap_or("");
        if !js_trim(aria_label).is_empty() {
            self.visit(el);
            return Step::Done(Composite::of(aria_label, el));
        }

        if role != "presentation"
            && role != "none"
            && let Some(step) = self.native_name(f, e, &tag)
        {
            return step;
        }

        let summary_content = tag == "summary" && role != "presentation" && role != "none";
        let from_content = NAME_FROM_CONTENT.contains(&role)
            || (opts.target == Target::Descendant
                && NAME_FROM_CONTENT_AS_DESCENDANT.contains(&role));
        if from_content
            || summary_content
            || opts.labelled_by.is_some()
            || opts.label.is_some()
            || opts.native.is_some()
        {
            self.visit(el);
            let items = self.content_items(el, opts.child());
            f.stage = Stage::AfterContent;
            return Step::Call(Join::new(items, JoinKind::Concat));
        }
        self.alt_title(f)
    }

    /// A control embedded in a label names by its value, not its label:
    /// a text box by its text, a select by its selected options, a range by
    /// its value, a menu by nothing.
    fn embedded_control(
        &mut self,
        f: &mut Alt,
        e: &'a ElementData,
        role: &str,
        tag: &str,
    ) -> Option<Step> {
        let el = f.el;
        if role == "textbox" || role == "searchbox" {
            self.visit(el);
            let text = if tag == "input" || tag == "textarea" {
                self.dom.control_value(el)
            } else {
                self.dom.page().text_content(el)
            };
            return Some(Step::Done(Composite::of(&text, el)));
        }
        if role == "combobox" || role == "listbox" {
            self.visit(el);
            let selected = self.selected_options(el, role, tag);
            if selected.is_empty() && tag == "input" {
                return Some(Step::Done(Composite::of(&self.dom.control_value(el), el)));
            }
            let child_opts = f.opts.child();
            let items = selected
                .into_iter()
                .map(|o| Item::El {
                    el: o,
                    opts: child_opts,
                    pad: false,
                })
                .collect();
            return Some(self.call(f, items, JoinKind::Space));
        }
        if matches!(
            role,
            "progressbar" | "scrollbar" | "slider" | "spinbutton" | "meter"
        ) {
            self.visit(el);
            let v = e
                .attr("aria-valuetext")
                .or_else(|| e.attr("aria-valuenow"))
                .unwrap_or(e.attr("value").unwrap_or(""));
            return Some(Step::Done(Composite::of(v, el)));
        }
        if role == "menu" {
            self.visit(el);
            return Some(Step::Done(Composite::default()));
        }
        None
    }

    /// The options a combobox or listbox shows as chosen: a `<select>`'s
    /// selected options (or its first), else the `aria-selected` options of
    /// the listbox (a combobox's owned one).
    fn selected_options(&self, el: NodeId, role: &str, tag: &str) -> Vec<NodeId> {
        if tag == "select" {
            let mut s = self.dom.selected_options(el);
            if s.is_empty()
                && let Some(&first) = self.dom.select_options(el).first()
            {
                s.push(first);
            }
            return s;
        }
        let listbox = if role == "combobox" {
            self.query_in_aria_owned(el, |n| self.roles.get(n) == Some("listbox"))
                .into_iter()
                .next()
        } else {
            Some(el)
        };
        let page = self.dom.page();
        listbox
            .map(|lb| {
                self.query_in_aria_owned(lb, |n| {
                    page.element(n)
                        .and_then(|o| o.attr("aria-selected"))
                        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
                        && self.roles.get(n) == Some("option")
                })
            })
            .unwrap_or_default()
    }

    /// The name the host language gives: an input's value or alt, a
    /// control's `<label>`, a fieldset's legend, an image's alt, a table's
    /// caption, an SVG's title. `None` goes on to name from content.
    fn native_name(&mut self, f: &mut Alt, e: &'a ElementData, tag: &str) -> Option<Step> {
        let el = f.el;
        let attr = |name: &str| e.attr(name).unwrap_or("");
        let itype = if tag == "input" {
            input_type(e.attr("type"))
        } else {
            ""
        };
        if tag == "input"
            && let Some(step) = self.input_name(f, e, itype)
        {
            return Some(step);
        }
        if f.labelled_by.is_empty()
            && let Some(step) = self.labelable_name(f, e, tag, itype)
        {
            return Some(step);
        }
        if tag == "img" || tag == "area" {
            self.visit(el);
            let alt = attr("alt");
            let text = if !js_trim(alt).is_empty() {
                alt
            } else {
                attr("title")
            };
            return Some(Step::Done(Composite::of(text, el)));
        }
        if tag == "table" {
            self.visit(el);
            if let Some(step) = self.name_from_child(f, el, "caption", f.opts.child()) {
                return Some(step);
            }
            let summary = attr("summary");
            if !summary.is_empty() {
                return Some(Step::Done(Composite::of(summary, el)));
            }
        }
        self.svg_name(f, e, tag)
    }

    /// Inputs that name themselves: buttons by their value (or the word the
    /// browser shows), file and image inputs by their labels or a default.
    fn input_name(&mut self, f: &mut Alt, e: &'a ElementData, itype: &str) -> Option<Step> {
        let el = f.el;
        let attr = |name: &str| e.attr(name).unwrap_or("");
        match itype {
            "button" | "submit" | "reset" => {
                self.visit(el);
                let value = attr("value");
                let text = if !js_trim(value).is_empty() {
                    value
                } else if itype == "submit" {
                    "Submit"
                } else if itype == "reset" {
                    "Reset"
                } else {
                    attr("title")
                };
                Some(Step::Done(Composite::of(text, el)))
            }
            "file" | "image" => {
                self.visit(el);
                let labels = self.dom.labels(el);
                if !labels.is_empty() && f.opts.labelled_by.is_none() {
                    let items = self.label_items(labels);
                    return Some(self.call(f, items, JoinKind::SpaceNonEmpty));
                }
                let text = if itype == "file" {
                    "Choose File"
                } else {
                    [attr("alt"), attr("title")]
                        .into_iter()
                        .find(|t| !js_trim(t).is_empty())
                        .unwrap_or("Submit")
                };
                Some(Step::Done(Composite::of(text, el)))
            }
            _ => None,
        }
    }

    /// Elements named by their `<label>`s or a caption child, when no
    /// `aria-labelledby` names them: buttons, outputs, form controls,
    /// fieldsets and figures.
    fn labelable_name(
        &mut self,
        f: &mut Alt,
        e: &'a ElementData,
        tag: &str,
        itype: &str,
    ) -> Option<Step> {
        let el = f.el;
        let attr = |name: &str| e.attr(name).unwrap_or("");
        let labelled = matches!(
            tag,
            "button" | "output" | "textarea" | "select" | "input" | "meter" | "progress"
        );
        if labelled {
            self.visit(el);
            let labels = self.dom.labels(el);
            if !labels.is_empty() {
                let items = self.label_items(labels);
                return Some(self.call(f, items, JoinKind::SpaceNonEmpty));
            }
        }
        match tag {
            // A button without a label goes on to its content.
            "button" => None,
            "output" => Some(Step::Done(Composite::of(attr("title"), el))),
            "textarea" | "select" | "input" | "meter" | "progress" => {
                let use_placeholder = (tag == "input"
                    && matches!(
                        itype,
                        "text" | "password" | "number" | "search" | "tel" | "email" | "url"
                    ))
                    || tag == "textarea";
                let title = attr("title");
                let text = if !use_placeholder || !title.is_empty() {
                    title
                } else {
                    attr("placeholder")
                };
                Some(Step::Done(Composite::of(text, el)))
            }
            "fieldset" | "figure" => {
                self.visit(el);
                let caption_tag = if tag == "fieldset" {
                    "legend"
                } else {
                    "figcaption"
                };
                if let Some(step) = self.name_from_child(f, el, caption_tag, f.opts.child()) {
                    return Some(step);
                }
                Some(Step::Done(Composite::of(attr("title"), el)))
            }
            _ => None,
        }
    }

    /// An SVG element named by its `<title>` child, an SVG link by its
    /// `xlink:title`.
    fn svg_name(&mut self, f: &mut Alt, e: &'a ElementData, tag: &str) -> Option<Step> {
        let el = f.el;
        let page = self.dom.page();
        let owner_svg = e.name.ns == ns!(svg) && page.ancestors(el).any(|a| self.is_svg_root(a));
        if tag == "svg" || owner_svg {
            self.visit(el);
            if let Some(c) = page.element_children(el).find(|&c| {
                self.tag_is(c, "title") && page.element(c).is_some_and(|ce| ce.name.ns == ns!(svg))
            }) {
                let opts = Opts {
                    labelled_by: Some(self.styles.hidden_for_aria(c)),
                    ..f.opts.child()
                };
                return Some(self.call(
                    f,
                    vec![Item::El {
                        el: c,
                        opts,
                        pad: false,
                    }],
                    JoinKind::Space,
                ));
            }
        }
        if owner_svg && tag == "a" {
            let title = e
                .attrs
                .iter()
                .find(|a| a.name.prefix.as_deref() == Some("xlink") && &*a.name.local == "title")
                .map_or("", |a| &*a.value);
            if !js_trim(title).is_empty() {
                self.visit(el);
                return Some(Step::Done(Composite::of(title, el)));
            }
        }
        None
    }

    fn alt_title(&mut self, f: &mut Alt) -> Step {
        let el = f.el;
        let role = self.roles.get(el).unwrap_or("");
        let is_frame = self.tag_is(el, "iframe") || self.tag_is(el, "frame");
        self.visit(el);
        if (role != "presentation" && role != "none") || is_frame {
            let title = self.element(el).and_then(|e| e.attr("title")).unwrap_or("");
            if !js_trim(title).is_empty() {
                return Step::Done(Composite::of(title, el));
            }
        }
        Step::Done(Composite::default())
    }

    /// Text a name of what is seen only leaves out.
    fn left_out(&self, text: NodeId) -> bool {
        self.seen_only && self.dom.page().unseen(text).is_some()
    }

    fn tag_is(&self, el: NodeId, tag: &str) -> bool {
        self.element(el)
            .is_some_and(|e| e.local_name().eq_ignore_ascii_case(tag))
    }

    fn is_svg_root(&self, el: NodeId) -> bool {
        self.element(el)
            .is_some_and(|e| e.name.ns == ns!(svg) && e.local_name() == "svg")
    }

    /// `innerAccumulatedElementText`'s tokens: a slot's assigned nodes, or the
    /// children (and shadow children) followed by `aria-owns` targets.
    fn content_items(&self, el: NodeId, opts: Opts) -> Vec<Item> {
        let page = self.dom.page();
        let skip_not_rendered = !opts.hidden_reference();
        let mut items = Vec::new();
        let push = |c: NodeId, items: &mut Vec<Item>| match page.node(c).data {
            NodeData::Element(_) => {
                let pad = self.styles.get(c).display != Display::Inline || self.tag_is(c, "br");
                items.push(Item::El { el: c, opts, pad });
            }
            NodeData::Text(_)
                if !(self.left_out(c) || skip_not_rendered && self.dom.text_not_rendered(c)) =>
            {
                items.push(Item::Text(c))
            }
            _ => {}
        };
        if let Some(t) = super::style::generated_content(page, el, false) {
            items.push(Item::Generated(t));
        }
        let assigned = if self.tag_is(el, "slot") {
            self.dom.shadow.assigned_nodes(el)
        } else {
            &[]
        };
        if !assigned.is_empty() {
            for &c in assigned {
                push(c, &mut items);
            }
        } else {
            for c in self.dom.walk_children(el) {
                push(c, &mut items);
            }
            let owned = self.element(el).and_then(|e| e.attr("aria-owns"));
            for o in self.dom.id_refs(el, owned) {
                push(o, &mut items);
            }
        }
        if let Some(t) = super::style::generated_content(page, el, true) {
            items.push(Item::Generated(t));
        }
        items
    }

    /// `queryInAriaOwned(element, selector)` with a predicate for the selector.
    fn query_in_aria_owned(&self, el: NodeId, pred: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
        let page = self.dom.page();
        let mut out: Vec<NodeId> = page
            .descendants(el)
            .filter(|&d| page.is_element(d) && pred(d))
            .collect();
        let owned = self.element(el).and_then(|e| e.attr("aria-owns"));
        for o in self.dom.id_refs(el, owned) {
            out.extend(page.subtree(o).filter(|&d| page.is_element(d) && pred(d)));
        }
        out
    }
}

impl Join {
    fn new(items: Vec<Item>, kind: JoinKind) -> Join {
        Join {
            items,
            next: 0,
            kind,
            parts: Vec::new(),
            elements: Vec::new(),
        }
    }

    fn accept(&mut self, r: Composite) {
        let pad = matches!(
            self.items.get(self.next.wrapping_sub(1)),
            Some(Item::El { pad: true, .. })
        );
        let text = if pad { format!(" {} ", r.text) } else { r.text };
        if self.kind == JoinKind::SpaceNonEmpty && text.is_empty() {
            return;
        }
        self.parts.push(text);
        self.elements.extend(r.elements);
    }

    /// The next element to compute, after taking in any text tokens before it.
    fn advance(&mut self, dom: &DomIndex<'_>) -> Option<(NodeId, Opts)> {
        while let Some(item) = self.items.get(self.next) {
            self.next += 1;
            match item {
                Item::Text(t) => self
                    .parts
                    .push(dom.page().text(*t).unwrap_or("").to_string()),
                Item::Generated(t) => self.parts.push(t.clone()),
                Item::El { el, opts, .. } => return Some((*el, *opts)),
            }
        }
        None
    }

    fn finish(&mut self) -> Composite {
        let sep = if self.kind == JoinKind::Concat {
            ""
        } else {
            " "
        };
        Composite {
            text: self.parts.join(sep),
            elements: std::mem::take(&mut self.elements),
        }
    }
}
