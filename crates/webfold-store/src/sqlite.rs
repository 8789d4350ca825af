//! The embedded default: one SQLite file in WAL mode.
//!
//! Durability: `synchronous=FULL` makes every commit reach the disk before the
//! call returns, so an acknowledged write survives `kill -9` and power loss.
//! One writer connection (SQLite serialises writers anyway) and a small pool of
//! readers, which WAL lets run beside the writer, even from another process
//! (`webfold mcp` and `webfold serve` can share one file).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::{
    CONVERSATION_COLUMNS, Conversation, ConversationId, ListQuery, NewConversation, NewPage,
    Result, Store, StoreError, StoreFuture, StoredPage, now_ms,
};

/// Schema migrations, applied in order; the schema version is their count.
/// Append only: a released migration never changes.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE conversations (
    id              TEXT PRIMARY KEY,
    session_id      TEXT,
    cwd             TEXT,
    permission_mode TEXT,
    json_schema     TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    version         INTEGER NOT NULL,
    url             TEXT,
    html_bytes      INTEGER NOT NULL
);
CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
CREATE TABLE page_versions (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    version         INTEGER NOT NULL,
    html            TEXT NOT NULL,
    url             TEXT,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, version)
);
"#,
    r#"
-- The browser extension's capture (JSON) the page was made from: its layout.
ALTER TABLE page_versions ADD COLUMN capture TEXT;
"#,
];

/// How the SQLite store behaves.
#[derive(Clone, Debug)]
pub struct SqliteOptions {
    /// Page versions kept per conversation (at least 2: the latest and the one before).
    pub max_versions: u32,
    /// Reader connections kept open between calls.
    pub idle_readers: usize,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self {
            max_versions: 10,
            idle_readers: 4,
        }
    }
}

/// The default database file: `$XDG_DATA_HOME/webfold/webfold.db`, else
/// `~/.local/share/webfold/webfold.db`; `None` when neither is known.
pub fn default_db_path() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".local").join("share"))
        })?;
    Some(data.join("webfold").join("webfold.db"))
}

/// Refuses a path that is a URL (`postgres://…`, `sqlite:x.db`, `file:///…`).
/// A URL is a scheme of two or more characters (one would be a Windows drive,
/// `C:\\…`) followed by `://`, or a database scheme followed by `:` alone.
pub(crate) fn reject_url(path: &Path) -> Result<()> {
    let Some(text) = path.to_str() else {
        return Ok(());
    };
    let Some((scheme, rest)) = text.split_once(':') else {
        return Ok(());
    };
    let is_scheme = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let scheme = scheme.to_ascii_lowercase();
    const DATABASE_SCHEMES: [&str; 7] = [
        "postgres",
        "postgresql",
        "sqlite",
        "sqlite3",
        "mysql",
        "mariadb",
        "file",
    ];
    if !is_scheme || !(rest.starts_with("//") || DATABASE_SCHEMES.contains(&scheme.as_str())) {
        return Ok(());
    }
    let hint = match scheme.as_str() {
        "postgres" | "postgresql" => {
            "; a PostgreSQL URL looks like postgres://user:password@host:5432/database".to_string()
        }
        "sqlite" | "sqlite3" | "file" => {
            format!("; pass the file's path without the '{scheme}:' prefix")
        }
        _ => format!("; {scheme} databases are not supported"),
    };
    Err(StoreError::NotAFilePath {
        value: text.to_string(),
        hint,
    })
}

/// Conversations in one SQLite file.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    opts: SqliteOptions,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and migrates it.
    /// The file and a directory created for it are private to the user (0600 / 0700):
    /// they hold whole pages, which can contain anything the user could see.
    pub fn open(path: &Path, opts: SqliteOptions) -> Result<Self> {
        reject_url(path)?;
        let open_err = |reason: String| StoreError::Open {
            path: path.display().to_string(),
            reason,
        };
        prepare_file(path).map_err(|e| open_err(e.to_string()))?;
        let writer = connect(path).map_err(|e| open_err(e.to_string()))?;
        migrate(&writer, path)?;
        let opts = SqliteOptions {
            max_versions: opts.max_versions.max(2),
            ..opts
        };
        Ok(Self {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                opts,
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` with the writer connection on the blocking pool.
    fn write<T, F>(&self, f: F) -> StoreFuture<'static, T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &SqliteOptions) -> rusqlite::Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut conn = inner.writer.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut conn, &inner.opts).map_err(backend)
            })
            .await
            .map_err(|e| StoreError::Backend(format!("storage task failed: {e}")))?
        })
    }

    /// Runs `f` with a reader connection on the blocking pool.
    fn read<T, F>(&self, f: F) -> StoreFuture<'static, T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let pooled = inner
                    .readers
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .pop();
                let conn = match pooled {
                    Some(c) => c,
                    None => connect(&inner.path).map_err(backend)?,
                };
                let out = f(&conn).map_err(backend);
                let mut idle = inner.readers.lock().unwrap_or_else(|p| p.into_inner());
                if idle.len() < inner.opts.idle_readers {
                    idle.push(conn);
                }
                out
            })
            .await
            .map_err(|e| StoreError::Backend(format!("storage task failed: {e}")))?
        })
    }
}

pub(crate) fn backend(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull) => StoreError::Full,
        _ => StoreError::Backend(e.to_string()),
    }
}

#[cfg(unix)]
pub(crate) fn prepare_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // SQLite gives the -wal and -shm files the main file's mode, so creating
    // it 0600 keeps all three private.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn prepare_file(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    Ok(())
}

pub(crate) fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

pub(crate) fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    migrate_with(conn, path, MIGRATIONS)
}

/// Applies `migrations` (append-only; the schema version is their count).
pub(crate) fn migrate_with(conn: &Connection, path: &Path, migrations: &[&str]) -> Result<()> {
    conn.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        .map_err(backend)?;
    let current: i64 = conn
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_version",
            [],
            |r| r.get(0),
        )
        .map_err(backend)?;
    let supported = migrations.len() as i64;
    if current > supported {
        return Err(StoreError::SchemaTooNew {
            path: path.display().to_string(),
            found: current,
            supported,
        });
    }
    for (i, sql) in migrations.iter().enumerate().skip(current as usize) {
        let version = i as i64 + 1;
        // IMMEDIATE takes the write lock first, so two processes opening a new
        // file at once cannot both apply a migration.
        conn.execute_batch("BEGIN IMMEDIATE").map_err(backend)?;
        let applied: i64 = conn
            .query_row(
                "SELECT COALESCE(MAX(version), 0) FROM schema_version",
                [],
                |r| r.get(0),
            )
            .map_err(backend)?;
        let step = if applied >= version {
            Ok(())
        } else {
            conn.execute_batch(sql)
                .and_then(|_| {
                    conn.execute(
                        "INSERT INTO schema_version (version) VALUES (?1)",
                        [version],
                    )
                })
                .map(|_| ())
        };
        match step {
            Ok(()) => conn.execute_batch("COMMIT").map_err(backend)?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(backend(e));
            }
        }
    }
    Ok(())
}

fn conversation_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Conversation> {
    let id: String = row.get(0)?;
    let id = id.parse::<ConversationId>().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let schema: Option<String> = row.get(4)?;
    Ok(Conversation {
        id,
        session_id: row.get(1)?,
        cwd: row.get(2)?,
        permission_mode: row.get(3)?,
        // A schema that no longer parses is dropped rather than failing the read.
        json_schema: schema.and_then(|s| serde_json::from_str(&s).ok()),
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
        version: row.get(7)?,
        url: row.get(8)?,
        html_bytes: row.get::<_, i64>(9)?.max(0) as u64,
    })
}

fn get_conversation(conn: &Connection, id: &str) -> rusqlite::Result<Option<Conversation>> {
    conn.prepare_cached(&format!(
        "SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?1"
    ))?
    .query_row([id], conversation_row)
    .optional()
}

impl Store for SqliteStore {
    fn create(&self, new: NewConversation) -> StoreFuture<'_, Conversation> {
        let id = match ConversationId::random() {
            Ok(id) => id,
            Err(e) => return Box::pin(async move { Err(e) }),
        };
        self.write(move |conn, _| {
            let now = now_ms();
            let key = id.to_string();
            let schema = new.json_schema.as_ref().map(|v| v.to_string());
            // IMMEDIATE takes the write lock first: a deferred transaction that reads
            // and then writes fails at once ("database is locked") when another
            // process (or store) wrote meanwhile, whatever the busy timeout.
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            tx.execute(
                &format!("INSERT INTO conversations ({CONVERSATION_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 1, ?7, ?8)"),
                params![
                    key,
                    new.session_id,
                    new.cwd,
                    new.permission_mode,
                    schema,
                    now,
                    new.page.url,
                    new.page.html.len() as i64
                ],
            )?;
            tx.execute(
                "INSERT INTO page_versions (conversation_id, version, html, url, created_at, capture) VALUES (?1, 1, ?2, ?3, ?4, ?5)",
                params![key, new.page.html, new.page.url, now, new.page.capture],
            )?;
            let conv = get_conversation(&tx, &key)?;
            tx.commit()?;
            conv.ok_or(rusqlite::Error::QueryReturnedNoRows)
        })
    }

    fn get(&self, id: ConversationId) -> StoreFuture<'_, Option<Conversation>> {
        self.read(move |conn| get_conversation(conn, &id.to_string()))
    }

    fn list(&self, query: ListQuery) -> StoreFuture<'_, Vec<Conversation>> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {CONVERSATION_COLUMNS} FROM conversations ORDER BY updated_at DESC, id LIMIT ?1 OFFSET ?2"
            ))?;
            let rows = stmt.query_map(params![query.limit, query.offset], conversation_row)?;
            rows.collect()
        })
    }

    fn delete(&self, id: ConversationId) -> StoreFuture<'_, bool> {
        self.write(move |conn, _| {
            let n = conn.execute("DELETE FROM conversations WHERE id = ?1", [id.to_string()])?;
            Ok(n > 0)
        })
    }

    fn add_version(
        &self,
        id: ConversationId,
        page: NewPage,
    ) -> StoreFuture<'_, Option<Conversation>> {
        self.write(move |conn, opts| {
            let key = id.to_string();
            let now = now_ms();
            // IMMEDIATE, as in `create`.
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let Some(latest) = tx
                .query_row("SELECT version, created_at FROM conversations WHERE id = ?1", [&key], |r| {
                    Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?))
                })
                .optional()?
            else {
                return Ok(None);
            };
            let version = latest.0 + 1;
            // Time never goes backwards for one conversation, even if the clock does.
            let now = now.max(latest.1);
            tx.execute(
                "INSERT INTO page_versions (conversation_id, version, html, url, created_at, capture) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![key, version, page.html, page.url, now, page.capture],
            )?;
            tx.execute(
                "UPDATE conversations SET version = ?2, updated_at = ?3, url = ?4, html_bytes = ?5 WHERE id = ?1",
                params![key, version, now, page.url, page.html.len() as i64],
            )?;
            tx.execute(
                "DELETE FROM page_versions WHERE conversation_id = ?1 AND version <= ?2",
                params![key, i64::from(version) - i64::from(opts.max_versions)],
            )?;
            let conv = get_conversation(&tx, &key)?;
            tx.commit()?;
            Ok(conv)
        })
    }

    fn page(
        &self,
        id: ConversationId,
        version: Option<u32>,
    ) -> StoreFuture<'_, Option<StoredPage>> {
        self.read(move |conn| {
            let key = id.to_string();
            let row = |r: &rusqlite::Row<'_>| {
                Ok(StoredPage {
                    version: r.get(0)?,
                    html: r.get(1)?,
                    url: r.get(2)?,
                    created_at: r.get(3)?,
                    capture: r.get(4)?,
                })
            };
            match version {
                Some(v) => conn
                    .prepare_cached(
                        "SELECT version, html, url, created_at, capture FROM page_versions WHERE conversation_id = ?1 AND version = ?2",
                    )?
                    .query_row(params![key, v], row)
                    .optional(),
                None => conn
                    .prepare_cached(
                        "SELECT version, html, url, created_at, capture FROM page_versions WHERE conversation_id = ?1 ORDER BY version DESC LIMIT 1",
                    )?
                    .query_row([key], row)
                    .optional(),
            }
        })
    }

    fn versions(&self, id: ConversationId) -> StoreFuture<'_, Vec<u32>> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT version FROM page_versions WHERE conversation_id = ?1 ORDER BY version",
            )?;
            let rows = stmt.query_map([id.to_string()], |r| r.get(0))?;
            rows.collect()
        })
    }
}
