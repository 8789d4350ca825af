//! `DOMSnapshot.captureSnapshot` → [`Page`] with real [`Layout`].
//!
//! The snapshot is a set of flat, string-interned arrays per document. We
//! rebuild the tree with [`PageBuilder`] (nodes are listed parents first),
//! splice each iframe's document under its `<iframe>` element and each open
//! shadow root's children under its host, and attach a `Layout` to every node
//! that has a layout object.
//!
//! A snapshot holds only the documents of one renderer process. A frame on
//! another site runs in a process of its own (out-of-process iframe), so the
//! tab captures it through the frame's own CDP session: [`merge`] takes every
//! frame session's snapshot and splices each at the `<iframe>` that owns it,
//! as if it were same-process. A frame that cannot be read gets a one-line
//! note in its place, so the view says so instead of showing it empty.

use std::collections::HashSet;

use serde_json::Value;
use webfold_core::Page;
use webfold_core::page::{
    BuilderId, ComputedPaint, GeneratedContent, Layout, LayoutBox, NodeId, PageBuilder, Paint,
};

use crate::BrowserError;
use crate::launch::Viewport;

/// A captured page plus what we need to act on its nodes later.
pub struct CapturedPage {
    pub page: Page,
    /// Where each of our `NodeId`s (by index) lives in the browser: the
    /// index of its frame session in `frames` and its backend node id there
    /// (backend ids are only unique within one renderer process).
    pub backend_ids: Vec<Option<(usize, i64)>>,
    /// The frame sessions the page was captured from; the first is the tab's.
    pub frames: Vec<FrameLink>,
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub scroll: (f64, f64),
    /// Frames that had not loaded yet: the tab waits for them, up to a limit.
    pub(crate) loading: usize,
}

/// A frame session of a capture and where its frame sits in its parent's.
#[derive(Clone, Debug, Default)]
pub struct FrameLink {
    /// The frame's CDP session; `None` for the tab's own.
    pub session: Option<String>,
    /// The frame session (index) holding the frame's `<iframe>`, and that
    /// element's backend node id there; `None` for the tab's own.
    pub owner: Option<(usize, i64)>,
}

impl CapturedPage {
    pub fn backend_id(&self, id: NodeId) -> Option<i64> {
        self.live_node(id).map(|(_, b)| b)
    }

    /// The frame session (index into `frames`) and backend node id of a node.
    pub fn live_node(&self, id: NodeId) -> Option<(usize, i64)> {
        self.backend_ids.get(id.index()).copied().flatten()
    }
}

/// One frame session's snapshot, as [`merge`] takes it.
pub(crate) struct FrameCapture {
    pub link: FrameLink,
    /// The raw `DOMSnapshot.captureSnapshot` result, or why there is none.
    pub snap: Result<Value, String>,
    /// The frame's address as the browser last reported it.
    pub url: String,
}

struct Strings<'a>(&'a [Value]);

impl Strings<'_> {
    fn get(&self, idx: &Value) -> &str {
        idx.as_i64()
            .filter(|&i| i >= 0)
            .and_then(|i| self.0.get(i as usize))
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

fn arr<'a>(v: &'a Value, path: &str) -> &'a [Value] {
    v.pointer(path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Indexes (node positions) listed in a RareBooleanData / RareStringData.
fn rare_index(v: &Value, path: &str) -> Vec<usize> {
    arr(v, &format!("{path}/index"))
        .iter()
        .filter_map(|i| i.as_u64().map(|n| n as usize))
        .collect()
}

/// Form state typed or clicked into the live page. The core reads state from
/// attributes (`value`, `checked`, `selected`), so the live state replaces
/// them: the snapshot then shows what the user sees, not the initial markup.
struct LiveState {
    values: std::collections::HashMap<usize, String>,
    checked: std::collections::HashSet<usize>,
    selected: std::collections::HashSet<usize>,
}

impl LiveState {
    fn read(doc: &Value, strings: &Strings) -> LiveState {
        let values = rare_index(doc, "/nodes/inputValue")
            .into_iter()
            .zip(
                arr(doc, "/nodes/inputValue/value")
                    .iter()
                    .map(|v| strings.get(v).to_string()),
            )
            .collect();
        LiveState {
            values,
            checked: rare_index(doc, "/nodes/inputChecked").into_iter().collect(),
            selected: rare_index(doc, "/nodes/optionSelected")
                .into_iter()
                .collect(),
        }
    }

    fn apply(&self, node: usize, name: &str, attrs: &mut Vec<(String, String)>) {
        let set = |attrs: &mut Vec<(String, String)>, key: &str, value: Option<&str>| {
            attrs.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
            if let Some(v) = value {
                attrs.push((key.to_string(), v.to_string()));
            }
        };
        if name.eq_ignore_ascii_case("option") {
            set(
                attrs,
                "selected",
                self.selected.contains(&node).then_some(""),
            );
        } else if name.eq_ignore_ascii_case("input") {
            let ty = attrs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("type"))
                .map(|(_, v)| v.to_ascii_lowercase())
                .unwrap_or_default();
            if ty == "checkbox" || ty == "radio" {
                set(attrs, "checked", self.checked.contains(&node).then_some(""));
            } else if let Some(v) = self.values.get(&node) {
                set(attrs, "value", Some(v));
            }
        }
    }
}

/// Element `i`'s attributes as (name, value) pairs.
fn attributes(d: &DocNodes<'_>, i: usize) -> Vec<(String, String)> {
    let a = d
        .attrs
        .get(i)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    a.chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| {
            (
                d.strings.get(&c[0]).to_string(),
                d.strings.get(&c[1]).to_string(),
            )
        })
        .collect()
}

/// SVG elements whose content is only drawn where something references it.
const SVG_RESOURCES: &[&str] = &[
    "clipPath",
    "defs",
    "filter",
    "linearGradient",
    "marker",
    "mask",
    "pattern",
    "radialGradient",
    "symbol",
];

/// A layout object's box and the computed styles the capture asks for
/// (in the order `Tab::capture` lists them).
#[derive(Clone)]
struct NodeLayout {
    rect: LayoutBox,
    display: String,
    visibility: String,
    pointer_events: String,
    cursor: String,
    /// `auto` for an element in the top layer (a modal dialog, an open popover).
    overlay: String,
    paint: Paint,
}

struct DocLayout {
    by_node: Vec<Option<NodeLayout>>,
    /// Rendered text of each node's layout objects, in layout order. A
    /// pseudo-element's generated text lives in anonymous layout objects
    /// listed under the pseudo-element's node index.
    text: Vec<String>,
}

fn document_layout(doc: &Value, strings: &Strings, node_count: usize) -> DocLayout {
    let mut by_node = vec![None; node_count];
    let nodes = arr(doc, "/layout/nodeIndex");
    let styles = arr(doc, "/layout/styles");
    let bounds = arr(doc, "/layout/bounds");
    let texts = arr(doc, "/layout/text");
    let paint_orders = arr(doc, "/layout/paintOrders");
    let mut text = vec![String::new(); node_count];
    for (i, n) in nodes.iter().enumerate() {
        let Some(n) = n.as_u64().map(|n| n as usize) else {
            continue;
        };
        if n >= node_count {
            continue;
        }
        if let Some(t) = texts.get(i) {
            text[n].push_str(strings.get(t));
        }
        if by_node[n].is_some() {
            continue;
        }
        let b: Vec<f64> = bounds
            .get(i)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let rect = if b.len() == 4 {
            LayoutBox {
                x: b[0],
                y: b[1],
                width: b[2],
                height: b[3],
            }
        } else {
            LayoutBox::default()
        };
        let st: Vec<String> = styles
            .get(i)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|s| strings.get(s).to_string()).collect())
            .unwrap_or_default();
        let get = |k: usize| st.get(k).cloned().unwrap_or_default();
        let order = paint_orders.get(i).and_then(Value::as_u64).unwrap_or(0);
        by_node[n] = Some(NodeLayout {
            rect,
            display: get(0),
            visibility: get(1),
            pointer_events: get(3),
            cursor: get(4),
            overlay: get(5),
            paint: paint(&st, order),
        });
    }
    DocLayout { by_node, text }
}

/// How a layout object paints, from the computed styles in the order
/// `snapshot_params` lists them (from `opacity` at 2 and `color` at 6).
fn paint(st: &[String], order: u64) -> Paint {
    let get = |k: usize| st.get(k).map_or("", String::as_str);
    let computed = ComputedPaint {
        opacity: get(2),
        color: get(6),
        background_color: get(7),
        background_image: get(8),
        font_size: get(9),
        overflow_x: get(10),
        overflow_y: get(11),
        clip: get(12),
        clip_path: get(13),
        position: get(14),
    };
    Paint::from_computed(&computed, u32::try_from(order).unwrap_or(u32::MAX))
}

/// Each element's (`::before`, `::after`), by node index.
type Generated =
    std::collections::HashMap<usize, (Option<GeneratedContent>, Option<GeneratedContent>)>;

/// `::before`/`::after` content per element, keyed by the element's index
/// in the document's node arrays. A pseudo-element that `visibility` hides
/// is left out, as Playwright leaves it out of names and text.
fn generated_content(doc: &Value, strings: &Strings, layout: &DocLayout) -> Generated {
    let parents = arr(doc, "/nodes/parentIndex");
    let mut out = Generated::new();
    let kinds = rare_index(doc, "/nodes/pseudoType")
        .into_iter()
        .zip(arr(doc, "/nodes/pseudoType/value").iter());
    for (node, kind) in kinds {
        let kind = strings.get(kind);
        if kind != "before" && kind != "after" {
            continue;
        }
        let Some(parent) = parents
            .get(node)
            .and_then(Value::as_i64)
            .filter(|&p| p >= 0)
            .map(|p| p as usize)
        else {
            continue;
        };
        let Some(Some(NodeLayout {
            display,
            visibility,
            ..
        })) = layout.by_node.get(node)
        else {
            continue;
        };
        if visibility == "hidden" || display == "none" {
            continue;
        }
        let content = GeneratedContent {
            text: layout.text.get(node).cloned().unwrap_or_default(),
            display: display.clone(),
        };
        let slot = out.entry(parent).or_default();
        if kind == "before" {
            slot.0 = Some(content);
        } else {
            slot.1 = Some(content);
        }
    }
    out
}

/// Build a Page from the raw `DOMSnapshot.captureSnapshot` result of a
/// page whose frames all run in its process.
pub fn capture_snapshot(snap: &Value, viewport: Viewport) -> Result<CapturedPage, BrowserError> {
    let tab = FrameCapture {
        link: FrameLink::default(),
        snap: Ok(snap.clone()),
        url: String::new(),
    };
    merge(&[tab], viewport, "still loading", &HashSet::new())
}

/// Build one Page from the snapshots of a tab's frame sessions (the tab's
/// first). A frame still loading gets a note ending in `loading_note`; one
/// on its first empty document that has `stopped` loading shows it.
pub(crate) fn merge(
    frames: &[FrameCapture],
    viewport: Viewport,
    loading_note: &str,
    stopped: &HashSet<String>,
) -> Result<CapturedPage, BrowserError> {
    let tab = frames
        .first()
        .and_then(|f| f.snap.as_ref().ok())
        .ok_or_else(|| BrowserError::Protocol("snapshot has no document".into()))?;
    let main = arr(tab, "/documents")
        .first()
        .ok_or_else(|| BrowserError::Protocol("snapshot has no document".into()))?;
    let tab_strings = Strings(arr(tab, "/strings"));
    let offset = |k: &str| main.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let scroll = (offset("scrollOffsetX"), offset("scrollOffsetY"));
    let b = PageBuilder::new();
    let document = b.document();
    let mut cap = Capture {
        frames,
        owners: frames
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.link.owner.map(|o| (o, i)))
            .collect(),
        loading_note,
        stopped,
        loading: 0,
        view: LayoutBox {
            x: scroll.0,
            y: scroll.1,
            width: viewport.width as f64,
            height: viewport.height as f64,
        },
        b,
        backend: vec![None],
        work: vec![(0, 0, document, (0.0, 0.0))],
    };
    let mut seen_docs: Vec<Vec<bool>> = frames
        .iter()
        .map(|f| {
            let docs = f.snap.as_ref().map(|s| arr(s, "/documents").len());
            vec![false; docs.unwrap_or(0)]
        })
        .collect();
    while let Some((fi, di, attach, offset)) = cap.work.pop() {
        let seen = seen_docs.get_mut(fi).and_then(|s| s.get_mut(di));
        if seen.is_some_and(|s| !std::mem::replace(s, true)) {
            cap.document(fi, di, attach, offset);
        }
    }
    let (page, order) = cap.b.finish_with_order();
    let backend_ids = order
        .iter()
        .map(|&old| cap.backend.get(old).copied().flatten())
        .collect();
    let text = |k: &str| {
        main.get(k)
            .map(|v| tab_strings.get(v).to_string())
            .unwrap_or_default()
    };
    Ok(CapturedPage {
        page,
        backend_ids,
        frames: frames.iter().map(|f| f.link.clone()).collect(),
        url: text("documentURL"),
        title: text("title"),
        viewport,
        scroll,
        loading: cap.loading,
    })
}

/// The page being built from the frame sessions' documents.
struct Capture<'s> {
    frames: &'s [FrameCapture],
    /// (frame session, backend id of an `<iframe>` there) → the frame
    /// session showing that iframe's document.
    owners: std::collections::HashMap<(usize, i64), usize>,
    loading_note: &'s str,
    /// Frames (by id) that stopped loading.
    stopped: &'s HashSet<String>,
    /// Frames found still loading.
    loading: usize,
    /// The viewport, in page coordinates.
    view: LayoutBox,
    b: PageBuilder,
    /// The frame session and backend node id of each builder node, by
    /// builder index.
    backend: Vec<Option<(usize, i64)>>,
    /// Documents still to add: (frame session, document index, builder
    /// parent for its root's children, frame offset).
    work: Vec<(usize, usize, BuilderId, (f64, f64))>,
}

/// One document's node arrays, and what is read from them up front.
struct DocNodes<'a> {
    strings: &'a Strings<'a>,
    /// The frame session whose snapshot holds the document.
    frame: usize,
    index: usize,
    /// Every document's address and frame id in that snapshot, by
    /// document index.
    doc_urls: Vec<(&'a str, &'a str)>,
    parents: &'a [Value],
    types: &'a [Value],
    names: &'a [Value],
    values: &'a [Value],
    backend_ids: &'a [Value],
    attrs: &'a [Value],
    layout: DocLayout,
    generated: Generated,
    /// Node index of a frame element → the index of its content document.
    content_doc: std::collections::HashMap<usize, usize>,
    live: LiveState,
    /// The builder node made for each node index.
    ids: Vec<Option<BuilderId>>,
    /// Inside an SVG resource (`<mask>`, `<pattern>`, …).
    in_svg_resource: Vec<bool>,
}

impl<'s> Capture<'s> {
    /// Add document `di` of frame session `fi`'s snapshot under `attach`,
    /// its boxes moved by its frame's `offset`.
    fn document(&mut self, fi: usize, di: usize, attach: BuilderId, offset: (f64, f64)) {
        let frames = self.frames;
        let Ok(snap) = &frames[fi].snap else {
            return;
        };
        let strings = &Strings(arr(snap, "/strings"));
        let docs = arr(snap, "/documents");
        let Some(doc) = docs.get(di) else {
            return;
        };
        let field = |d: &Value, k: &str| d.get(k).map_or("", |v| strings.get(v));
        let doc_urls = docs
            .iter()
            .map(|d| (field(d, "documentURL"), field(d, "frameId")))
            .collect();
        let types = arr(doc, "/nodes/nodeType");
        let n = types.len();
        let layout = document_layout(doc, strings, n);
        let generated = generated_content(doc, strings, &layout);
        let content_doc = rare_index(doc, "/nodes/contentDocumentIndex")
            .into_iter()
            .zip(
                arr(doc, "/nodes/contentDocumentIndex/value")
                    .iter()
                    .filter_map(|v| v.as_u64().map(|x| x as usize)),
            )
            .collect();
        let mut d = DocNodes {
            strings,
            frame: fi,
            index: di,
            doc_urls,
            parents: arr(doc, "/nodes/parentIndex"),
            types,
            names: arr(doc, "/nodes/nodeName"),
            values: arr(doc, "/nodes/nodeValue"),
            backend_ids: arr(doc, "/nodes/backendNodeId"),
            attrs: arr(doc, "/nodes/attributes"),
            layout,
            generated,
            content_doc,
            live: LiveState::read(doc, strings),
            ids: vec![None; n],
            in_svg_resource: vec![false; n],
        };
        for i in 0..n {
            let parent = d
                .parents
                .get(i)
                .and_then(Value::as_i64)
                .filter(|&p| p >= 0)
                .map(|p| p as usize);
            let Some(p) = parent else {
                // The document node itself: its children attach where asked.
                d.ids[i] = Some(attach);
                continue;
            };
            let Some(parent_id) = d.ids.get(p).copied().flatten() else {
                continue; // parent dropped (e.g. a pseudo-element's)
            };
            d.in_svg_resource[i] = d.in_svg_resource[p]
                || d.names
                    .get(p)
                    .is_some_and(|v| SVG_RESOURCES.contains(&strings.get(v)));
            let Some(id) = self.node(&d, i, parent_id) else {
                continue;
            };
            d.ids[i] = Some(id);
            let ty = d.types[i].as_i64().unwrap_or(0);
            if ty != 11 {
                if self.backend.len() <= id.index() {
                    self.backend.resize(id.index() + 1, None);
                }
                self.backend[id.index()] = d
                    .backend_ids
                    .get(i)
                    .and_then(Value::as_i64)
                    .map(|b| (fi, b));
            }
            self.layout(&mut d, i, id, offset);
        }
    }

    /// Add node `i` of `d` under `parent_id`; `None` for what is no DOM
    /// node of ours (pseudo-elements, a frame's doctype, processing
    /// instructions).
    fn node(&mut self, d: &DocNodes<'_>, i: usize, parent_id: BuilderId) -> Option<BuilderId> {
        let strings = d.strings;
        let name = strings.get(&d.names[i]);
        let value = || strings.get(d.values.get(i).unwrap_or(&Value::Null));
        let id = match d.types[i].as_i64().unwrap_or(0) {
            1 => {
                if name.starts_with("::") {
                    return None; // pseudo-elements are not DOM nodes
                }
                let mut pairs = attributes(d, i);
                d.live.apply(i, name, &mut pairs);
                // The snapshot upper-cases HTML element names; SVG keeps its case.
                let ns = if name != name.to_ascii_uppercase() {
                    "http://www.w3.org/2000/svg"
                } else {
                    ""
                };
                self.b.element(parent_id, ns, name, pairs)
            }
            3 => self.b.text(parent_id, value()),
            8 => self.b.comment(parent_id, value()),
            10 if d.frame == 0 && d.index == 0 => self.b.doctype(name),
            // Shadow roots (document fragments): their children attach to the host.
            11 => parent_id,
            _ => return None,
        };
        Some(id)
    }

    /// Set node `i`'s layout on builder node `id`, and queue what a frame
    /// element shows, at the frame's place.
    fn layout(&mut self, d: &mut DocNodes<'_>, i: usize, id: BuilderId, offset: (f64, f64)) {
        let Some(Some(NodeLayout {
            mut rect,
            display,
            visibility,
            pointer_events,
            cursor,
            overlay,
            paint,
        })) = d.layout.by_node.get(i).cloned()
        else {
            self.frame_content(d, i, id, offset, None);
            return;
        };
        rect.x += offset.0;
        rect.y += offset.1;
        // The snapshot gives a mask's or pattern's content the box
        // it would paint at, but it is never rendered where it
        // stands: getBoundingClientRect() is empty, so no ref.
        if d.in_svg_resource[i] {
            rect.width = 0.0;
            rect.height = 0.0;
        }
        let rendered = !matches!(visibility.as_str(), "hidden" | "collapse") && display != "none";
        let view = &self.view;
        let in_viewport = rect.width >= 0.0
            && rect.x < view.x + view.width
            && rect.x + rect.width > view.x
            && rect.y < view.y + view.height
            && rect.y + rect.height > view.y;
        let (before, after) = d.generated.remove(&i).unwrap_or_default();
        self.b.set_layout(
            id,
            Layout {
                rendered,
                bounds: Some(rect),
                in_viewport,
                cursor: (!cursor.is_empty()).then_some(cursor),
                receives_pointer_events: pointer_events != "none",
                display: (!display.is_empty()).then_some(display),
                before,
                after,
                top_layer: overlay == "auto",
                paint: Some(paint),
            },
        );
        let shown = Shown {
            rect,
            rendered,
            in_viewport,
        };
        self.frame_content(d, i, id, (rect.x, rect.y), Some(shown));
    }

    /// Queue what element `i` shows as a frame, at `at`: its document in
    /// this snapshot, the snapshot of its out-of-process frame, or a note
    /// saying why it cannot be read. Not a frame: nothing.
    fn frame_content(
        &mut self,
        d: &DocNodes<'_>,
        i: usize,
        id: BuilderId,
        at: (f64, f64),
        shown: Option<Shown>,
    ) {
        let child = d.content_doc.get(&i).copied();
        let name = d.names.get(i).map(|n| d.strings.get(n)).unwrap_or("");
        let is_frame = matches!(name, "IFRAME" | "FRAME");
        if let Some(doc) = child {
            // A frame whose navigation has not committed still shows the
            // empty document every frame starts with; once it stopped
            // loading, that empty document is what it shows.
            let (url, frame_id) = d.doc_urls.get(doc).copied().unwrap_or_default();
            let initial = url == "about:blank"
                && !self.stopped.contains(frame_id)
                && attr(d, i, "srcdoc").is_none()
                && frame_src(d, i).is_some();
            if is_frame && initial {
                self.not_loaded(d, i, id, shown);
            } else {
                self.work.push((d.frame, doc, id, at));
            }
            return;
        }
        if !is_frame && self.owners.is_empty() {
            return; // the common case: no element here shows a frame
        }
        let backend = d.backend_ids.get(i).and_then(Value::as_i64);
        let remote = backend.and_then(|b| self.owners.get(&(d.frame, b)).copied());
        match remote.map(|fi| (fi, &self.frames[fi])) {
            // The browser's error page in a frame on another site names only
            // the host; the address is what lets a reader open it instead.
            Some((
                _,
                FrameCapture {
                    snap: Ok(s), url, ..
                },
            )) if is_error_page(s) => {
                let why = "it failed to load or refuses to be shown in a frame";
                self.note(id, shown, format!("(not readable: {why}) {url}"));
            }
            Some((fi, FrameCapture { snap: Ok(_), .. })) => self.work.push((fi, 0, id, at)),
            Some((
                _,
                FrameCapture {
                    snap: Err(why),
                    url,
                    ..
                },
            )) => {
                let text = format!("(not readable: {why}) {url}");
                self.note(id, shown, text);
            }
            None if is_frame => self.not_loaded(d, i, id, shown),
            None => {}
        }
    }

    /// Frame element `i` has no document to show yet: a note with its
    /// address, counted as loading unless it loads only when scrolled to.
    fn not_loaded(&mut self, d: &DocNodes<'_>, i: usize, id: BuilderId, shown: Option<Shown>) {
        let Some(url) = frame_src(d, i) else {
            return;
        };
        let lazy = attr(d, i, "loading").is_some_and(|l| l.eq_ignore_ascii_case("lazy"));
        let text = if lazy && !shown.is_some_and(|s| s.in_viewport) {
            format!("(not loaded yet: it loads when scrolled into view) {url}")
        } else {
            self.loading += 1;
            format!("(not readable: {}) {url}", self.loading_note)
        };
        self.note(id, shown, text);
    }

    /// A stand-in document under frame element `id` holding one line of text.
    fn note(&mut self, id: BuilderId, shown: Option<Shown>, text: String) {
        let html = self.b.element(id, "", "html", Vec::new());
        let body = self.b.element(html, "", "body", Vec::new());
        let line = self.b.text(body, text);
        let Some(shown) = shown else {
            return;
        };
        for node in [html, body, line] {
            self.b.set_layout(
                node,
                Layout {
                    rendered: shown.rendered,
                    bounds: Some(shown.rect),
                    in_viewport: shown.in_viewport,
                    receives_pointer_events: true,
                    display: Some("block".into()),
                    ..Layout::default()
                },
            );
        }
    }
}

/// Whether a frame session's snapshot is of the browser's error page.
fn is_error_page(snap: &Value) -> bool {
    let strings = Strings(arr(snap, "/strings"));
    arr(snap, "/documents")
        .first()
        .and_then(|d| d.get("documentURL"))
        .is_some_and(|u| strings.get(u).starts_with("chrome-error:"))
}

/// Where a frame element is on the page.
#[derive(Clone, Copy)]
struct Shown {
    rect: LayoutBox,
    rendered: bool,
    in_viewport: bool,
}

/// The value of element `i`'s attribute `name`.
fn attr(d: &DocNodes<'_>, i: usize, name: &str) -> Option<String> {
    attributes(d, i)
        .into_iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

/// The http(s) address frame element `i` loads, resolved against its
/// document's address; `None` when it loads nothing from the web.
fn frame_src(d: &DocNodes<'_>, i: usize) -> Option<String> {
    let src = attr(d, i, "src")?;
    let base = url::Url::parse(d.doc_urls.get(d.index).map_or("", |u| u.0)).ok();
    let url = match base {
        Some(base) => base.join(src.trim()).ok()?,
        None => url::Url::parse(src.trim()).ok()?,
    };
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}
