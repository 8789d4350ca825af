//! Acting on the live page by snapshot ref or CNT node id.
//!
//! A ref or id names a node of a *capture*; the capture keeps each node's
//! backend node id, which is how we find the live DOM node again. Before
//! acting we check the node is still in the document and still the same kind
//! of element: if not, the agent's view is stale and it must snapshot again.
//!
//! A node inside an out-of-process frame is reached through that frame's
//! CDP session: DOM and script calls go there. Mouse and keyboard input goes
//! to the tab, as a person's would, so the frame's place on the page (its
//! `<iframe>`'s content box, frame by frame up to the tab) is added to the
//! coordinates the frame reports.

use serde_json::{Value, json};
use webfold_core::action::Target;
use webfold_core::page::NodeId;
use webfold_core::snapshot::SnapshotSession;

use crate::BrowserError;
use crate::capture::CapturedPage;
use crate::launch::Tab;

/// A node of the live page, checked to still be the one the capture saw.
#[derive(Clone, Debug)]
pub struct LiveElement {
    pub backend_id: i64,
    object_id: String,
    label: String,
    /// The CDP session of its frame; `None` for the tab's own.
    session: Option<String>,
    /// The `<iframe>`s holding it, innermost first: each one's session and
    /// backend node id. Empty for a node of the tab's own process.
    frames: Vec<(Option<String>, i64)>,
}

impl CapturedPage {
    /// The captured node a target names, and its backend node id. A ref
    /// that names nothing is stale when a snapshot of this page issued it
    /// (its element has gone since), and unknown when none did.
    pub fn resolve(
        &self,
        target: &Target,
        session: Option<&SnapshotSession>,
    ) -> Result<(NodeId, (usize, i64)), BrowserError> {
        let stale = || BrowserError::Stale(target.to_string());
        let node = target
            .resolve(&self.page, &self.url, session)
            .map_err(|_| match target {
                Target::Ref(r) if !session.is_some_and(|s| s.issued(r)) => {
                    BrowserError::View(webfold_core::Error::UnknownRef(r.clone()))
                }
                _ => stale(),
            })?;
        let backend = self.live_node(node).ok_or_else(stale)?;
        Ok((node, backend))
    }

    /// The `<iframe>`s holding frame session `frame`'s document, innermost
    /// first, each with the session it is in.
    fn frame_chain(&self, mut frame: usize) -> Vec<(Option<String>, i64)> {
        let mut chain = Vec::new();
        while let Some((parent, owner)) = self.frames.get(frame).and_then(|f| f.owner) {
            if chain.len() >= self.frames.len() {
                break; // a loop would be the browser's error; stop anyway
            }
            let session = self.frames.get(parent).and_then(|p| p.session.clone());
            chain.push((session, owner));
            frame = parent;
        }
        chain
    }
}

/// Keys `press` knows besides single characters: (key, code, keyCode, text).
const KEYS: &[(&str, &str, i64, &str)] = &[
    ("Enter", "Enter", 13, "\r"),
    ("Tab", "Tab", 9, ""),
    ("Escape", "Escape", 27, ""),
    ("Backspace", "Backspace", 8, ""),
    ("Delete", "Delete", 46, ""),
    ("ArrowUp", "ArrowUp", 38, ""),
    ("ArrowDown", "ArrowDown", 40, ""),
    ("ArrowLeft", "ArrowLeft", 37, ""),
    ("ArrowRight", "ArrowRight", 39, ""),
    ("Home", "Home", 36, ""),
    ("End", "End", 35, ""),
    ("PageUp", "PageUp", 33, ""),
    ("PageDown", "PageDown", 34, ""),
    ("Space", "Space", 32, " "),
];

/// `this` is an open modal dialog (see [`Tab::is_modal`]).
const IS_MODAL: &str = r#"function() {
    if (!this.isConnected) return false;
    if (this.localName === 'dialog' && this.matches(':modal')) return true;
    const implicit = this.localName === 'dialog' ? 'dialog' : '';
    const role = (this.getAttribute('role') || implicit).trim().toLowerCase();
    const ariaModal = (this.getAttribute('aria-modal') || '').trim().toLowerCase() === 'true';
    return (role === 'dialog' || role === 'alertdialog') && ariaModal && this.checkVisibility();
}"#;

impl Tab {
    /// The live node behind `target` in `captured`, or a stale-ref error.
    pub async fn element(
        &self,
        captured: &CapturedPage,
        target: &Target,
        session: Option<&SnapshotSession>,
    ) -> Result<LiveElement, BrowserError> {
        let (node, (frame, backend_id)) = captured.resolve(target, session)?;
        let stale = || BrowserError::Stale(target.to_string());
        let frame_session = captured.frames.get(frame).and_then(|f| f.session.clone());
        let resolved = self
            .call_in(
                frame_session.as_deref(),
                "DOM.resolveNode",
                json!({ "backendNodeId": backend_id }),
            )
            .await
            .map_err(|_| stale())?;
        let object_id = resolved
            .pointer("/object/objectId")
            .and_then(Value::as_str)
            .ok_or_else(stale)?
            .to_string();
        let tag = captured
            .page
            .element(node)
            .map(|e| e.local_name().to_ascii_lowercase())
            .unwrap_or_default();
        let el = LiveElement {
            backend_id,
            object_id,
            label: target.to_string(),
            session: frame_session,
            frames: captured.frame_chain(frame),
        };
        let same = self
            .call_on(
                &el,
                "function(tag) { return this.isConnected && this.localName.toLowerCase() === tag; }",
                &[json!(tag)],
            )
            .await?;
        if same != Value::Bool(true) {
            return Err(stale());
        }
        Ok(el)
    }

    /// Whether the element is an open modal dialog now: `dialog:modal` (in
    /// the top layer), or a visible `dialog`/`alertdialog` with
    /// `aria-modal="true"`.
    pub async fn is_modal(&self, el: &LiveElement) -> Result<bool, BrowserError> {
        let modal = self.call_on(el, IS_MODAL, &[]).await?;
        Ok(modal == Value::Bool(true))
    }

    /// Calls a JavaScript function with `this` bound to the element.
    async fn call_on(
        &self,
        el: &LiveElement,
        function: &str,
        args: &[Value],
    ) -> Result<Value, BrowserError> {
        let args: Vec<Value> = args.iter().map(|v| json!({ "value": v })).collect();
        let r = self
            .call_in(
                el.session.as_deref(),
                "Runtime.callFunctionOn",
                json!({
                    "objectId": el.object_id,
                    "functionDeclaration": function,
                    "arguments": args,
                    "returnByValue": true,
                    "awaitPromise": true,
                }),
            )
            .await
            .map_err(|_| BrowserError::Stale(el.label.clone()))?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(BrowserError::Protocol(format!("script threw: {ex}")));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// Scrolls the element into view and returns the centre of its box.
    async fn centre(&self, el: &LiveElement) -> Result<(f64, f64), BrowserError> {
        self.scroll_into_view(el).await?;
        let quads = self
            .call_in(
                el.session.as_deref(),
                "DOM.getContentQuads",
                json!({ "backendNodeId": el.backend_id }),
            )
            .await
            .map_err(|_| BrowserError::NoBox(el.label.clone()))?;
        let coords: Vec<f64> = quads
            .pointer("/quads/0")
            .and_then(Value::as_array)
            .map(|q| q.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if coords.len() < 8 {
            return Err(BrowserError::NoBox(el.label.clone()));
        }
        let (fx, fy) = self.frame_origin(el).await?;
        Ok((
            fx + (coords[0] + coords[2] + coords[4] + coords[6]) / 4.0,
            fy + (coords[1] + coords[3] + coords[5] + coords[7]) / 4.0,
        ))
    }

    /// Where the viewport of the element's frame starts in the tab's: the
    /// content-box corner of each out-of-process `<iframe>` holding it, as
    /// each one's own frame reports it. (0, 0) in the tab's own process.
    async fn frame_origin(&self, el: &LiveElement) -> Result<(f64, f64), BrowserError> {
        let (mut x, mut y) = (0.0, 0.0);
        for (session, owner) in &el.frames {
            let model = self
                .call_in(
                    session.as_deref(),
                    "DOM.getBoxModel",
                    json!({ "backendNodeId": owner }),
                )
                .await
                .map_err(|_| BrowserError::NoBox(el.label.clone()))?;
            let corner = |i: usize| {
                model
                    .pointer(&format!("/model/content/{i}"))
                    .and_then(Value::as_f64)
            };
            let (Some(cx), Some(cy)) = (corner(0), corner(1)) else {
                return Err(BrowserError::NoBox(el.label.clone()));
            };
            x += cx;
            y += cy;
        }
        Ok((x, y))
    }

    /// Scrolls the element into view: each `<iframe>` holding it first,
    /// outermost first, then the element within its frame.
    pub async fn scroll_into_view(&self, el: &LiveElement) -> Result<(), BrowserError> {
        let frames = el.frames.iter().rev().map(|(s, b)| (s.as_deref(), *b));
        for (session, backend) in frames.chain([(el.session.as_deref(), el.backend_id)]) {
            self.call_in(
                session,
                "DOM.scrollIntoViewIfNeeded",
                json!({ "backendNodeId": backend }),
            )
            .await
            .map_err(|_| BrowserError::NoBox(el.label.clone()))?;
        }
        Ok(())
    }

    /// A real mouse click at the element's centre (so overlays intercept it as
    /// they would for a person).
    pub async fn click(&self, el: &LiveElement) -> Result<(), BrowserError> {
        let (x, y) = self.centre(el).await?;
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )
            .await?;
        }
        Ok(())
    }

    pub async fn hover(&self, el: &LiveElement) -> Result<(), BrowserError> {
        let (x, y) = self.centre(el).await?;
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        )
        .await?;
        Ok(())
    }

    /// Replaces the field's value with `text`, as typed (input events fire).
    pub async fn fill(&self, el: &LiveElement, text: &str) -> Result<(), BrowserError> {
        self.call_in(
            el.session.as_deref(),
            "DOM.focus",
            json!({ "backendNodeId": el.backend_id }),
        )
        .await
        .map_err(|_| BrowserError::NotEditable(el.label.clone()))?;
        let editable = self
            .call_on(
                el,
                "function() {
                    const notText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'];
                    if (this.localName === 'textarea' || (this.localName === 'input' && !notText.includes(this.type))) { this.select(); return true; }
                    if (this.isContentEditable) { document.getSelection().selectAllChildren(this); return true; }
                    return false;
                }",
                &[],
            )
            .await?;
        if editable != Value::Bool(true) {
            return Err(BrowserError::NotEditable(el.label.clone()));
        }
        if text.is_empty() {
            self.press("Delete").await
        } else {
            self.call("Input.insertText", json!({ "text": text }))
                .await?;
            Ok(())
        }
    }

    /// Selects options of a `<select>` by value or visible text; returns the
    /// values now selected.
    pub async fn select(
        &self,
        el: &LiveElement,
        choices: &[String],
    ) -> Result<Vec<String>, BrowserError> {
        let r = self
            .call_on(
                el,
                "function(choices) {
                    if (this.localName !== 'select') return null;
                    const opts = Array.from(this.options);
                    const picked = choices.map(c => opts.find(o => o.value === c || o.label.trim() === c.trim()));
                    if (picked.some(o => !o)) return { missing: choices.filter((c, i) => !picked[i]) };
                    for (const o of opts) o.selected = picked.includes(o);
                    this.dispatchEvent(new Event('input', { bubbles: true }));
                    this.dispatchEvent(new Event('change', { bubbles: true }));
                    return { selected: picked.map(o => o.value) };
                }",
                &[json!(choices)],
            )
            .await?;
        if r.is_null() {
            return Err(BrowserError::Unsupported(format!(
                "{} is not a <select>; select works on list boxes and combo boxes",
                el.label
            )));
        }
        if let Some(missing) = r.get("missing") {
            return Err(BrowserError::Unsupported(format!(
                "{} has no option {missing}; the snapshot lists its options",
                el.label
            )));
        }
        Ok(r.get("selected")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Sets a checkbox or radio to `checked` by clicking it when it differs.
    pub async fn check(&self, el: &LiveElement, checked: bool) -> Result<(), BrowserError> {
        let state = self
            .call_on(
                el,
                "function() { return 'checked' in this ? this.checked : null; }",
                &[],
            )
            .await?;
        match state.as_bool() {
            None => Err(BrowserError::Unsupported(format!(
                "{} is not a checkbox or radio button",
                el.label
            ))),
            Some(now) if now == checked => Ok(()),
            Some(_) => self.click(el).await,
        }
    }

    /// Presses a key on whatever has focus: a single character or a named
    /// key (Enter, Tab, Escape, Backspace, Arrow…, Home, End, PageUp/Down).
    pub async fn press(&self, key: &str) -> Result<(), BrowserError> {
        let (key, code, key_code, text) = match KEYS.iter().find(|k| k.0 == key) {
            Some(&(k, c, n, t)) => (k.to_string(), c.to_string(), n, t.to_string()),
            None if key.chars().count() == 1 => {
                let ch = key.chars().next().unwrap_or(' ');
                let upper = ch.to_ascii_uppercase();
                let code = if ch.is_ascii_alphabetic() {
                    format!("Key{upper}")
                } else if ch.is_ascii_digit() {
                    format!("Digit{ch}")
                } else {
                    String::new()
                };
                (key.to_string(), code, upper as i64, key.to_string())
            }
            None => {
                return Err(BrowserError::Unsupported(format!(
                    "unknown key '{key}'; use a single character or one of: {}",
                    KEYS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
                )));
            }
        };
        let mut down = json!({ "type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": key_code });
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down).await?;
        self.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code }),
        )
        .await?;
        Ok(())
    }

    /// Goes one entry back in the tab's history and waits for it to show.
    pub async fn go_back(&self) -> Result<(), BrowserError> {
        let history = self.call("Page.getNavigationHistory", json!({})).await?;
        let current = history
            .get("currentIndex")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let entry = (current > 0)
            .then(|| history.pointer(&format!("/entries/{}/id", current - 1)))
            .flatten()
            .and_then(Value::as_i64)
            .ok_or_else(|| {
                BrowserError::Unsupported("there is no previous page in this tab's history".into())
            })?;
        let mut events = self.conn.subscribe();
        self.call("Page.navigateToHistoryEntry", json!({ "entryId": entry }))
            .await?;
        self.wait_for_event(
            &mut events,
            // A page restored from the back/forward cache fires no load event.
            |e| {
                matches!(
                    e.method.as_str(),
                    "Page.loadEventFired" | "Page.navigatedWithinDocument"
                ) || (e.method == "Page.frameNavigated"
                    && e.params.get("type").and_then(Value::as_str)
                        == Some("BackForwardCacheRestore"))
            },
            "the previous page to load",
        )
        .await
    }

    /// A PNG of the viewport, or of one element, shrunk by the browser
    /// (`clip.scale`) so its longer side is at most `max_side` pixels; never
    /// enlarged. Models take images of bounded size, and scaling while
    /// rendering spares us an image codec.
    pub async fn screenshot(
        &self,
        element: Option<&LiveElement>,
        max_side: Option<u32>,
    ) -> Result<Vec<u8>, BrowserError> {
        let mut params = json!({ "format": "png" });
        let clip = match element {
            Some(el) => Some(self.element_clip(el).await?),
            None if max_side.is_some() => Some(self.viewport_clip().await?),
            None => None,
        };
        if let Some(Clip {
            x,
            y,
            width,
            height,
        }) = clip
        {
            let scale = scale_for(width, height, max_side);
            params["clip"] =
                json!({ "x": x, "y": y, "width": width, "height": height, "scale": scale });
            if element.is_some() {
                params["captureBeyondViewport"] = json!(true);
            }
        }
        let clipped = params.get("clip").is_some();
        let r = self.call("Page.captureScreenshot", params).await?;
        if clipped {
            // A clip is drawn by moving and scaling the page's view for a
            // moment; input sent before the page is drawn at its own view
            // again lands off target (a frame on another site misses it).
            let drawn = self.evaluate(
                "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
            );
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drawn).await;
        }
        let data = r
            .get("data")
            .and_then(Value::as_str)
            .ok_or_else(|| BrowserError::Protocol("no screenshot data".into()))?;
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, data)
            .map_err(|e| BrowserError::Protocol(format!("bad base64 in screenshot: {e}")))
    }

    /// The element's border box in page coordinates, scrolled into view first.
    async fn element_clip(&self, el: &LiveElement) -> Result<Clip, BrowserError> {
        self.scroll_into_view(el).await?;
        let bm = self
            .call_in(
                el.session.as_deref(),
                "DOM.getBoxModel",
                json!({ "backendNodeId": el.backend_id }),
            )
            .await
            .map_err(|_| BrowserError::NoBox(el.label.clone()))?;
        let q: Vec<f64> = bm
            .pointer("/model/border")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if q.len() < 8 {
            return Err(BrowserError::NoBox(el.label.clone()));
        }
        let xs = [q[0], q[2], q[4], q[6]];
        let ys = [q[1], q[3], q[5], q[7]];
        let min = |v: [f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (width, height) = (max(xs) - min(xs), max(ys) - min(ys));
        if width < 1.0 || height < 1.0 {
            return Err(BrowserError::NoBox(el.label.clone()));
        }
        // The box model is relative to its frame's viewport; clips are the
        // tab's page coordinates.
        let (fx, fy) = self.frame_origin(el).await?;
        let scroll = self.evaluate("[window.scrollX, window.scrollY]").await?;
        let sx = scroll.pointer("/0").and_then(Value::as_f64).unwrap_or(0.0);
        let sy = scroll.pointer("/1").and_then(Value::as_f64).unwrap_or(0.0);
        Ok(Clip {
            x: min(xs) + fx + sx,
            y: min(ys) + fy + sy,
            width,
            height,
        })
    }

    /// What is on screen now, in page coordinates.
    async fn viewport_clip(&self) -> Result<Clip, BrowserError> {
        let m = self.call("Page.getLayoutMetrics", json!({})).await?;
        let get = |k: &str| {
            m.pointer(&format!("/cssVisualViewport/{k}"))
                .and_then(Value::as_f64)
        };
        match (
            get("pageX"),
            get("pageY"),
            get("clientWidth"),
            get("clientHeight"),
        ) {
            (Some(x), Some(y), Some(width), Some(height)) if width >= 1.0 && height >= 1.0 => {
                Ok(Clip {
                    x,
                    y,
                    width,
                    height,
                })
            }
            _ => Err(BrowserError::Protocol(format!(
                "no visual viewport in the layout metrics: {m}"
            ))),
        }
    }
}

/// A capture rectangle in page coordinates (CSS pixels).
struct Clip {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

/// The scale that brings the longer side to `max_side` pixels at most. The
/// browser rounds the scaled box outwards, so the factor is taken against the
/// rounded-up side to keep the result within the limit.
fn scale_for(width: f64, height: f64, max_side: Option<u32>) -> f64 {
    let long = width.max(height).ceil();
    match max_side {
        Some(m) if long > f64::from(m) => f64::from(m.max(1)) / long,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::scale_for;

    #[test]
    fn scale_shrinks_the_longer_side_and_never_enlarges() {
        assert_eq!(scale_for(1280.0, 720.0, Some(1024)), 0.8);
        assert_eq!(scale_for(720.0, 2048.0, Some(1024)), 0.5);
        assert_eq!(scale_for(300.0, 200.0, Some(1024)), 1.0);
        assert_eq!(scale_for(1280.0, 720.0, None), 1.0);
        // A fractional side is rounded up first, so the result stays within the limit.
        let s = scale_for(1500.4, 10.0, Some(1024));
        assert!((1500.4 * s).ceil() <= 1024.0, "{s}");
    }
}
