//! What is open over the page: a modal dialog, non-modal dialogs and
//! popovers.
//!
//! A modal dialog (`<dialog>` shown with `showModal()`, or a `dialog` /
//! `alertdialog` with `aria-modal="true"`) makes everything else in its
//! document inert until it closes: a person, and an agent's clicks, reach
//! only the dialog. So the budgeted views lead with it and say what is
//! behind it ([`behind_note`]), and the acting surfaces refuse an element
//! behind it with [`BehindDialog`], naming the dialog. Non-modal dialogs and
//! open popovers block nothing; views rank what is in them high, as they are
//! what the page just put in front of the reader.
//!
//! How modality is known:
//! - a live capture records which elements are in the browser's top layer
//!   ([`Layout::top_layer`](crate::page::Layout)): a `<dialog>` there is
//!   modal (`:modal`) unless it is a popover, any `[popover]` there is open;
//! - static HTML has no top layer: `<dialog open>` is non-modal, and only
//!   `aria-modal="true"` on a rendered dialog makes one modal.
//!
//! A modal dialog in a frame makes only that frame's document inert: the
//! check stops at the nearest `<iframe>` or `<frame>` the capture spliced
//! the document under. The page around the frame stays usable, so views do
//! not lead with such a dialog; they rank it as a popup. Shadow roots are
//! part of their host's document.

use crate::aria::{self, Mode};
use crate::page::{NodeId, Page};

/// The dialogs and popovers open on a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layers {
    /// The page's modal dialog in front, if one is open: the last in
    /// document order when several are (a dialog opened from another is
    /// inside it or after it).
    pub modal: Option<NodeId>,
    /// The modal dialog in front in each frame that has one: inert is only
    /// the rest of that frame's document.
    pub frame_modals: Vec<NodeId>,
    /// Open non-modal dialogs and popovers, in document order.
    pub popups: Vec<NodeId>,
}

/// Where an element stands: ordered, so that what is more in front compares
/// greater.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Front {
    /// On the page (behind the modal dialog, when one is open).
    #[default]
    None,
    /// In an open non-modal dialog or popover: ranked high, blocks nothing.
    Popup,
    /// In the open modal dialog: the only part of the page that can be used.
    Modal,
}

/// Why an element cannot be acted on: a modal dialog covers it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot act on {what}: the modal dialog \"{dialog}\" ({handle}) is open and everything behind it is inert; answer or close that dialog first (act on an element inside it), then take a new view"
)]
pub struct BehindDialog {
    /// The element asked for, as the caller named it.
    pub what: String,
    /// The dialog's accessible name (its role when it has none).
    pub dialog: String,
    /// How the caller names the dialog: `ref e5`, `id 12`.
    pub handle: String,
}

impl Layers {
    /// The dialogs and popovers open on `page`.
    pub fn of(page: &Page) -> Layers {
        let mut layers = Layers::default();
        // The last modal dialog of each document: (its frame, the dialog).
        let mut modals: Vec<(Option<NodeId>, NodeId)> = Vec::new();
        for id in (0..page.len()).map(|i| NodeId::new(i as u32)) {
            match kind_of(page, id) {
                Some(Kind::Modal) => {
                    let frame = frame_of(page, id);
                    modals.retain(|&(f, _)| f != frame);
                    modals.push((frame, id));
                }
                Some(Kind::Popup) => layers.popups.push(id),
                None => {}
            }
        }
        for (frame, m) in modals {
            match frame {
                None => layers.modal = Some(m),
                Some(_) => layers.frame_modals.push(m),
            }
        }
        // A modal dialog inert behind another is not in front.
        let all: Vec<NodeId> = layers.modals().collect();
        let live = |n: &NodeId| !all.iter().any(|&m| blocks(page, m, *n));
        layers.frame_modals.retain(live);
        // A popup inside a modal dialog is part of it; one behind it is inert.
        layers.popups.retain(live);
        layers
    }

    /// Every modal dialog open: the page's, then the frames'.
    fn modals(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.modal.iter().chain(&self.frame_modals).copied()
    }

    /// The modal dialog that makes `node` inert, if one does.
    pub fn blocker(&self, page: &Page, node: NodeId) -> Option<NodeId> {
        self.modals().find(|&m| blocks(page, m, node))
    }

    /// Where `node` stands: in the modal dialog, in an open popup, or on
    /// the page.
    pub fn front_of(&self, page: &Page, node: NodeId) -> Front {
        let within = |l: NodeId| l == node || page.is_ancestor_of(l, node);
        if self.modal.is_some_and(within) {
            Front::Modal
        } else if self
            .popups
            .iter()
            .chain(&self.frame_modals)
            .any(|&p| within(p))
        {
            Front::Popup
        } else {
            Front::None
        }
    }

    /// The refusal of `what` (the element `node`), when a modal dialog
    /// covers it; `handle` says how the caller names the dialog.
    pub fn check(
        &self,
        page: &Page,
        node: NodeId,
        what: &str,
        handle: impl FnOnce(NodeId) -> String,
    ) -> Result<(), BehindDialog> {
        match self.blocker(page, node) {
            None => Ok(()),
            Some(m) => Err(BehindDialog {
                what: what.to_string(),
                dialog: dialog_name(page, m),
                handle: handle(m),
            }),
        }
    }
}

enum Kind {
    Modal,
    Popup,
}

/// What element `id` is over the page, if anything.
fn kind_of(page: &Page, id: NodeId) -> Option<Kind> {
    let e = page.element(id)?;
    let tag = e.local_name();
    let popover = e.has_attr("popover");
    let aria_modal = e
        .attr("aria-modal")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    // Most elements are none of these: the cheap tests first.
    if !(tag == "dialog" || popover || aria_modal)
        || !e.is_html()
        || page.node(id).inert
        || !page.is_rendered(id)
    {
        return None;
    }
    let top = page.layout(id).is_some_and(|l| l.top_layer);
    // The first role token is the one browsers use.
    let role = e.attr("role").and_then(|r| r.split_whitespace().next());
    let dialog_role = match role {
        Some(r) => r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog"),
        None => tag == "dialog",
    };
    if (dialog_role && aria_modal) || (tag == "dialog" && top && !popover) {
        Some(Kind::Modal)
    } else if (popover && top) || (tag == "dialog" && e.has_attr("open")) {
        Some(Kind::Popup)
    } else {
        None
    }
}

/// Whether modal `m` makes `node` inert: `node` is in `m`'s document (its
/// frame, or a frame inside it) and not in `m`.
fn blocks(page: &Page, m: NodeId, node: NodeId) -> bool {
    if node == m || page.is_ancestor_of(m, node) {
        return false;
    }
    match frame_of(page, m) {
        Some(f) => page.is_ancestor_of(f, node),
        None => true,
    }
}

/// The `<iframe>` or `<frame>` whose document holds `node`, if any.
fn frame_of(page: &Page, node: NodeId) -> Option<NodeId> {
    page.ancestors(node)
        .find(|&a| matches!(page.tag(a), Some("iframe" | "frame")))
}

/// The dialog's accessible name, as the snapshot prints it; its role when
/// it has none.
pub fn dialog_name(page: &Page, dialog: NodeId) -> String {
    let tree = aria::build(page, dialog, Mode::Aria);
    let node = tree.nodes.iter().find(|n| n.node == Some(dialog));
    match node {
        Some(n) if !n.name.is_empty() => n.name.to_string(),
        Some(n) if !n.role.is_empty() => n.role.to_string(),
        _ => "dialog".into(),
    }
}

/// The line a budgeted view prints between the modal dialog it leads with
/// and the rest of the page.
pub fn behind_note(dialog: &str) -> String {
    let short: String = dialog.chars().take(40).collect();
    let ell = if dialog.chars().count() > 40 {
        "…"
    } else {
        ""
    };
    format!("# Behind the modal dialog \"{short}{ell}\" (inert until it closes):")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(html: &str) -> (Page, Layers) {
        let page = Page::parse(html);
        let l = Layers::of(&page);
        (page, l)
    }

    #[test]
    fn static_modality_comes_from_aria_modal() {
        let (p, l) = layers(
            "<button>Behind</button><div role=dialog aria-modal=true aria-label=Consent><button>OK</button></div>",
        );
        let m = p.query("[role=dialog]").unwrap();
        assert_eq!(l.modal, Some(m));
        let behind = p.query("button").unwrap();
        assert_eq!(l.blocker(&p, behind), Some(m));
        let ok = p.query("[role=dialog] button").unwrap();
        assert_eq!(l.blocker(&p, ok), None);
        assert_eq!(dialog_name(&p, m), "Consent");
        let err = l.check(&p, behind, "e1", |_| "ref e2".into()).unwrap_err();
        assert!(err.to_string().contains("\"Consent\" (ref e2)"), "{err}");
    }

    #[test]
    fn an_open_dialog_without_aria_modal_blocks_nothing() {
        let (p, l) = layers("<button>Behind</button><dialog open><p>Hi</p></dialog>");
        assert_eq!(l.modal, None);
        assert_eq!(l.popups, vec![p.query("dialog").unwrap()]);
        assert_eq!(l.blocker(&p, p.query("button").unwrap()), None);
        // Closed dialogs, hidden modal ones and popovers (closed in static HTML) are nothing.
        for html in [
            "<dialog><p>x</p></dialog>",
            "<div role=dialog aria-modal=true hidden>x</div>",
            "<div role=dialog aria-modal=false>x</div>",
            "<div popover>x</div>",
        ] {
            assert_eq!(layers(html).1, Layers::default(), "{html}");
        }
    }

    #[test]
    fn a_modal_in_a_frame_leaves_the_page_around_it_alone() {
        // A capture splices a frame's document under its <iframe>; the HTML
        // parser keeps iframe content as text, so build it as a capture does.
        let mut b = crate::page::PageBuilder::new();
        let doc = b.document();
        let html = b.element(doc, "", "HTML", []);
        let body = b.element(html, "", "BODY", []);
        b.element(body, "", "BUTTON", [("id".into(), "out".into())]);
        let frame = b.element(body, "", "IFRAME", []);
        let modal = [
            ("role".into(), "alertdialog".into()),
            ("aria-modal".into(), "true".into()),
        ];
        b.element(frame, "", "DIV", modal);
        b.element(frame, "", "A", [("id".into(), "in".into())]);
        let page = b.finish();
        let l = Layers::of(&page);
        let m = page.query("[role=alertdialog]").unwrap();
        // Views do not lead with it: the page around the frame is usable.
        assert_eq!((l.modal, &l.frame_modals[..]), (None, &[m][..]));
        assert_eq!(l.front_of(&page, m), Front::Popup);
        assert_eq!(l.blocker(&page, page.query("#in").unwrap()), Some(m));
        assert_eq!(l.blocker(&page, page.query("#out").unwrap()), None);
    }
}
