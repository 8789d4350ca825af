//! Out-of-process frames: a frame on another site than its parent runs in a
//! renderer of its own, which the tab's snapshot cannot see into.
//!
//! The tab asks the browser to attach to such frames as they appear
//! (`Target.setAutoAttach`, flat sessions on the tab's socket); the
//! `Target.*` events reach the tab's [`FrameTargets`] without loss and are
//! read when it captures. A capture then takes one snapshot per frame
//! session and [`merge`] splices each under its `<iframe>`. A page with no
//! frame element pays for none of this but a scan of its string table.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::BrowserError;
use crate::capture::{CapturedPage, FrameCapture, FrameLink, merge};
use crate::cdp::{CdpError, Connection, Event};
use crate::launch::Tab;

/// How long a capture waits for frames still loading, and for one frame's
/// snapshot. A page whose frames never finish must still be seen.
pub const FRAME_WAIT: Duration = Duration::from_secs(2);

/// What one snapshot holds: the DOM, layout boxes and the styles that
/// decide visibility (`overlay`: `auto` only in the top layer, where open
/// modal dialogs and popovers are), and what decides whether a person can
/// see rendered text: colours, sizes, clipping, position, paint order.
/// Nothing more: each box's offset, scroll and client rectangles
/// (`includeDOMRects`) cost the browser a third of the capture and no view
/// reads them; the layout bounds come without asking.
fn snapshot_params() -> Value {
    json!({
        "computedStyles": [
            "display", "visibility", "opacity", "pointer-events", "cursor", "overlay",
            "color", "background-color", "background-image", "font-size", "overflow-x",
            "overflow-y", "clip", "clip-path", "position",
        ],
        "includePaintOrder": true,
    })
}

/// Has the browser attach the tab to the out-of-process frames of a
/// session's frame, now and as they come. Only frames: workers are no part
/// of a page's view (a browser that knows no target filter attaches them
/// too, and the tab ignores them).
pub(crate) async fn auto_attach(conn: &Connection, session: &str) -> Result<(), CdpError> {
    let mut params = json!({
        "autoAttach": true,
        "waitForDebuggerOnStart": false,
        "flatten": true,
        "filter": [{ "type": "iframe" }],
    });
    let method = "Target.setAutoAttach";
    if conn
        .call(Some(session), method, params.clone())
        .await
        .is_ok()
    {
        return Ok(());
    }
    if let Some(p) = params.as_object_mut() {
        p.remove("filter");
    }
    conn.call(Some(session), method, params).await.map(|_| ())
}

/// One out-of-process frame the browser attached the tab to.
#[derive(Clone)]
struct FrameTarget {
    /// The frame's id (an iframe target's id is its frame's).
    frame_id: String,
    /// The session of the frame that holds its `<iframe>`.
    parent: String,
    url: String,
    /// Its own frames are attached too.
    ready: bool,
    /// Its renderer crashed: the frame shows nothing until it loads again.
    crashed: bool,
}

/// The tab's out-of-process frames, kept up to date from `Target.*` events,
/// and which frames have stopped loading.
pub(crate) struct FrameTargets {
    events: mpsc::UnboundedReceiver<Event>,
    /// By session id, in the order they attached (parents first).
    attached: Vec<(String, FrameTarget)>,
    /// Frames (by id) that stopped loading since they last started: one of
    /// them still on its first empty document loaded nothing (a 204 answer, a
    /// download) and is not waited for.
    stopped: HashSet<String>,
}

impl FrameTargets {
    pub(crate) fn new(events: mpsc::UnboundedReceiver<Event>) -> FrameTargets {
        FrameTargets {
            events,
            attached: Vec::new(),
            stopped: HashSet::new(),
        }
    }

    /// Reads the events received so far.
    fn drain(&mut self, tab: &str) {
        while let Ok(e) = self.events.try_recv() {
            self.apply(&e, tab);
        }
    }

    /// Reads the events received so far; the sessions whose own frames are
    /// still to attach.
    fn update(&mut self, tab: &str) -> Vec<String> {
        self.drain(tab);
        self.attached
            .iter_mut()
            .filter(|(_, t)| !t.ready)
            .map(|(s, t)| {
                t.ready = true;
                s.clone()
            })
            .collect()
    }

    fn apply(&mut self, e: &Event, tab: &str) {
        let session = e.params.get("sessionId").and_then(Value::as_str);
        let info = e.params.get("targetInfo");
        let field = |k: &str| {
            info.and_then(|i| i.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let frame = e.params.get("frameId").and_then(Value::as_str);
        match (e.method.as_str(), frame) {
            ("Page.frameStoppedLoading", Some(f)) => {
                self.stopped.insert(f.to_string());
            }
            ("Page.frameStartedLoading" | "Page.frameDetached", Some(f)) => {
                self.stopped.remove(f);
            }
            ("Target.attachedToTarget", _) => {
                let Some(parent) = e.session_id.as_deref() else {
                    return;
                };
                let ours = parent == tab || self.attached.iter().any(|(s, _)| s == parent);
                if !ours || field("type") != "iframe" {
                    return;
                }
                let target = FrameTarget {
                    frame_id: field("targetId"),
                    parent: parent.to_string(),
                    url: field("url"),
                    ready: false,
                    crashed: false,
                };
                // A frame loaded again replaces its crashed self.
                self.attached.retain(|(_, t)| t.frame_id != target.frame_id);
                if let Some(session) = session {
                    self.attached.push((session.to_string(), target));
                }
            }
            // A crashed frame stays, to say so, until it loads again.
            ("Target.detachedFromTarget", _) => {
                self.attached
                    .retain(|(s, t)| Some(s.as_str()) != session || t.crashed);
            }
            ("Inspector.targetCrashed", _) => {
                let crashed = e.session_id.as_deref();
                for (_, t) in self
                    .attached
                    .iter_mut()
                    .filter(|(s, _)| Some(s.as_str()) == crashed)
                {
                    t.crashed = true;
                }
            }
            ("Target.targetInfoChanged", _) => {
                let id = field("targetId");
                for (_, t) in self.attached.iter_mut().filter(|(_, t)| t.frame_id == id) {
                    t.url = field("url");
                }
            }
            _ => {}
        }
    }
}

impl Tab {
    /// The page with every frame's content: one snapshot per frame session,
    /// merged. Frames still loading are waited for, up to [`FRAME_WAIT`];
    /// then they say so in the page.
    pub async fn capture(&self) -> Result<CapturedPage, BrowserError> {
        let deadline = Instant::now() + FRAME_WAIT;
        // Subscribed first: a frame that loads while we capture wakes us.
        let mut events = self.conn.subscribe();
        loop {
            let captured = self.capture_once().await?;
            if captured.loading == 0 || Instant::now() >= deadline {
                return Ok(captured);
            }
            let _ = tokio::time::timeout_at(deadline, frame_changed(&mut events)).await;
        }
    }

    async fn capture_once(&self) -> Result<CapturedPage, BrowserError> {
        let snap = self
            .call("DOMSnapshot.captureSnapshot", snapshot_params())
            .await?;
        let has_frames = snap
            .get("strings")
            .and_then(Value::as_array)
            .is_some_and(|s| {
                s.iter()
                    .any(|v| matches!(v.as_str(), Some("IFRAME" | "FRAME" | "OBJECT" | "EMBED")))
            });
        let mut frames = vec![FrameCapture {
            link: FrameLink::default(),
            snap: Ok(snap),
            url: String::new(),
        }];
        let stopped = match self.frames.lock() {
            Ok(mut f) => {
                f.drain(&self.session);
                if has_frames {
                    f.stopped.clone()
                } else {
                    HashSet::new()
                }
            }
            Err(_) => HashSet::new(),
        };
        if has_frames {
            self.attach_frames().await;
            frames.extend(self.frame_captures().await);
        }
        let loading = format!("still loading after {} s", FRAME_WAIT.as_secs());
        merge(&frames, self.viewport(), &loading, &stopped)
    }

    /// Reads the frames attached so far, and attaches to their own frames
    /// in turn (the browser reports those before it answers, so a pass
    /// finds the next level down).
    async fn attach_frames(&self) {
        loop {
            let fresh = match self.frames.lock() {
                Ok(mut f) => f.update(&self.session),
                Err(_) => return,
            };
            if fresh.is_empty() {
                return;
            }
            join_all(fresh.iter().map(|s| async move {
                let session = Some(s.as_str());
                // Page events tell a capture waiting on the frame that it
                // loaded; Inspector's, that it crashed. A frame dying now
                // may never answer: it is not waited for past the limit.
                let _ = tokio::time::timeout(FRAME_WAIT, auto_attach(&self.conn, s)).await;
                for method in ["Page.enable", "Inspector.enable"] {
                    let call = self.conn.call(session, method, json!({}));
                    let _ = tokio::time::timeout(FRAME_WAIT, call).await;
                }
            }))
            .await;
        }
    }

    /// One snapshot per attached frame, with the `<iframe>` it belongs to.
    async fn frame_captures(&self) -> Vec<FrameCapture> {
        let targets: Vec<(String, FrameTarget)> = match self.frames.lock() {
            Ok(f) => f
                .attached
                .iter()
                .map(|(s, t)| (s.clone(), t.clone()))
                .collect(),
            Err(_) => return Vec::new(),
        };
        let index_of = |session: &str| {
            if session == self.session {
                return Some(0);
            }
            targets.iter().position(|t| t.0 == session).map(|i| i + 1)
        };
        join_all(targets.iter().map(|(session, t)| async move {
            let owner = self.conn.call(
                Some(&t.parent),
                "DOM.getFrameOwner",
                json!({ "frameId": t.frame_id }),
            );
            let owner = tokio::time::timeout(FRAME_WAIT, owner)
                .await
                .ok()
                .and_then(Result::ok)
                .and_then(|o| o.get("backendNodeId").and_then(Value::as_i64));
            FrameCapture {
                link: FrameLink {
                    session: Some(session.clone()),
                    owner: index_of(&t.parent).zip(owner),
                },
                snap: self.frame_snapshot(session, t.crashed).await,
                url: t.url.clone(),
            }
        }))
        .await
    }

    /// One frame session's snapshot, or why there is none, in the words the
    /// page shows.
    async fn frame_snapshot(&self, session: &str, crashed: bool) -> Result<Value, String> {
        if crashed {
            return Err("the frame crashed".into());
        }
        let snap = self.conn.call(
            Some(session),
            "DOMSnapshot.captureSnapshot",
            snapshot_params(),
        );
        match tokio::time::timeout(FRAME_WAIT, snap).await {
            // A frame whose renderer crashed answers with no document.
            Ok(Ok(snap)) if has_document(&snap) => Ok(snap),
            Ok(Ok(_)) => Err("the frame has no document; its process may have crashed".into()),
            Ok(Err(e)) => Err(format!("the frame did not answer ({e})")),
            Err(_) => Err(format!(
                "the frame did not answer within {} s",
                FRAME_WAIT.as_secs()
            )),
        }
    }
}

fn has_document(snap: &Value) -> bool {
    snap.get("documents")
        .and_then(Value::as_array)
        .is_some_and(|d| !d.is_empty())
}

/// Waits for news of a frame: one attached or gone, navigated or loaded.
async fn frame_changed(events: &mut tokio::sync::broadcast::Receiver<Event>) {
    loop {
        match events.recv().await {
            Ok(e)
                if matches!(
                    e.method.as_str(),
                    "Target.attachedToTarget"
                        | "Target.detachedFromTarget"
                        | "Target.targetInfoChanged"
                        | "Page.frameNavigated"
                        | "Page.frameStoppedLoading"
                        | "Page.loadEventFired"
                ) =>
            {
                return;
            }
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}
