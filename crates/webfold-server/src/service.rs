//! Conversations as the surfaces see them: the store for durability, the page
//! cache for speed. Both the bridge API and the MCP tools go through here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::OnceCell;
use webfold_core::Page;
use webfold_core::page::capture::DomCapture;
use webfold_core::snapshot::SnapshotSession;
use webfold_store::{
    Change, Conversation, ConversationId, ListQuery, NewConversation, NewPage, Store, StoreError,
};

use crate::cache::{LoadedPage, PageCache};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("Conversation not found")]
    ConversationNotFound,
    #[error("version {version} is not kept; kept versions: {}", list(kept))]
    VersionNotFound { version: u32, kept: Vec<u32> },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Task(String),
    /// What was sent is not a page (empty, or a binary file).
    #[error(transparent)]
    NotAPage(webfold_core::Error),
}

fn list(versions: &[u32]) -> String {
    versions
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;

/// Whether this process is the only writer of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Every change goes through this process (`webfold serve`): the cache is
    /// authoritative and a cached page is served without touching the store.
    Exclusive,
    /// Another process may refresh conversations (`webfold mcp` sharing the
    /// bridge's database, several `serve` instances on PostgreSQL): each
    /// lookup asks the store for the latest version number (one indexed
    /// read), so a refresh acknowledged anywhere is what the next read here
    /// serves, whether or not its notification has arrived yet.
    Shared,
}

type Loading = Arc<OnceCell<Arc<LoadedPage>>>;

/// The conversation service.
pub struct Conversations {
    store: Arc<dyn Store>,
    cache: PageCache,
    freshness: Freshness,
    /// Loads in flight, so a burst of requests after a restart parses once.
    loading: Mutex<HashMap<(ConversationId, u32), Loading>>,
    /// Accessibility-snapshot state per conversation (stable refs, history,
    /// the previous tree for diffs). Kept in memory: after a restart refs
    /// start over, which the snapshot header makes visible.
    sessions: Mutex<HashMap<ConversationId, Arc<Mutex<SnapshotSession>>>>,
    /// Whether the store's change notifications are being heard, once
    /// [`Conversations::follow_changes`] subscribed.
    listening: Mutex<Option<tokio::sync::watch::Receiver<bool>>>,
}

impl Conversations {
    pub fn new(store: Arc<dyn Store>, cache_bytes: usize, freshness: Freshness) -> Self {
        Self {
            store,
            cache: PageCache::new(cache_bytes),
            freshness,
            loading: Mutex::default(),
            sessions: Mutex::default(),
            listening: Mutex::default(),
        }
    }

    /// Applies other processes' refreshes and deletions to this process's
    /// cache as the store hears them: a refresh retires the cached copies of
    /// older versions, a deletion drops the conversation's pages and snapshot
    /// session. Waits at most `wait` for the store to start listening and
    /// says whether it did; `false` as well when the store cannot hear
    /// changes (SQLite). Reads stay right either way (see
    /// [`Freshness::Shared`]); this keeps the cache from holding pages
    /// nobody will be served.
    pub async fn follow_changes(self: &Arc<Self>, wait: Duration) -> bool {
        let Some(mut changes) = self.store.changes() else {
            return false;
        };
        *self.listening.lock().unwrap_or_else(|p| p.into_inner()) = Some(changes.listening());
        let listening = changes.wait_listening(wait).await;
        let this: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(change) = changes.next().await {
                let Some(this) = this.upgrade() else { return };
                this.apply(change);
            }
        });
        listening
    }

    /// Whether change notifications are being heard now; `None` when this
    /// process does not follow them.
    pub fn listening(&self) -> Option<bool> {
        self.listening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|l| *l.borrow())
    }

    fn apply(&self, change: Change) {
        match change {
            Change::Refreshed { id, version } => self.cache.retire(id, version),
            Change::Deleted { id } => {
                self.cache.remove(id);
                self.sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
            }
            // Nothing to redo: every read checks the latest version anyway,
            // and what was not retired ages out of the LRU.
            Change::Missed => {}
        }
    }

    pub fn cache(&self) -> &PageCache {
        &self.cache
    }

    /// Stores a new conversation, then parses and caches its page.
    pub async fn create(&self, new: NewConversation) -> Result<(Conversation, Arc<LoadedPage>)> {
        check_page(&new.page)?;
        let (html, capture) = (new.page.html.clone(), new.page.capture.clone());
        let conv = self.store.create(new).await?;
        let loaded = parse(conv.id, conv.version, conv.url.clone(), html, capture).await?;
        self.cache.insert(loaded.clone());
        Ok((conv, loaded))
    }

    /// Adds a version, keeping the previous one, and caches the new page.
    pub async fn refresh(
        &self,
        id: ConversationId,
        page: NewPage,
    ) -> Result<(Conversation, Arc<LoadedPage>)> {
        check_page(&page)?;
        let (html, capture) = (page.html.clone(), page.capture.clone());
        let conv = self
            .store
            .add_version(id, page)
            .await?
            .ok_or(ServiceError::ConversationNotFound)?;
        let loaded = parse(conv.id, conv.version, conv.url.clone(), html, capture).await?;
        self.cache.insert(loaded.clone());
        Ok((conv, loaded))
    }

    pub async fn get(&self, id: ConversationId) -> Result<Conversation> {
        self.store
            .get(id)
            .await?
            .ok_or(ServiceError::ConversationNotFound)
    }

    pub async fn list(&self, query: ListQuery) -> Result<Vec<Conversation>> {
        Ok(self.store.list(query).await?)
    }

    pub async fn versions(&self, id: ConversationId) -> Result<Vec<u32>> {
        Ok(self.store.versions(id).await?)
    }

    /// The snapshot session of a conversation, created on first use.
    pub fn snapshot_session(&self, id: ConversationId) -> Arc<Mutex<SnapshotSession>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.entry(id).or_default().clone()
    }

    pub async fn delete(&self, id: ConversationId) -> Result<()> {
        let existed = self.store.delete(id).await?;
        self.cache.remove(id);
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        if existed {
            Ok(())
        } else {
            Err(ServiceError::ConversationNotFound)
        }
    }

    /// The parsed latest version.
    pub async fn latest(&self, id: ConversationId) -> Result<Arc<LoadedPage>> {
        let version = match (self.freshness, self.cache.latest_version(id)) {
            (Freshness::Exclusive, Some(v)) => v,
            _ => {
                let version = self
                    .store
                    .latest_version(id)
                    .await?
                    .ok_or(ServiceError::ConversationNotFound)?;
                self.cache.note_version(id, version);
                version
            }
        };
        self.version(id, version).await
    }

    /// The page as of the version before the latest, if one is kept.
    pub async fn previous(
        &self,
        id: ConversationId,
        latest: u32,
    ) -> Result<Option<Arc<LoadedPage>>> {
        let kept = self.versions(id).await?;
        match kept.iter().copied().filter(|v| *v < latest).max() {
            Some(v) => Ok(Some(self.version(id, v).await?)),
            None => Ok(None),
        }
    }

    /// A parsed version, from the cache or the store.
    pub async fn version(&self, id: ConversationId, version: u32) -> Result<Arc<LoadedPage>> {
        if let Some(hit) = self.cache.get(id, version) {
            return Ok(hit);
        }
        let cell = {
            let mut loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
            loading.entry((id, version)).or_default().clone()
        };
        let result = cell
            .get_or_try_init(|| async {
                if let Some(hit) = self.cache.get(id, version) {
                    return Ok(hit);
                }
                let Some(stored) = self.store.page(id, Some(version)).await? else {
                    return Err(match self.store.get(id).await? {
                        None => ServiceError::ConversationNotFound,
                        Some(_) => ServiceError::VersionNotFound {
                            version,
                            kept: self.versions(id).await?,
                        },
                    });
                };
                let loaded =
                    parse(id, stored.version, stored.url, stored.html, stored.capture).await?;
                self.cache.insert(loaded.clone());
                Ok(loaded)
            })
            .await
            .cloned();
        self.loading
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(id, version));
        result
    }
}

/// Refuses, before anything is stored, a page that is empty or binary.
fn check_page(page: &NewPage) -> Result<()> {
    webfold_core::decode::check_page(page.html.as_bytes(), &page.html)
        .map_err(ServiceError::NotAPage)
}

/// Parses on the blocking pool: a 30 MB page takes a few hundred
/// milliseconds, which must not stall the request threads. A page the
/// extension captured is rebuilt from its capture, with the layout the user
/// saw; the HTML stored beside it is the same page serialized, read only if
/// the capture cannot be.
async fn parse(
    id: ConversationId,
    version: u32,
    url: Option<String>,
    html: String,
    capture: Option<String>,
) -> Result<Arc<LoadedPage>> {
    tokio::task::spawn_blocking(move || {
        let page = capture
            .and_then(|c| DomCapture::page_from_json(&c).ok())
            .unwrap_or_else(|| Page::parse(&html));
        Arc::new(LoadedPage::new(id, version, url, html.len(), page))
    })
    .await
    .map_err(|e| ServiceError::Task(format!("parsing the page failed: {e}")))
}
