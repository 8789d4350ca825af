//! webfold-live: the live browser session. One Chromium per process,
//! launched on first use (or attached to over CDP), holding named pages.
//! Each page is a tab with its own snapshot session (history, breadcrumbs,
//! stable refs) and its last capture, which the refs of its last snapshot
//! resolve against.
//!
//! Its users reach it directly: the MCP `browser_*` tools and page tools
//! (`webfold-server`), and the acting agents of `webfold agent --act`
//! ([`LivePage`] is their `ActingPage`). It knows no server.
//!
//! Every snapshot of a live page — asked for, after navigating, after an
//! action, after a script, after a failed step — is taken by
//! [`LivePage::view`], with the options the caller built from the core's
//! defaults and the page's session: a second path would skip the budget and
//! the history.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex as AsyncMutex;
use webfold_browser::{
    Browser, BrowserError, BrowserOptions, CapturedPage, CdpError, LiveElement, Tab,
};
use webfold_core::action::{Action, ActionError, BadTarget, Effect, Target, reachable};
use webfold_core::cnt::{Cnt, CntId, CntView, ViewOptions as CntViewOptions};
use webfold_core::contract::{Ctx, Surface};
use webfold_core::layers::Layers;
use webfold_core::snapshot::SnapshotSession;
use webfold_core::tokens::Encoding;
use webfold_core::view::{Call, Envelope, Input};

/// The page a tool acts on when it names none.
pub const DEFAULT_PAGE: &str = "main";
/// Pages open at once: each is a renderer process.
pub const MAX_PAGES: usize = 16;
/// Steps one script may hold.
pub const MAX_SCRIPT_STEPS: usize = 50;
/// Longer side of an image returned inline, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 1024;

/// What can go wrong on a live page; each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error(transparent)]
    View(#[from] webfold_core::Error),
    #[error(
        "page '{0}' has no snapshot yet: call browser_snapshot (or browser_navigate) first, then use its refs"
    )]
    NoSnapshot(String),
    #[error(
        "page name '{0}' is not valid: use 1–64 letters, digits, '-' or '_' (default \"main\")"
    )]
    BadPageName(String),
    #[error("{MAX_PAGES} pages are open already ({0}); reuse one of them")]
    TooManyPages(String),
    #[error("cannot open '{url}': {reason}; the browser opens http(s) URLs and about:blank")]
    BadUrl { url: String, reason: String },
    #[error(
        "'{0}' is not a ref: pass a ref from the latest snapshot such as e12 (or a node id such as 57)"
    )]
    BadTarget(String),
    #[error("{0} must end in .png: the screenshot is a PNG file")]
    NotPng(String),
    #[error(
        "a script holds {MAX_SCRIPT_STEPS} steps at most, got {0}; split it into several calls"
    )]
    TooManySteps(usize),
    #[error(
        "the browser went away (it crashed or was closed); its pages are gone: call again and a new one starts"
    )]
    BrowserGone,
    #[error(
        "the browser did not answer within {0} s (a page script stuck in a loop, a dialog, or a page that never loads); it was closed and its pages are gone: call again and a new one starts (the server's --browser-timeout allows slower pages)"
    )]
    Timeout(u64),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error(
        "{0} is not a browser step: a script clicks, writes, types, selects, checks, presses, hovers, scrolls, navigates and goes back"
    )]
    NotAStep(&'static str),
    #[error("internal error: {0}")]
    Internal(String),
}

/// A ref (`e12`) or a node id of the capture (`57`).
pub fn parse_target(s: &str) -> Result<Target, LiveError> {
    s.parse().map_err(|BadTarget(s)| LiveError::BadTarget(s))
}

/// Only the web: a model must not read local files through the browser.
fn check_url(url: &str) -> Result<(), LiveError> {
    let bad = |reason: String| LiveError::BadUrl {
        url: url.to_string(),
        reason,
    };
    if url.trim() == "about:blank" {
        return Ok(());
    }
    let parsed = url::Url::parse(url.trim()).map_err(|e| bad(e.to_string()))?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        other => Err(bad(format!("the {other}: scheme is not allowed"))),
    }
}

/// A view of a live page and what the tool says about it.
pub struct LiveView {
    /// The view as every surface returns it (for the snapshot, its data
    /// holds the kind of view and the element counts).
    pub envelope: Envelope,
    pub url: String,
    pub title: String,
    /// The page's previous snapshot was of this same URL.
    pub same_url: bool,
}

/// One named page: a tab, its snapshot session and its last capture.
pub struct LivePage {
    name: String,
    tab: Tab,
    session: SnapshotSession,
    last: Option<CapturedPage>,
}

impl LivePage {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn tab(&self) -> &Tab {
        &self.tab
    }

    /// The one view path: capture the page, then run `call` (a registry
    /// view's call, the snapshot's for every browser tool) on the capture
    /// with this page's session and URL, as every surface runs a view. The
    /// capture is kept: the refs of this view resolve against it.
    pub async fn view(&mut self, call: Call) -> Result<LiveView, LiveError> {
        let captured = self.tab.capture().await?;
        let previous_url = self.session.previous.as_ref().map(|p| p.url.clone());
        let session = std::mem::take(&mut self.session);
        let (captured, session, result) = tokio::task::spawn_blocking(move || {
            let mut session = session;
            let mut input = Input::page(&captured.page, &captured.url);
            input.session = Some(&mut session);
            let r = call.run(&mut input);
            (captured, session, r)
        })
        .await
        .map_err(|e| LiveError::Internal(format!("the view task failed: {e}")))?;
        self.session = session;
        let url = captured.url.clone();
        let title = captured.title.clone();
        self.last = Some(captured);
        Ok(LiveView {
            envelope: result?,
            same_url: previous_url.as_deref() == Some(url.as_str()),
            url,
            title,
        })
    }

    /// The page as the page tools see it: the capture the last snapshot's refs
    /// point into (a fresh one when there is none yet), with a copy of the
    /// page's snapshot session so those refs resolve.
    pub async fn current(
        &mut self,
    ) -> Result<(webfold_core::Page, String, SnapshotSession), LiveError> {
        if self.last.is_none() {
            self.last = Some(self.tab.capture().await?);
        }
        let last = self.last()?;
        Ok((last.page.clone(), last.url.clone(), self.session.clone()))
    }

    /// The live element behind a ref or node id of the last snapshot, checked
    /// to be the one the snapshot showed (a stale one says to snapshot again).
    pub async fn element(&self, target: &Target) -> Result<LiveElement, LiveError> {
        let last = self.last()?;
        Ok(self.tab.element(last, target, Some(&self.session)).await?)
    }

    /// Refuses a target behind the modal dialog the last capture shows open,
    /// while the live page still has it open (modal: `dialog:modal`, or
    /// `aria-modal="true"` and visible): once the agent has closed it, the
    /// page behind is there to act on without a new snapshot.
    async fn reachable(&self, target: &Target) -> Result<(), LiveError> {
        let last = self.last()?;
        let (node, _) = last.resolve(target, Some(&self.session))?;
        let at = (last.url.as_str(), Some(&self.session));
        let Err(refused) = reachable(&last.page, node, &target.to_string(), at) else {
            return Ok(());
        };
        let Some(dialog) = Layers::of(&last.page).blocker(&last.page, node) else {
            return Ok(());
        };
        let still_open = match self.tab.element(last, &Target::Node(dialog), None).await {
            Ok(el) => self.tab.is_modal(&el).await?,
            Err(_) => false,
        };
        if still_open {
            Err(refused.into())
        } else {
            Ok(())
        }
    }

    fn last(&self) -> Result<&CapturedPage, LiveError> {
        self.last
            .as_ref()
            .ok_or_else(|| LiveError::NoSnapshot(self.name.clone()))
    }

    /// Runs one action; returns what happened, in a few words. Actions
    /// that are not browser steps (expand, describe_image, talk, no_action)
    /// are refused: their tools or the agent loop run them.
    pub async fn act(&mut self, action: &Action) -> Result<String, LiveError> {
        match action {
            Action::GoTo { url } => {
                check_url(url)?;
                self.tab.navigate(url.trim()).await?;
                return Ok(format!("opened {}", url.trim()));
            }
            Action::GoBack => {
                self.tab.go_back().await?;
                return Ok("went back".into());
            }
            Action::Expand { .. }
            | Action::DescribeImage { .. }
            | Action::Talk { .. }
            | Action::NoAction => return Err(LiveError::NotAStep(action.name())),
            _ => {}
        }
        // Resolve before watching: a stale ref fails without touching the page.
        let el = match action.target() {
            Some(target) => Some((target, self.element(target).await?)),
            None => None,
        };
        if let Some((target, _)) = el
            && !matches!(action, Action::ScrollIntoView { .. })
        {
            self.reachable(target).await?;
        }
        let watch = self.tab.watch_navigation().await?;
        let mut done = match (action, &el) {
            (Action::Click { .. }, Some((t, el))) => {
                self.tab.click(el).await?;
                format!("clicked {t}")
            }
            (Action::Write { text, .. }, Some((t, el))) => self.write(t, el, text).await?,
            (Action::Type { text, submit, .. }, Some((t, el))) => {
                self.tab.fill(el, text).await?;
                if *submit {
                    self.tab.press("Enter").await?;
                    format!("typed into {t} and pressed Enter")
                } else {
                    format!("typed into {t}")
                }
            }
            (Action::Select { values, .. }, Some((t, el))) => {
                let now = self.tab.select(el, values).await?;
                format!("selected {now:?} in {t}")
            }
            (Action::Check { checked, .. }, Some((t, el))) => {
                self.tab.check(el, *checked).await?;
                format!("{} {t}", if *checked { "checked" } else { "unchecked" })
            }
            (Action::Hover { .. }, Some((t, el))) => {
                self.tab.hover(el).await?;
                format!("hovered {t}")
            }
            (Action::ScrollIntoView { .. }, Some((t, el))) => {
                self.tab.scroll_into_view(el).await?;
                format!("scrolled {t} into view")
            }
            (Action::Press { key }, _) => {
                self.tab.press(key).await?;
                format!("pressed {key}")
            }
            _ => return Err(LiveError::Internal(format!("no element for {action}"))),
        };
        if self.tab.settle(watch).await? {
            done.push_str("; the page navigated");
        }
        Ok(done)
    }

    /// `write` as the core decides it for this element of the capture: type,
    /// choose an option, or set a checkbox.
    async fn write(
        &self,
        target: &Target,
        el: &LiveElement,
        text: &str,
    ) -> Result<String, LiveError> {
        let last = self.last()?;
        let (node, _) = last.resolve(target, Some(&self.session))?;
        let write = Action::Write {
            id: target.clone(),
            text: text.to_string(),
        };
        match write
            .effect_at(&last.page, node, &target.to_string())?
            .effect
        {
            Effect::Select { values } => {
                let now = self.tab.select(el, &values).await?;
                Ok(format!("selected {now:?} in {target}"))
            }
            Effect::Check { checked } => {
                self.tab.check(el, checked).await?;
                let done = if checked { "checked" } else { "unchecked" };
                Ok(format!("{done} {target}"))
            }
            _ => {
                self.tab.fill(el, text).await?;
                Ok(format!("wrote into {target}"))
            }
        }
    }

    /// A PNG of the viewport or of one element, its longer side at most `max_side`.
    pub async fn screenshot(
        &self,
        target: Option<&str>,
        max_side: Option<u32>,
    ) -> Result<Vec<u8>, LiveError> {
        let el = match target {
            Some(t) => Some(self.element(&parse_target(t)?).await?),
            None => None,
        };
        Ok(self.tab.screenshot(el.as_ref(), max_side).await?)
    }

    /// The image an element with a `src` shows, as a PNG of its box, plus its
    /// `src` and `alt`.
    pub async fn image(
        &self,
        target: &str,
    ) -> Result<(Vec<u8>, String, Option<String>), LiveError> {
        let target = parse_target(target)?;
        let last = self.last()?;
        let (node, _) = last.resolve(&target, Some(&self.session))?;
        let describe = Action::DescribeImage { id: target.clone() };
        let resolved = describe.effect_at(&last.page, node, &target.to_string())?;
        let Effect::Image { src } = resolved.effect else {
            return Err(LiveError::Internal(format!("no image for {target}")));
        };
        let alt = last
            .page
            .element(resolved.node)
            .and_then(|e| e.attr("alt"))
            .map(str::to_string);
        let live = self.element(&target).await?;
        let png = self
            .tab
            .screenshot(Some(&live), Some(MAX_IMAGE_SIDE))
            .await?;
        Ok((png, src, alt))
    }
}

/// The browser and its named pages, shared by everything in a process that
/// drives it (every MCP session of a server, the acting agents).
pub struct LiveBrowser {
    options: BrowserOptions,
    browser: AsyncMutex<Option<Browser>>,
    pages: std::sync::Mutex<HashMap<String, Arc<AsyncMutex<LivePage>>>>,
}

impl LiveBrowser {
    /// Nothing starts until a tool needs a page.
    pub fn new(options: BrowserOptions) -> LiveBrowser {
        LiveBrowser {
            options,
            browser: AsyncMutex::new(None),
            pages: std::sync::Mutex::default(),
        }
    }

    pub fn options(&self) -> &BrowserOptions {
        &self.options
    }

    fn pages(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AsyncMutex<LivePage>>>> {
        self.pages.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The page called `name` (default "main"), opening a tab — and launching
    /// the browser — on first use.
    pub async fn page(&self, name: Option<&str>) -> Result<Arc<AsyncMutex<LivePage>>, LiveError> {
        let name = name.unwrap_or(DEFAULT_PAGE).trim();
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid {
            return Err(LiveError::BadPageName(name.to_string()));
        }
        if let Some(p) = self.pages().get(name) {
            return Ok(p.clone());
        }
        // One opener at a time, so two calls for a new name make one tab.
        let mut browser = self.browser.lock().await;
        if let Some(p) = self.pages().get(name) {
            return Ok(p.clone());
        }
        {
            let pages = self.pages();
            if pages.len() >= MAX_PAGES {
                let mut names: Vec<&str> = pages.keys().map(String::as_str).collect();
                names.sort_unstable();
                return Err(LiveError::TooManyPages(names.join(", ")));
            }
        }
        let tab = match browser.as_ref() {
            Some(b) => b.new_tab().await?,
            None => {
                let launched = Browser::launch(self.options.clone()).await?;
                let tab = launched.new_tab().await?;
                *browser = Some(launched);
                tab
            }
        };
        let page = Arc::new(AsyncMutex::new(LivePage {
            name: name.to_string(),
            tab,
            session: SnapshotSession::new(),
            last: None,
        }));
        self.pages().insert(name.to_string(), page.clone());
        Ok(page)
    }

    /// How long one tool call may hold a page: twice the time a navigation
    /// may take (the navigation, then the steps and the capture after it).
    pub fn call_limit(&self) -> Duration {
        self.options.navigation_timeout.saturating_mul(2)
    }

    /// Runs `work` on a page within [`LiveBrowser::call_limit`]: a page stuck
    /// on a dialog or a script that never returns must not hang the tool.
    /// When the browser has gone away or stopped answering, it is forgotten
    /// (a hung one closed) so the next call starts a new one.
    pub async fn bounded<T>(
        &self,
        work: impl Future<Output = Result<T, LiveError>>,
    ) -> Result<T, LiveError> {
        let limit = self.call_limit();
        match tokio::time::timeout(limit, work).await {
            Ok(Err(LiveError::Browser(BrowserError::Cdp(CdpError::Closed)))) => {
                self.forget().await;
                Err(LiveError::BrowserGone)
            }
            Ok(r) => r,
            Err(_) => {
                // Its renderer may never answer again: every call on the
                // page would wait out the limit. A new browser starts clean.
                self.forget().await;
                Err(LiveError::Timeout(limit.as_secs().max(1)))
            }
        }
    }

    async fn forget(&self) {
        self.pages().clear();
        if let Some(b) = self.browser.lock().await.take() {
            b.close().await;
        }
    }

    /// Closes our tabs and a browser we launched (one we attached to keeps
    /// running). The servers call this on the way out.
    pub async fn shutdown(&self) {
        let pages: Vec<_> = self.pages().drain().map(|(_, p)| p).collect();
        let Some(browser) = self.browser.lock().await.take() else {
            return;
        };
        if !browser.is_launched() {
            for page in pages {
                if let Ok(page) =
                    tokio::time::timeout(Duration::from_secs(2), page.lock_owned()).await
                {
                    let _ = tokio::time::timeout(Duration::from_secs(2), page.tab().close()).await;
                }
            }
        }
        browser.close().await;
    }
}

/// Width and height of a PNG, from its header.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

/// The acting agents' page: each view is a fresh capture's CNT, run through
/// the registry (the capture is kept, so its node ids resolve), and actions
/// run as the browser tools run them.
impl webfold_agent::team::ActingPage for LivePage {
    async fn view(
        &mut self,
        max_tokens: usize,
        expand: Option<&CntId>,
        focus: Option<&str>,
    ) -> Result<webfold_agent::team::PageView, String> {
        let captured = self.tab.capture().await.map_err(|e| e.to_string())?;
        let opts = CntViewOptions {
            max_tokens,
            expand: expand.copied(),
            focus: focus.map(str::to_string),
        };
        let ctx = Ctx::new(Surface::Mcp, Encoding::O200kBase);
        let text = Call::of::<CntView>(opts, ctx)
            .run(&mut Input::page(&captured.page, &captured.url))
            .map(|v| v.text)
            .map_err(|e| e.to_string());
        let view = webfold_agent::team::PageView {
            text: text?,
            url: captured.url.clone(),
        };
        self.last = Some(captured);
        Ok(view)
    }

    fn resolve(&mut self, action: &Action) -> Result<Action, String> {
        let last = self.last().map_err(|e| e.to_string())?;
        let cnt = Cnt::build(&last.page);
        let resolved = action
            .validate(&last.page, &cnt)
            .map_err(|e| e.to_string())?;
        let mut aimed = action.clone();
        if let (Some(r), Some(target)) = (resolved, aimed.target_mut()) {
            *target = Target::Node(r.node);
        }
        Ok(aimed)
    }

    async fn act(&mut self, action: &Action) -> Result<String, String> {
        LivePage::act(self, action).await.map_err(|e| e.to_string())
    }

    async fn image(&mut self, id: &Target) -> Result<String, String> {
        let id = match id {
            Target::Ref(r) => r.clone(),
            Target::Node(n) => n.get().to_string(),
        };
        let (_, src, alt) = LivePage::image(self, &id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match alt {
            Some(alt) => format!("an image from {src}, described by the page as {alt:?}"),
            None => format!("an image from {src}, with no description on the page"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_urls_open() {
        assert!(check_url("https://example.com/a").is_ok());
        assert!(check_url("http://127.0.0.1:8080/").is_ok());
        assert!(check_url("about:blank").is_ok());
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "chrome://settings",
            "nope",
        ] {
            let err = check_url(bad).unwrap_err().to_string();
            assert!(err.contains("http(s)"), "{bad}: {err}");
        }
    }

    #[test]
    fn png_size_reads_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&1024u32.to_be_bytes());
        png.extend_from_slice(&576u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1024, 576)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
