//! The compressed node tree (CNT): seed 003's simplified DOM for LLM agents,
//! budgeted to an exact token count.
//!
//! # Building ([`Cnt::build`])
//! The tree starts at `<body>`. Rules, exactly as seed 003 gives them:
//! - **Filtering.** `script`, `style`, `meta`, `link`, comments and every node
//!   that is neither an element nor text are dropped; so is what is not
//!   rendered ([`Page::is_rendered`]: markup now, real layout from a live
//!   browser), text no one sees ([`Page::is_seen`]), and a text container
//!   (no action, no image) left with no text and no children. A control no
//!   one sees keeps its line, marked `invisible` (its unseen words left out).
//! - **Attributes kept:** `aria-*`, `role`, `href`, `src`, `alt`, `title`,
//!   `placeholder`, `name`, `type`, `value` (empty values dropped, except
//!   `value`), the states `checked`, `selected` and `disabled` (by name
//!   alone: a live capture writes them as the user left the form, so an
//!   agent sees whether its click took), plus ours: the id and clickable.
//!   An `aria-label` of a control or heading that says something else than
//!   its visible words is written `invisible-aria-label`.
//!   A `data:` URL shows only its media type.
//! - **Clickable:** `a` with `href`, `button`, `input`, `select`, `textarea`,
//!   `label`, `summary`, `option`; `[onclick]`; an ARIA widget role (button,
//!   checkbox, combobox, link, menuitem, menuitemcheckbox, menuitemradio,
//!   option, radio, searchbox, slider, spinbutton, switch, tab, textbox,
//!   treeitem); `tabindex >= 0`; `contenteditable`; and, with real layout,
//!   the element that introduces `cursor: pointer` (not its descendants,
//!   which inherit it). `a` needs `href` because browsers make only those
//!   clickable, and named anchors are common empty noise; `option` is here
//!   because `write` names it by value, and as text it would merge away.
//! - **Merging** (bottom-up, so "recursively" holds). A *text node* is one
//!   with no action, no children and no image (`src`).
//!   1. Adjacent text nodes merge into one, texts joined as they read. The
//!      result keeps a tag and attributes only where all of them shared it.
//!   2. A text node goes into the next sibling's text, in front; a text node
//!      that is the last child goes after the previous sibling's text when
//!      that sibling has no children. The sibling's own words stay known
//!      ([`CntNode::own`]) and the text view quotes them among the words it
//!      took in (`p,a* href=/docs Read the "docs"`), so a reader can tell
//!      which words a link or button says.
//!   3. A node with one child: a text child becomes the parent's text;
//!      otherwise, unless both are clickable, the parent absorbs the child:
//!      its attributes (the child's win), text, children and clickable (OR);
//!      tags join as `parent,child` (`ul,li,a`), a repeated tag once.
//!
//!   Our exception, as the snapshot view has it: headings (`h1`–`h6`,
//!   `role=heading`) and live-region messages (`role=status|alert|log`,
//!   `<output>`, `aria-live=polite|assertive`) keep lines of their own. Rules
//!   1 and 2 neither merge them with text nor hand them a neighbour's (nor
//!   theirs to a neighbour), so a heading never reads as the label of the
//!   button after it; a parent that absorbs one (rule 3) inherits this.
//!
//! A CNT node's id is the [`NodeId`] of the DOM node heading it; the ids
//! merged into it are in [`CntNode::absorbed`]. So `webfold chunk --id ID`
//! returns the HTML behind any CNT node, and every view shares one identity.
//!
//! # Compression and budget ([`Cnt::view`])
//! A node with more children than the view's width shows its first and last
//! few around one marker, which carries the hidden count and an id `P.F-L`
//! (children `F` to `L` of node `P`, see [`CntId`]); texts past a length
//! are cut. The view searches for the largest width (and text length) whose
//! rendering fits `max_tokens` exactly, then widens the shallowest levels by
//! one child as far as the rest of the budget allows. It does so for the
//! page's main content first, then for the rest, then for its furniture
//! (navigation, footers, sidebars, navboxes, cookie banners), each getting
//! what the ones before it left (see `focus`); the ancestors of the main
//! content always show the child leading to it, between two markers when
//! it falls among hidden children. An open dialog or popover
//! ([`crate::layers`]) comes before all of these; an open modal dialog is
//! moved to the front of the root's children, the rest of the page after a
//! `# Behind the modal dialog "…" (inert until it closes):` line.
//! `expand` with a marker id shows the
//! hidden children, with a node id that node's subtree: each compressed the
//! same way, within the same budget.
//!
//! # The LLM format
//! One node per line, every character chosen to save tokens:
//! ```text
//! # Example Shop
//! 5 body
//!  7 nav,ul
//!   9 li,a* href=/ Home
//!   12 li,a* href=/cart Cart (2)
//!  … 3 hidden [5.1-3]
//!  40 form role=search
//!   42 input* type=text name=q placeholder="Search products"
//!   44 button* Search
//!  61 div,p Free shipping over 50 €. Terms and conditions apply to every…+812 [61]
//!  Contact us
//! # to see what is cut (`… N hidden` children, `…+N` characters): cnt --expand ID
//! ```
//! - `#` starts the lines that are not nodes: the page title first, the
//!   line before the page behind an open modal dialog, and a legend last,
//!   only when something was cut.
//! - One space of indentation per level: a newline and a run of spaces are
//!   one token together in o200k and cl100k, so depth costs nothing; two
//!   spaces would cost a token more at depth one.
//! - The id comes first because it is what an agent acts on.
//! - Tags as seed 003 merges them, joined by `,`.
//! - `*` right after the tags: clickable, one token where `clickable=true`
//!   would be four.
//! - `name=value` with quotes only when the value has a space (quotes are two
//!   tokens each time); `\"` and `\\` escape inside quotes.
//! - The text runs to the end of the line, unquoted: the newline ends it.
//! - A line without an id is text: text cannot be clicked, so its id is
//!   left out; it is quoted only when it could be read as a node line or a
//!   marker (it starts with a digit, `"`, `…` or `#`).
//! - `… N hidden [P.F-L]`: a marker. `…` is one token; brackets mark a handle
//!   to expand.
//! - `…+N [ID]` ends a cut text: N characters more, shown by expanding ID.
//!
//! `--json` gives the same cut as `{id, tag, text, attrs, clickable,
//! absorbed, children}` per node, with `compressed: {id, hidden}` where
//! children are hidden (and `compressed_after`, a list, for the runs after
//! children a view keeps: the path to the main content, pinned controls)
//! and `text_cut` where text is;
//! `--html` draws it as a page for a person, compressed nodes outlined.

mod actions;
mod compress;
mod def;
mod filter;
mod focus;
mod html;
mod id;
mod json;
mod merge;
mod render;
mod text;

use std::fmt;

pub use compress::Cut;
pub use filter::is_clickable;
pub use id::{CntId, HiddenRange};

use crate::contract::{Ctx, Handle, Hint, Limit, Surface};
use crate::layers::{Front, Layers, behind_note, dialog_name};
use crate::purpose::TaskFocus;
use crate::tokens::{self, Encoding};
use crate::{Error, NodeId, Page};
use compress::{Plan, Scope};

/// The CNT of one page version: every node kept after filtering and merging,
/// in preorder, uncompressed. Views ([`Cnt::view`]) choose what to show.
#[derive(Debug, Clone)]
pub struct Cnt {
    nodes: Vec<CntNode>,
    /// DOM id → index in `nodes` of the CNT node it went into (`u32::MAX`: none).
    index: Vec<u32>,
    title: Option<String>,
    /// Per node: in the open modal dialog, in an open popup, or neither.
    front: Vec<Front>,
    /// The modal dialog leading the root's children, when one does.
    lead: Option<Lead>,
    /// Which nodes a budget serves first.
    focus: focus::Focus,
    /// The controls a view pins whatever it cuts, ranked when a view
    /// first needs them.
    actions: std::sync::OnceLock<actions::Actions>,
}

/// One CNT node: a DOM element (or text) with everything merged into it.
#[derive(Debug, Clone, PartialEq)]
pub struct CntNode {
    /// The DOM node that heads this CNT node: its id in every view.
    pub id: NodeId,
    /// The element's tag; merged nodes list theirs outer to inner (`ul,li,a`).
    /// Empty for text.
    pub tag: String,
    /// Whitespace-collapsed text, before any children.
    pub text: String,
    /// The element's own words within `text` (byte range) when loose text
    /// around it was appropriated into it; the text view quotes them.
    pub own: Option<(usize, usize)>,
    /// Kept attributes, in source order (a merged child's value wins).
    pub attrs: Vec<(String, String)>,
    pub clickable: bool,
    /// DOM nodes merged into this one (children absorbed, text appropriated).
    pub absorbed: Vec<NodeId>,
    /// Index of the parent in [`Cnt::nodes`].
    pub parent: Option<u32>,
    /// Indices of the children in [`Cnt::nodes`].
    pub children: Vec<u32>,
}

impl CntNode {
    /// Text with no element of its own.
    pub fn is_text(&self) -> bool {
        self.tag.is_empty()
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The DOM nodes this CNT node stands for: its head, then the absorbed.
    pub fn members(&self) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::once(self.id).chain(self.absorbed.iter().copied())
    }
}

/// The CNT view's request (see [`crate::contract`]).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct ViewOptions {
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: usize,
    /// A node or marker id to open, e.g. "61" or "12.3-97"
    pub expand: Option<CntId>,
    /// A task: controls it names first
    pub focus: Option<String>,
}

use crate::contract::DEFAULT_MAX_TOKENS;
pub use def::{CntOutput, CntView, NAME};

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            max_tokens: DEFAULT_MAX_TOKENS,
            expand: None,
            focus: None,
        }
    }
}

impl crate::contract::Request for ViewOptions {}

impl Cnt {
    /// Filter and merge `page` into its CNT (seed 003's rules).
    pub fn build(page: &Page) -> Cnt {
        let layers = Layers::of(page);
        let parts = focus::parts(page);
        let (mut cnt, moved) = merge::build(page, layers.modal);
        cnt.front = cnt
            .nodes
            .iter()
            .map(|n| {
                n.members()
                    .map(|m| layers.front_of(page, m))
                    .max()
                    .unwrap_or_default()
            })
            .collect();
        let behind = cnt
            .nodes
            .first()
            .is_some_and(|r| r.children.len() > moved as usize);
        if let Some(m) = layers.modal.filter(|_| moved > 0 && behind) {
            let name = dialog_name(page, m);
            cnt.lead = Some(Lead {
                moved,
                id: cnt.node_of(m).map_or(m, |n| n.id),
                note: behind_note(&name),
                name,
            });
        }
        cnt.focus = focus::assign(page, parts, &cnt.nodes, &cnt.front);
        cnt
    }

    /// The open modal dialog the views lead with: its CNT id and name.
    pub fn modal_dialog(&self) -> Option<(NodeId, &str)> {
        self.lead.as_ref().map(|l| (l.id, l.name.as_str()))
    }

    /// Where node `i` stands: in the open modal dialog, an open popup, or
    /// on the page.
    pub(crate) fn front(&self, i: usize) -> Front {
        self.front.get(i).copied().unwrap_or_default()
    }

    /// All nodes in preorder; index 0 is the root.
    pub fn nodes(&self) -> &[CntNode] {
        &self.nodes
    }

    pub fn root(&self) -> &CntNode {
        &self.nodes[0]
    }

    /// The page's ranking of the controls views pin.
    fn actions(&self) -> &actions::Actions {
        self.actions
            .get_or_init(|| actions::rank(&self.nodes, &self.front))
    }

    /// Where DOM node `id` ranks among the controls a budgeted view pins
    /// (0 first), if it is one of them.
    pub fn action_rank(&self, id: NodeId) -> Option<u32> {
        self.actions().rank_of(self.find(id)?)
    }

    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Index of the CNT node that DOM node `id` is part of (its head or
    /// merged into it), if the node survived filtering.
    pub fn find(&self, id: NodeId) -> Option<usize> {
        self.index
            .get(id.index())
            .filter(|&&i| i != u32::MAX)
            .map(|&i| i as usize)
    }

    /// The CNT node DOM node `id` is part of.
    pub fn node_of(&self, id: NodeId) -> Option<&CntNode> {
        self.find(id).map(|i| &self.nodes[i])
    }

    /// Checks that `id` names something in this CNT, with the reason if not.
    pub fn check_id(&self, id: &CntId, surface: Surface) -> Result<(), Error> {
        self.scope(id, surface).map(|_| ())
    }

    fn scope(&self, id: &CntId, surface: Surface) -> Result<Scope, Error> {
        match *id {
            CntId::Node(n) => match self.find(n) {
                Some(i) => Ok(Scope::Node(i as u32)),
                None if n.index() < self.index.len() => Err(Error::InvalidOption(format!(
                    "node {n} is not in the CNT (hidden or filtered out); {} shows its HTML",
                    Hint::Chunk(Handle::Id(n.to_string()), false).spell(surface)
                ))),
                None => Err(Error::UnknownNodeId(n.get().into())),
            },
            CntId::Hidden(r) => {
                let Some(p) = self
                    .find(r.parent)
                    .filter(|&p| self.nodes[p].id == r.parent)
                else {
                    return Err(Error::InvalidOption(format!(
                        "{r} names no compressed node: {} is not a CNT node id; take the id from a `… N hidden [ID]` line of this page's CNT",
                        r.parent
                    )));
                };
                let len = self.nodes[p].children.len() as u32;
                if r.first > r.last || r.last >= len {
                    return Err(Error::InvalidOption(format!(
                        "{r} is out of range: node {} has {len} children (0 to {}); take the id from a `… N hidden [ID]` line",
                        r.parent,
                        len.saturating_sub(1)
                    )));
                }
                Ok(Scope::Range {
                    parent: p as u32,
                    first: r.first,
                    last: r.last,
                })
            }
        }
    }

    /// The largest view of the CNT (or of the part `opts.expand` names) whose
    /// LLM rendering fits `opts.max_tokens`.
    pub fn view(&self, opts: &ViewOptions, ctx: Ctx) -> Result<View<'_>, Error> {
        let scope = match &opts.expand {
            Some(id) => self.scope(id, ctx.surface)?,
            None => Scope::Whole,
        };
        // A task re-ranks the controls the view pins; without one, the
        // page's own ranking serves every view.
        let focused = opts
            .focus
            .as_deref()
            .and_then(TaskFocus::new)
            .map(|f| Box::new(actions::rank_for(&self.nodes, &self.front, &f)));
        let ranks = || focused.as_deref().unwrap_or_else(|| self.actions());
        let fitted = compress::fit(
            self,
            ranks,
            scope,
            opts.max_tokens,
            ctx.encoding,
            ctx.surface,
        )
        .map_err(|e| match e {
            Error::BudgetTooSmall {
                what,
                needed,
                max_tokens,
                ..
            } => Error::BudgetTooSmall {
                what,
                needed,
                max_tokens,
                advice: format!(
                    "raise {}, or expand a smaller part",
                    Hint::Raise(Limit::MaxTokens, Some(needed)).spell(ctx.surface)
                ),
            },
            other => other,
        })?;
        Ok(View {
            cnt: self,
            focused,
            scope,
            cut: fitted.cut,
            plan: fitted.plan,
            text: fitted.text,
            tokens: fitted.tokens,
            stats: fitted.stats,
            max_tokens: opts.max_tokens,
            encoding: ctx.encoding,
        })
    }

    /// A view with an explicit cut and no budget: for tests and tools that
    /// want the whole tree (`Cut::NONE`).
    pub fn view_with_cut(
        &self,
        expand: Option<&CntId>,
        cut: Cut,
        encoding: Encoding,
    ) -> Result<View<'_>, Error> {
        let scope = match expand {
            Some(id) => self.scope(id, Surface::default())?,
            None => Scope::Whole,
        };
        let plan = Plan::uniform(cut);
        let (text, stats) = render::text(self, self.actions(), scope, &plan, Surface::default());
        let tokens = tokens::count(&text, encoding);
        Ok(View {
            cnt: self,
            focused: None,
            scope,
            cut,
            plan,
            text,
            tokens,
            stats,
            max_tokens: usize::MAX,
            encoding,
        })
    }
}

/// An open modal dialog leading the root's children.
#[derive(Debug, Clone)]
struct Lead {
    /// How many of the root's children are the dialog's.
    moved: u32,
    /// The dialog's CNT id.
    id: NodeId,
    name: String,
    /// The line printed before the page behind it.
    note: String,
}

/// What a view left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CutStats {
    /// Compression markers shown.
    pub markers: usize,
    /// Children behind those markers (not counting their descendants).
    pub hidden_children: usize,
    /// Texts and attribute values shortened.
    pub texts_cut: usize,
}

impl CutStats {
    pub fn is_cut(&self) -> bool {
        self.markers > 0 || self.texts_cut > 0
    }
}

/// One rendering of a CNT: what an LLM reads (`text`), plus the same cut as
/// JSON and as an HTML page for a person.
#[derive(Debug, Clone)]
pub struct View<'a> {
    cnt: &'a Cnt,
    /// The controls ranked for the view's task, when it has one.
    focused: Option<Box<actions::Actions>>,
    scope: Scope,
    /// The cut that made the text fit: of the main content where the page
    /// has one (the rest of the page may be cut narrower, see `compress`).
    pub cut: Cut,
    /// The cut of each part of the page.
    plan: Plan,
    /// The LLM format (see the module docs).
    pub text: String,
    /// Exact tokens of `text`.
    pub tokens: usize,
    pub stats: CutStats,
    pub max_tokens: usize,
    pub encoding: Encoding,
}

impl View<'_> {
    /// The ranking of controls this view pinned by.
    fn ranks(&self) -> &actions::Actions {
        self.focused
            .as_deref()
            .unwrap_or_else(|| self.cnt.actions())
    }

    /// The same tree as JSON: `{id, tag, text, attrs, clickable, children}`
    /// per node and `compressed: {id, hidden}` where children are hidden.
    pub fn to_json(&self) -> String {
        json::render(self)
    }

    /// The tree of [`Self::to_json`] as an object's members, without the
    /// figures around it.
    pub fn json_members(&self) -> String {
        json::members(self)
    }

    /// The cut's width and text limit (none: not cut that way).
    pub fn cut_figures(&self) -> (Option<usize>, Option<usize>) {
        let opt = |v: usize| Some(v).filter(|&v| v != usize::MAX);
        (opt(self.cut.width), opt(self.cut.text_limit))
    }

    /// The page's title, as the CNT read it.
    pub fn title(&self) -> Option<&str> {
        self.cnt.title()
    }

    /// A standalone HTML page showing the tree, compressed nodes marked.
    pub fn to_html(&self) -> String {
        html::render(self)
    }

    /// What this view shows: the page, a node, or a hidden range.
    pub fn scope_label(&self) -> String {
        self.scope.label(self.cnt)
    }
}

impl fmt::Display for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
