//! Chromium over the Chrome DevTools Protocol.
//!
//! The browser only *captures facts*: one `DOMSnapshot.captureSnapshot` round
//! trip gives the DOM, layout boxes and the computed styles that decide
//! visibility, and [`capture`] turns it into a [`webfold_core::Page`] with real
//! layout. Every view is then computed by the core, exactly as for static
//! HTML — no view logic runs in the page (the seed project's two copies of the
//! snapshot logic drifted apart; we keep one).
//!
//! The CDP client is ours and small on purpose: we need a dozen methods, and
//! a full generated protocol crate costs many minutes of build on CI.

mod actions;
mod capture;
mod cdp;
mod frames;
mod launch;

pub use actions::LiveElement;
pub use capture::{CapturedPage, FrameLink, capture_snapshot};
pub use cdp::{CdpError, Connection};
pub use frames::FRAME_WAIT;
pub use launch::{Browser, BrowserOptions, NavigationWatch, Tab, Viewport};

/// What can go wrong driving the browser. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "Chromium was not found at {0}; install it (Debian: apt-get install chromium) or set WEBFOLD_CHROMIUM to its path"
    )]
    NotInstalled(String),
    #[error("Chromium did not start: {0}")]
    Launch(String),
    #[error(
        "timed out after {secs} s waiting for {what}; the page may be slow or hung — raise the timeout or check the URL"
    )]
    Timeout { what: String, secs: u64 },
    #[error("navigation to {url} failed: {reason}")]
    Navigation { url: String, reason: String },
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("unexpected DevTools answer: {0}")]
    Protocol(String),
    #[error(
        "{0} is stale: the element is gone or has changed since the snapshot; take a new snapshot and use its refs"
    )]
    Stale(String),
    /// A view's error, such as a ref no snapshot of the page issued.
    #[error(transparent)]
    View(#[from] webfold_core::Error),
    #[error("{0} has no box on screen to act on (hidden or zero size); pick a visible element")]
    NoBox(String),
    #[error("{0} cannot take text; type into a text field, text area or editable element")]
    NotEditable(String),
    #[error("{0}")]
    Unsupported(String),
}
