//! A project's `.webfold/` directory: the tabs' latest selections
//! (`sessions/<id>.json`), their screenshots and pages, and `history.db`.
//! Tabs not yet bound to a project keep the same layout under the daemon's
//! home. The directory ignores itself for git (a `.gitignore` of `*`), so a
//! project's own `.gitignore` is left alone.

use std::path::{Path, PathBuf};

use base64::Engine as _;
pub use webfold_protocol::StoredContext;

use crate::DaemonError;
use crate::home::{Home, private_dir, write_private};
use webfold_protocol::{MAX_HTML_BYTES, MAX_SCREENSHOT_BYTES, PickPayload, SetContext};

/// Selections kept per tab.
const CONTEXTS_PER_SESSION: usize = 20;
/// Screenshots (and pages) kept per directory; the oldest go first.
const FILES_KEPT: usize = 50;

pub struct ProjectFiles {
    dir: PathBuf,
    ignore_self: bool,
}

impl ProjectFiles {
    pub fn new(project: &Path) -> ProjectFiles {
        ProjectFiles {
            dir: project.join(".webfold"),
            ignore_self: true,
        }
    }

    pub fn unbound(home: &Home) -> ProjectFiles {
        ProjectFiles {
            dir: home.dir().to_owned(),
            ignore_self: false,
        }
    }

    pub fn history(&self) -> PathBuf {
        self.dir.join("history.db")
    }

    fn sessions(&self) -> PathBuf {
        self.dir.join("sessions")
    }

    fn screenshots(&self) -> PathBuf {
        self.dir.join("screenshots")
    }

    fn pages(&self) -> PathBuf {
        self.dir.join("pages")
    }

    fn captures(&self) -> PathBuf {
        self.dir.join("captures")
    }

    pub fn ensure(&self) -> Result<(), DaemonError> {
        private_dir(&self.dir)?;
        let ignore = self.dir.join(".gitignore");
        if self.ignore_self && !ignore.exists() {
            write_private(
                &ignore,
                b"# webfold's per-project data: never commit it\n*\n",
            )?;
        }
        Ok(())
    }

    /// Writes a selection's screenshot and page, then the tab's file;
    /// `timestamp` is when the tab sent it.
    pub async fn store_context(
        &self,
        session_id: &str,
        context_id: &str,
        ctx: SetContext,
        timestamp: i64,
    ) -> Result<StoredContext, DaemonError> {
        let (
            pick,
            PickPayload {
                screenshot,
                html,
                dom,
            },
        ) = ctx.into_parts();
        let dir = self.dir.clone();
        let (ignore_self, session, context) = (
            self.ignore_self,
            session_id.to_string(),
            context_id.to_string(),
        );
        tokio::task::spawn_blocking(move || {
            let files = ProjectFiles { dir, ignore_self };
            files.ensure()?;
            let name = format!("{session}_{context}");
            let screenshot_path = match screenshot.filter(|s| !s.is_empty()) {
                Some(b64) => {
                    Some(files.write_kept(&files.screenshots(), &name, "png", &png(&b64)?)?)
                }
                None => None,
            };
            // A capture is checked by building its page; the HTML file is
            // that page serialized, so readers without layout see the same DOM.
            let (html, dom_path) = match dom {
                Some(dom) => {
                    let page = dom
                        .to_page()
                        .map_err(|e| DaemonError::Input(e.to_string()))?;
                    let json = serde_json::to_vec(&dom).unwrap_or_default();
                    let path = files.write_kept(&files.captures(), &name, "json", &json)?;
                    (
                        Some(page.outer_html(webfold_core::page::NodeId::DOCUMENT)),
                        Some(path),
                    )
                }
                None => (html, None),
            };
            let html_path = match html {
                Some(h) if h.len() > MAX_HTML_BYTES => {
                    return Err(DaemonError::Input(format!(
                        "the page's HTML is {} MB, over the {} MB limit",
                        h.len() >> 20,
                        MAX_HTML_BYTES >> 20
                    )));
                }
                Some(h) => Some(files.write_kept(&files.pages(), &name, "html", h.as_bytes())?),
                None => None,
            };
            let stored = StoredContext {
                context_id: context,
                pick,
                screenshot_path,
                html_path,
                dom_path,
                timestamp,
            };
            let mut all = files.contexts(&session);
            all.push(stored.clone());
            let skip = all.len().saturating_sub(CONTEXTS_PER_SESSION);
            let json = serde_json::to_vec(&all[skip..]).unwrap_or_default();
            private_dir(&files.sessions())?;
            write_private(&files.sessions().join(format!("{session}.json")), &json)?;
            Ok(stored)
        })
        .await
        .map_err(|e| DaemonError::Setup(format!("storage task failed: {e}")))?
    }

    fn contexts(&self, session_id: &str) -> Vec<StoredContext> {
        std::fs::read(self.sessions().join(format!("{session_id}.json")))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub fn load_context(&self, session_id: &str, context_id: &str) -> Option<StoredContext> {
        self.contexts(session_id)
            .into_iter()
            .find(|c| c.context_id == context_id)
    }

    pub fn latest_context(&self, session_id: &str) -> Option<StoredContext> {
        self.contexts(session_id).pop()
    }

    /// Writes `dir/name.ext` (0600) and removes the oldest files past the limit.
    fn write_kept(
        &self,
        dir: &Path,
        name: &str,
        ext: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, DaemonError> {
        private_dir(dir)?;
        let path = dir.join(format!("{name}.{ext}"));
        write_private(&path, bytes)?;
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
            .map_err(|e| DaemonError::io(dir, e))?
            .filter_map(|e| {
                let e = e.ok()?;
                Some((e.metadata().ok()?.modified().ok()?, e.path()))
            })
            .collect();
        if files.len() > FILES_KEPT {
            files.sort();
            for (_, old) in &files[..files.len() - FILES_KEPT] {
                if old != &path {
                    let _ = std::fs::remove_file(old);
                }
            }
        }
        Ok(path)
    }
}

/// Decodes a base64 PNG, checking it is one and within the size limit.
fn png(b64: &str) -> Result<Vec<u8>, DaemonError> {
    let b64 = b64.strip_prefix("data:image/png;base64,").unwrap_or(b64);
    if b64.len() / 4 * 3 > MAX_SCREENSHOT_BYTES + 3 {
        return Err(DaemonError::Input(format!(
            "the screenshot is over the {} MB limit",
            MAX_SCREENSHOT_BYTES >> 20
        )));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| DaemonError::Input(format!("the screenshot is not base64: {e}")))?;
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err(DaemonError::Input("the screenshot is not a PNG".into()));
    }
    Ok(bytes)
}
