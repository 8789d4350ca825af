//! Launching (or attaching to) Chromium and driving one tab.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::BrowserError;
use crate::cdp::Connection;
use crate::frames::{FrameTargets, auto_attach};

/// The layout viewport, in CSS pixels. Playwright's default is 1280×720.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            width: 1280,
            height: 720,
        }
    }
}

impl std::str::FromStr for Viewport {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("viewport '{s}': expected WIDTHxHEIGHT, e.g. 1280x720"))?;
        let parse = |v: &str| {
            v.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (100..=10_000).contains(n))
        };
        match (parse(w), parse(h)) {
            (Some(width), Some(height)) => Ok(Viewport { width, height }),
            _ => Err(format!(
                "viewport '{s}': width and height must be 100–10000 pixels"
            )),
        }
    }
}

#[derive(Clone, Debug)]
pub struct BrowserOptions {
    /// Chromium binary; `/usr/bin/chromium` (Debian's package) by default.
    pub executable: PathBuf,
    /// Attach to a running browser's DevTools WebSocket instead of launching.
    pub cdp_url: Option<String>,
    pub viewport: Viewport,
    pub launch_timeout: Duration,
    pub navigation_timeout: Duration,
    /// Flags added to ours when launching, e.g. ones that keep pages offline
    /// for a benchmark (`--proxy-server=...`, `--host-resolver-rules=...`).
    pub extra_args: Vec<String>,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            executable: PathBuf::from(
                std::env::var_os("WEBFOLD_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()),
            ),
            cdp_url: None,
            viewport: Viewport::default(),
            launch_timeout: Duration::from_secs(30),
            navigation_timeout: Duration::from_secs(30),
            extra_args: Vec::new(),
        }
    }
}

/// A browser we launched (killed on drop) or attached to.
pub struct Browser {
    conn: Arc<Connection>,
    child: Option<Child>,
    profile: Option<PathBuf>,
    opts: BrowserOptions,
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
        if let Some(dir) = &self.profile {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Flags that keep headless Chromium quiet and off the network unless a
/// page asks for something.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
];

impl Browser {
    pub async fn launch(opts: BrowserOptions) -> Result<Browser, BrowserError> {
        if let Some(url) = &opts.cdp_url {
            let conn = Connection::connect(url).await?;
            return Ok(Browser {
                conn,
                child: None,
                profile: None,
                opts,
            });
        }
        if !opts.executable.exists() {
            return Err(BrowserError::NotInstalled(
                opts.executable.display().to_string(),
            ));
        }
        let profile = std::env::temp_dir().join(format!(
            "webfold-chromium-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        let mut child = Command::new(&opts.executable)
            .args(FLAGS)
            .args(&opts.extra_args)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!(
                "--window-size={},{}",
                opts.viewport.width, opts.viewport.height
            ))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| BrowserError::Launch(format!("{}: {e}", opts.executable.display())))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| BrowserError::Launch("no stderr".into()))?;
        let mut lines = BufReader::new(stderr).lines();
        let find = async {
            let mut seen = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(pos) = line.find("ws://") {
                    return Ok(line[pos..].trim().to_string());
                }
                seen.push(line);
            }
            Err(BrowserError::Launch(format!(
                "it exited: {}",
                seen.join(" | ")
            )))
        };
        let secs = opts.launch_timeout.as_secs();
        let ws = tokio::time::timeout(opts.launch_timeout, find)
            .await
            .map_err(|_| BrowserError::Timeout {
                what: "Chromium to start".into(),
                secs,
            })??;
        // Keep draining stderr so Chromium never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let conn = Connection::connect(&ws).await?;
        Ok(Browser {
            conn,
            child: Some(child),
            profile: Some(profile),
            opts,
        })
    }

    pub fn options(&self) -> &BrowserOptions {
        &self.opts
    }

    /// Whether this browser was launched by us (and so is ours to close).
    pub fn is_launched(&self) -> bool {
        self.child.is_some()
    }

    /// Closes a browser we launched: asks it to quit, so its helper
    /// processes go with it, then kills it if it has not exited within five
    /// seconds. A browser we attached to is left running.
    pub async fn close(mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            self.conn.call(None, "Browser.close", json!({})),
        )
        .await;
        if tokio::time::timeout(Duration::from_secs(5), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }

    /// A new tab with the viewport set.
    pub async fn new_tab(&self) -> Result<Tab, BrowserError> {
        let target = self
            .conn
            .call(None, "Target.createTarget", json!({ "url": "about:blank" }))
            .await?;
        let target_id = str_field(&target, "targetId")?;
        let attached = self
            .conn
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
            )
            .await?;
        let session = str_field(&attached, "sessionId")?;
        let tab = Tab {
            frames: std::sync::Mutex::new(FrameTargets::new(self.conn.target_events())),
            conn: self.conn.clone(),
            target_id,
            session,
            viewport: self.opts.viewport,
            timeout: self.opts.navigation_timeout,
        };
        tab.call("Page.enable", json!({})).await?;
        // Frames on other sites run in processes of their own: attached
        // as they appear, captured with the page (see `frames`).
        auto_attach(&tab.conn, &tab.session).await?;
        tab.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": tab.viewport.width, "height": tab.viewport.height, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await?;
        Ok(tab)
    }
}

fn str_field(v: &Value, name: &str) -> Result<String, BrowserError> {
    v.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| BrowserError::Protocol(format!("missing {name} in {v}")))
}

/// Events seen since [`Tab::watch_navigation`]: whether an action navigated.
pub struct NavigationWatch {
    events: tokio::sync::broadcast::Receiver<crate::cdp::Event>,
    frame: String,
}

/// One tab (a flat CDP session).
pub struct Tab {
    pub(crate) conn: Arc<Connection>,
    target_id: String,
    pub(crate) session: String,
    viewport: Viewport,
    timeout: Duration,
    /// The out-of-process frames attached to this tab.
    pub(crate) frames: std::sync::Mutex<FrameTargets>,
}

impl Tab {
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        Ok(self.conn.call(Some(&self.session), method, params).await?)
    }

    /// A command to one of the tab's frame sessions (`None`: the tab's own),
    /// as a capture's [`crate::FrameLink`] names them.
    pub async fn call_in(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, BrowserError> {
        let session = session.unwrap_or(&self.session);
        Ok(self.conn.call(Some(session), method, params).await?)
    }

    /// Close this tab (the browser keeps running).
    pub async fn close(&self) -> Result<(), BrowserError> {
        self.conn
            .call(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target_id }),
            )
            .await?;
        Ok(())
    }

    pub fn viewport(&self) -> Viewport {
        self.viewport
    }

    /// Navigate and wait for the load event.
    pub async fn navigate(&self, url: &str) -> Result<(), BrowserError> {
        let mut events = self.conn.subscribe();
        let nav = self.call("Page.navigate", json!({ "url": url })).await?;
        if let Some(err) = nav.get("errorText").and_then(Value::as_str) {
            return Err(BrowserError::Navigation {
                url: url.to_string(),
                reason: err.to_string(),
            });
        }
        self.wait_for_event(
            &mut events,
            |e| e.method == "Page.loadEventFired",
            &format!("{url} to load"),
        )
        .await
    }

    /// Starts watching for a navigation of this tab's main frame. Call it
    /// before an action, then [`Tab::settle`] after it.
    pub async fn watch_navigation(&self) -> Result<NavigationWatch, BrowserError> {
        let events = self.conn.subscribe();
        let tree = self.call("Page.getFrameTree", json!({})).await?;
        let frame = str_field(
            tree.pointer("/frameTree/frame").unwrap_or(&Value::Null),
            "id",
        )?;
        Ok(NavigationWatch { events, frame })
    }

    /// After an action: when it started a navigation of the main frame (a
    /// link, a form submission, a script setting `location`), waits for the
    /// new document to load; otherwise returns at once. Returns whether a
    /// navigation happened.
    pub async fn settle(&self, mut watch: NavigationWatch) -> Result<bool, BrowserError> {
        // Events the action caused come before the answer to a later command
        // on the same page; a task queued behind them (form submission is
        // one) has run once a zero-delay timer has fired.
        let timer = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": "new Promise(r => setTimeout(r, 0))", "awaitPromise": true }),
            )
            .await;
        // The action's navigation can replace the document before the timer
        // fires: the page then answers that it navigated, which is the news.
        let mut started = match timer {
            Ok(_) => false,
            Err(BrowserError::Cdp(crate::CdpError::Method { message, .. }))
                if message.contains("navigated or closed")
                    || message.contains("context was destroyed") =>
            {
                true
            }
            Err(e) => return Err(e),
        };
        let main = watch.frame.clone();
        let of_main = move |e: &crate::cdp::Event| {
            e.params.get("frameId").and_then(Value::as_str) == Some(main.as_str())
        };
        loop {
            match watch.events.try_recv() {
                Ok(e) if e.session_id.as_deref() != Some(self.session.as_str()) => {}
                Ok(e) => match e.method.as_str() {
                    "Page.frameRequestedNavigation"
                    | "Page.frameStartedNavigating"
                    | "Page.frameStartedLoading"
                        if of_main(&e) =>
                    {
                        started = true
                    }
                    "Page.loadEventFired" if started => return Ok(true),
                    "Page.frameStoppedLoading" | "Page.navigatedWithinDocument"
                        if started && of_main(&e) =>
                    {
                        return Ok(true);
                    }
                    _ => {}
                },
                Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::TryRecvError::Empty) => break,
                Err(tokio::sync::broadcast::error::TryRecvError::Closed) => {
                    return Err(BrowserError::Cdp(crate::CdpError::Closed));
                }
            }
        }
        if !started {
            return Ok(false);
        }
        let main = watch.frame.clone();
        self.wait_for_event(
            &mut watch.events,
            // A navigation that ends without a new document (a download, a
            // 204) stops loading without a load event; one within the
            // document (a fragment, history.pushState) has none either.
            |e| {
                e.method == "Page.loadEventFired"
                    || (matches!(
                        e.method.as_str(),
                        "Page.frameStoppedLoading" | "Page.navigatedWithinDocument"
                    ) && e.params.get("frameId").and_then(Value::as_str) == Some(main.as_str()))
            },
            "the page to load after the action",
        )
        .await?;
        Ok(true)
    }

    /// Waits for the first event on this tab's session that `matches`.
    pub(crate) async fn wait_for_event(
        &self,
        events: &mut tokio::sync::broadcast::Receiver<crate::cdp::Event>,
        matches: impl Fn(&crate::cdp::Event) -> bool,
        what: &str,
    ) -> Result<(), BrowserError> {
        let session = self.session.clone();
        let wait = async {
            loop {
                match events.recv().await {
                    Ok(e) if matches(&e) && e.session_id.as_deref() == Some(session.as_str()) => {
                        return Ok(());
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return Err(BrowserError::Cdp(crate::CdpError::Closed)),
                }
            }
        };
        tokio::time::timeout(self.timeout, wait)
            .await
            .map_err(|_| BrowserError::Timeout {
                what: what.to_string(),
                secs: self.timeout.as_secs(),
            })?
    }

    /// Evaluate JavaScript and return its JSON value (for actions and tests,
    /// never for computing views).
    pub async fn evaluate(&self, expression: &str) -> Result<Value, BrowserError> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(BrowserError::Protocol(format!("script threw: {ex}")));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }
}
