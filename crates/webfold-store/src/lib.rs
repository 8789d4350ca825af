//! webfold-store: conversations and their page versions, behind the [`Store`] trait.
//!
//! A conversation (seed 000) is the key an agent uses to come back to a page:
//! the browser posts the HTML once, the agent asks for chunks and views by id,
//! and a refresh adds a new version while keeping the previous one for diffs.
//!
//! The trait is asynchronous and object-safe (`Arc<dyn Store>`). [`SqliteStore`]
//! is the embedded default: it runs rusqlite calls on tokio's blocking pool so
//! a slow disk never stalls the request threads. [`PostgresStore`] lets several
//! server instances share one database. [`open`] picks one from `--db`: a
//! `postgres://` URL or a file path.

mod changes;
mod chatter;
mod history;
mod id;
mod postgres;
mod sqlite;

use std::future::Future;
use std::pin::Pin;

pub use changes::{Change, Changes, Lossy, Subscription};
pub use chatter::{
    CHATTER_CHANNEL, ChatterEvent, ChatterEvents, ChatterStore, HEARTBEAT, Heard, PRESENCE_LEASE,
    Presence, PresentAgent,
};
pub use history::{History, HistoryStore, Message, Role};
pub use id::{ConversationId, InvalidId};
pub use postgres::{PostgresOptions, PostgresStore};
pub use sqlite::{SqliteOptions, SqliteStore, default_db_path};

/// Errors from a store. Messages say what to do next.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database at {path}: {reason}")]
    Open { path: String, reason: String },

    #[error(
        "the database at {path} has schema version {found}, newer than this webfold understands ({supported}); upgrade webfold or use another --db"
    )]
    SchemaTooNew {
        path: String,
        found: i64,
        supported: i64,
    },

    /// A URL where a SQLite file path belongs: opening it as a path would
    /// quietly create a directory named after its scheme (`postgres:`).
    #[error(
        "the database must be a file path such as ./webfold.db or a postgres:// URL, not '{value}'{hint}"
    )]
    NotAFilePath { value: String, hint: String },

    /// The database server cannot be reached now; a later call may succeed.
    #[error(
        "cannot reach PostgreSQL at {target}: {reason} — is it running? webfold retries on the next request"
    )]
    Unavailable { target: String, reason: String },

    #[error("storage error: {0}")]
    Backend(String),

    /// The database's disk (or its quota) is full; the write did not happen.
    #[error(
        "the database's disk is full: nothing was stored; free space there or delete conversations"
    )]
    Full,
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The boxed future every [`Store`] method returns (keeps the trait object-safe).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// What the browser sent when it opened a conversation (seed 000's body).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewConversation {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    pub json_schema: Option<serde_json::Value>,
    pub page: NewPage,
}

/// One page capture: the HTML and where it came from.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewPage {
    pub html: String,
    pub url: Option<String>,
    /// The browser extension's capture of the same page (JSON), whose real
    /// layout the views read; the bridge API never takes one.
    #[serde(skip)]
    pub capture: Option<String>,
}

/// A conversation's metadata, without any HTML.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Conversation {
    pub id: ConversationId,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    pub json_schema: Option<serde_json::Value>,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// Unix time in milliseconds of the latest version.
    pub updated_at: i64,
    /// The latest page version (versions start at 1).
    pub version: u32,
    /// URL of the latest version, when the browser sent one.
    pub url: Option<String>,
    /// Size of the latest version's HTML in bytes.
    pub html_bytes: u64,
}

/// One stored page version.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPage {
    pub version: u32,
    pub html: String,
    pub url: Option<String>,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// The extension's capture the page was made from, when it came from one.
    pub capture: Option<String>,
}

/// Which conversations to list, newest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListQuery {
    pub limit: u32,
    pub offset: u32,
}

impl Default for ListQuery {
    fn default() -> Self {
        Self {
            limit: 50,
            offset: 0,
        }
    }
}

/// Persistence for conversations and page versions.
///
/// Every write is durable when its future resolves: a caller may acknowledge
/// it to a client and the data survives the process being killed. Reads of a
/// conversation that does not exist return `Ok(None)`, not an error.
pub trait Store: Send + Sync + 'static {
    /// Creates a conversation with its first page version (version 1).
    fn create(&self, new: NewConversation) -> StoreFuture<'_, Conversation>;

    /// The conversation's metadata.
    fn get(&self, id: ConversationId) -> StoreFuture<'_, Option<Conversation>>;

    /// Conversations, most recently updated first.
    fn list(&self, query: ListQuery) -> StoreFuture<'_, Vec<Conversation>>;

    /// Deletes the conversation and all its versions; `false` if it did not exist.
    fn delete(&self, id: ConversationId) -> StoreFuture<'_, bool>;

    /// Adds a page version (a refresh) and returns the updated metadata;
    /// `None` if the conversation does not exist. Older versions beyond the
    /// store's retention are dropped, never the latest two.
    fn add_version(
        &self,
        id: ConversationId,
        page: NewPage,
    ) -> StoreFuture<'_, Option<Conversation>>;

    /// A page version: the latest when `version` is `None`.
    fn page(&self, id: ConversationId, version: Option<u32>)
    -> StoreFuture<'_, Option<StoredPage>>;

    /// The version numbers kept for a conversation, oldest first.
    fn versions(&self, id: ConversationId) -> StoreFuture<'_, Vec<u32>>;

    /// The latest version number, `None` if the conversation does not exist:
    /// what a reader checks before serving a cached page when other
    /// processes write too. Backends answer it with one cheap lookup.
    fn latest_version(&self, id: ConversationId) -> StoreFuture<'_, Option<u32>> {
        Box::pin(async move { Ok(self.get(id).await?.map(|c| c.version)) })
    }

    /// Refreshes and deletions made by other processes sharing the database,
    /// as they commit; `None` when the backend has no way to hear them
    /// (SQLite). Needs a tokio runtime.
    fn changes(&self) -> Option<Changes> {
        None
    }
}

/// Where conversations live, as given to `--db`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file.
    Sqlite(std::path::PathBuf),
    /// A `postgres://` or `postgresql://` URL.
    Postgres(String),
}

impl Database {
    /// Reads a `--db` value: a PostgreSQL URL, else a file path (other URLs
    /// are refused when the file is opened, before anything touches the disk).
    pub fn from_arg(value: &std::path::Path) -> Self {
        match value.to_str() {
            Some(s) if is_postgres_url(s) => Database::Postgres(s.to_string()),
            _ => Database::Sqlite(value.to_owned()),
        }
    }
}

impl std::fmt::Display for Database {
    /// The path, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(p) => write!(f, "{}", p.display()),
            Database::Postgres(url) => f.write_str(&postgres::redact(url)),
        }
    }
}

fn is_postgres_url(s: &str) -> bool {
    let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// Opens the store `db` names with default options: the one place that
/// decides between SQLite and PostgreSQL. Needs a tokio runtime.
///
/// A SQLite file's directory must exist, except the default one's
/// ([`default_db_path`]), which is created: a mistyped `--db` must not
/// quietly grow a directory tree somewhere.
pub async fn open(db: &Database) -> Result<std::sync::Arc<dyn Store>> {
    Ok(match db {
        Database::Sqlite(path) => {
            check_directory(path)?;
            let path = path.clone();
            let store = tokio::task::spawn_blocking(move || {
                SqliteStore::open(&path, SqliteOptions::default())
            })
            .await
            .map_err(|e| StoreError::Backend(format!("storage task failed: {e}")))??;
            std::sync::Arc::new(store)
        }
        Database::Postgres(url) => {
            std::sync::Arc::new(PostgresStore::open(url, PostgresOptions::default()).await?)
        }
    })
}

fn check_directory(path: &std::path::Path) -> Result<()> {
    // A URL is named as one, not as a missing directory.
    sqlite::reject_url(path)?;
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    if dir.is_dir() || default_db_path().is_some_and(|d| d == path) {
        return Ok(());
    }
    Err(StoreError::Open {
        path: path.display().to_string(),
        reason: format!(
            "the directory {} does not exist; create it first, or choose a file in an existing directory",
            dir.display()
        ),
    })
}

/// The `conversations` columns both backends read and write, in this order.
pub(crate) const CONVERSATION_COLUMNS: &str = "id, session_id, cwd, permission_mode, json_schema, created_at, updated_at, version, url, html_bytes";

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
