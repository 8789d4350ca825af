//! What the hub does not hold itself: tabs and agents connected to other
//! daemons, and the records (history, picks, bindings) they share. The hub
//! routes the same way whatever its transport; only where a frame, a pick
//! or a history lives differs. [`Local`] is the lone daemon's (nothing is
//! elsewhere); [`super::Cluster`] is several daemons on one database.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Mutex;

use webfold_protocol::{HtmlReply, PageInfo, ServerFrame, SetContext, StoredContext};
use webfold_store::{History, HistoryStore};

use super::rand_u16;
use crate::DaemonError;
use crate::project::ProjectFiles;

/// A transport's asynchronous answer (boxed: the hub holds any transport).
pub type Later<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub trait Transport: Send + Sync {
    /// The history of `project`'s tabs (kept in `files` when it is a file).
    fn history(&self, files: &ProjectFiles, project: Option<&Path>)
    -> Result<History, DaemonError>;

    /// Whether every project named here is a directory of this machine
    /// (else a tab's files go to this daemon's home when its project is not).
    fn projects_are_here(&self) -> bool;

    /// A frame for a tab with no socket here: `None` when the transport
    /// carried it away, else the frame back, for the hub to queue (`queue`)
    /// or drop.
    fn carry(&self, session: &str, frame: ServerFrame, queue: bool) -> Option<ServerFrame>;

    fn tab_here(&self, session: &str);

    fn tab_gone(&self, session: &str);

    fn agent_here<'a>(
        &'a self,
        agent: &'a str,
        project: &'a Path,
        client: &'a str,
    ) -> Later<'a, Result<(), String>>;

    fn agent_gone(&self, agent: &str);

    /// A new request id for a request to a tab; when others may answer it,
    /// it names this daemon, so the answer finds its way back.
    fn request_id(&self, n: u64) -> String;

    /// Passes a tab's answer on to the daemon whose request it answers;
    /// `false` when the request is not another daemon's.
    fn forward_reply(&self, session: &str, reply: &HtmlReply) -> bool;

    /// Whether picks are shared ([`Transport::share_context`] wants the frame).
    fn shares_picks(&self) -> bool;

    fn share_context<'a>(
        &'a self,
        session: &'a str,
        stored: &'a StoredContext,
        frame: SetContext,
        project: Option<&'a Path>,
    ) -> Later<'a, Result<(), String>>;

    /// A pick kept elsewhere (the latest without `context_id`), written
    /// into `files` here when it is read.
    fn fetch_context<'a>(
        &'a self,
        files: &'a ProjectFiles,
        session: &'a str,
        context_id: Option<&'a str>,
    ) -> Later<'a, Option<StoredContext>>;

    /// Binds a tab to a project for the others.
    fn bind<'a>(&'a self, session: &'a str, project: &'a Path) -> Later<'a, Result<(), String>>;

    /// Which of these tabs another daemon holds.
    fn tabs_elsewhere<'a>(&'a self, sessions: &'a [String]) -> Later<'a, Vec<String>>;

    /// The page of a tab's latest pick kept elsewhere, and when it was made.
    fn latest_page<'a>(&'a self, session: &'a str) -> Later<'a, Option<(PageInfo, i64)>>;

    /// This daemon is stopping.
    fn leave(&self) -> Later<'_, ()>;
}

/// The lone daemon: every tab and agent is here, histories are the
/// projects' own files.
#[derive(Default)]
pub struct Local {
    /// By the history file's path.
    histories: Mutex<HashMap<PathBuf, HistoryStore>>,
}

fn ready<'a, T: Send + 'a>(value: T) -> Later<'a, T> {
    Box::pin(std::future::ready(value))
}

impl Transport for Local {
    fn history(
        &self,
        files: &ProjectFiles,
        _project: Option<&Path>,
    ) -> Result<History, DaemonError> {
        let path = files.history();
        let mut h = self.histories.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = h.get(&path) {
            return Ok(History::File(store.clone()));
        }
        files.ensure()?;
        let store = HistoryStore::open(&path).map_err(DaemonError::store)?;
        h.insert(path, store.clone());
        Ok(History::File(store))
    }

    fn projects_are_here(&self) -> bool {
        true
    }

    /// Nobody else can take it: queued here for the tab's next socket.
    fn carry(&self, _: &str, frame: ServerFrame, _: bool) -> Option<ServerFrame> {
        Some(frame)
    }

    fn tab_here(&self, _: &str) {}

    fn tab_gone(&self, _: &str) {}

    fn agent_here<'a>(
        &'a self,
        _: &'a str,
        _: &'a Path,
        _: &'a str,
    ) -> Later<'a, Result<(), String>> {
        ready(Ok(()))
    }

    fn agent_gone(&self, _: &str) {}

    fn request_id(&self, n: u64) -> String {
        format!("html-{n}-{:04x}", rand_u16())
    }

    fn forward_reply(&self, _: &str, _: &HtmlReply) -> bool {
        false
    }

    fn shares_picks(&self) -> bool {
        false
    }

    fn share_context<'a>(
        &'a self,
        _: &'a str,
        _: &'a StoredContext,
        _: SetContext,
        _: Option<&'a Path>,
    ) -> Later<'a, Result<(), String>> {
        ready(Ok(()))
    }

    fn fetch_context<'a>(
        &'a self,
        _: &'a ProjectFiles,
        _: &'a str,
        _: Option<&'a str>,
    ) -> Later<'a, Option<StoredContext>> {
        ready(None)
    }

    fn bind<'a>(&'a self, _: &'a str, _: &'a Path) -> Later<'a, Result<(), String>> {
        ready(Ok(()))
    }

    fn tabs_elsewhere<'a>(&'a self, _: &'a [String]) -> Later<'a, Vec<String>> {
        ready(Vec::new())
    }

    fn latest_page<'a>(&'a self, _: &'a str) -> Later<'a, Option<(PageInfo, i64)>> {
        ready(None)
    }

    fn leave(&self) -> Later<'_, ()> {
        ready(())
    }
}
