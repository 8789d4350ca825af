//! PostgreSQL, for several webfold instances sharing one database.
//!
//! Same schema, migrations and guarantees as the SQLite store: migrations are
//! applied at open under an advisory lock (two instances starting at once
//! apply each one exactly once), every write commits with
//! `synchronous_commit = on` before its future resolves, and versions are
//! kept per conversation with the same retention (never the latest two).
//!
//! Connections come from a small bounded pool: at most `max_connections` at
//! once, a caller waits at most `acquire_timeout` for one, and a connection
//! the server closed (a restart) is dropped and replaced on the next call, so
//! webfold recovers without being restarted.
//!
//! Each refresh and deletion also sends a notification on [`CHANNEL`] in its
//! own transaction. [`Store::changes`] opens one more connection that
//! `LISTEN`s there (reconnecting with backoff after a restart) and passes
//! what other stores changed to its subscribers, in commit order.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, mpsc, oneshot, watch};
use tokio_postgres::config::SslMode;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Row};

use crate::changes::Lossy;
use crate::{
    CONVERSATION_COLUMNS, Change, Changes, Conversation, ConversationId, ListQuery,
    NewConversation, NewPage, Result, Store, StoreError, StoreFuture, StoredPage, Subscription,
    now_ms,
};

/// The notification channel for refreshes and deletions. A payload is
/// `<id> <version> <origin>` or `<id> deleted <origin>`, where the origin
/// names the store that made the change (its own changes are not echoed).
pub const CHANNEL: &str = "webfold_changes";

/// Changes a slow subscriber may fall behind by before it is told it missed some.
const CHANGES_BUFFER: usize = 4096;

/// Schema migrations, applied in order; the schema version is their count.
/// Append only: a released migration never changes. Version 1 is the SQLite
/// store's version 1 in PostgreSQL's types.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE conversations (
    id              TEXT PRIMARY KEY,
    session_id      TEXT,
    cwd             TEXT,
    permission_mode TEXT,
    json_schema     TEXT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    version         INTEGER NOT NULL,
    url             TEXT,
    html_bytes      BIGINT NOT NULL
);
CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
CREATE TABLE page_versions (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    version         INTEGER NOT NULL,
    html            TEXT NOT NULL,
    url             TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, version)
);
"#,
    r#"
-- The browser extension's capture (JSON) the page was made from: its layout.
ALTER TABLE page_versions ADD COLUMN capture TEXT;
"#,
];

/// The advisory lock key that serialises migrations across instances ("webfold").
const MIGRATION_LOCK: i64 = 0x0077_6562_666f_6c64;

/// How the PostgreSQL store behaves.
#[derive(Clone, Debug)]
pub struct PostgresOptions {
    /// Page versions kept per conversation (at least 2: the latest and the one before).
    pub max_versions: u32,
    /// Connections open at once, at most.
    pub max_connections: usize,
    /// How long a call waits for a free connection before failing.
    pub acquire_timeout: Duration,
    /// How long opening one connection may take.
    pub connect_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            max_versions: 10,
            max_connections: 8,
            acquire_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
        }
    }
}

/// Conversations in a PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    /// The URL without its password, for messages.
    shown: String,
    opts: PostgresOptions,
    permits: Arc<Semaphore>,
    idle: Mutex<Vec<Client>>,
    /// This store's tag in the notifications it sends.
    origin: String,
    /// The listening connection's task, started by the first `changes`.
    listener: Mutex<Option<Listener<Change>>>,
}

/// One `LISTEN` connection's task and what it heard, shared by every
/// subscriber; dropping it ends the task.
pub(crate) struct Listener<E> {
    events: broadcast::Sender<E>,
    listening: watch::Receiver<bool>,
    _stop: oneshot::Sender<()>,
}

impl<E: Lossy + Send + 'static> Listener<E> {
    /// Starts listening on `channel` (on the current tokio runtime); each
    /// payload `read` understands goes to the subscribers, and a lost
    /// connection tells them they missed some.
    pub(crate) fn start(
        config: Config,
        channel: &'static str,
        read: impl Fn(&str) -> Option<E> + Send + 'static,
    ) -> Listener<E> {
        let (events, _) = broadcast::channel(CHANGES_BUFFER);
        let (up, listening) = watch::channel(false);
        let (stop, stopped) = oneshot::channel();
        let sender = events.clone();
        let heard = move |payload: Option<&str>| {
            let event = match payload {
                None => Some(E::missed()),
                Some(p) => read(p),
            };
            if let Some(event) = event {
                let _ = sender.send(event);
            }
        };
        tokio::spawn(listen(config, channel, heard, up, stopped));
        Listener {
            events,
            listening,
            _stop: stop,
        }
    }

    pub(crate) fn subscribe(&self) -> Subscription<E> {
        Subscription {
            events: self.events.subscribe(),
            listening: self.listening.clone(),
        }
    }
}

/// A connection lent by the pool; returned on drop unless the server closed it.
pub(crate) struct Pooled {
    client: Option<Client>,
    inner: Arc<Inner>,
    _permit: OwnedSemaphorePermit,
}

impl std::ops::Deref for Pooled {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client.as_ref().expect("present until drop")
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("present until drop")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(client) = self.client.take().filter(|c| !c.is_closed()) {
            self.inner
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(client);
        }
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:5432/db`) and
    /// migrates it. Fails with advice when the server cannot be reached, the
    /// URL asks for TLS, or the schema is newer than this webfold.
    pub async fn open(url: &str, opts: PostgresOptions) -> Result<Self> {
        let shown = redact(url);
        let mut config = Config::from_str(url).map_err(|e| StoreError::Open {
            path: shown.clone(),
            reason: format!("{e}; write it as postgres://user:password@host:5432/database"),
        })?;
        if matches!(config.get_ssl_mode(), SslMode::Require) {
            return Err(StoreError::Open {
                path: shown,
                reason: "the URL asks for TLS (sslmode=require) but webfold connects to PostgreSQL without TLS; use sslmode=disable on a loopback or private network, or a local TLS proxy".into(),
            });
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(opts.connect_timeout);
        }
        let opts = PostgresOptions {
            max_versions: opts.max_versions.max(2),
            max_connections: opts.max_connections.max(1),
            ..opts
        };
        let mut tag = [0u8; 8];
        getrandom::fill(&mut tag)
            .map_err(|e| StoreError::Backend(format!("the OS random source failed: {e}")))?;
        let store = Self {
            inner: Arc::new(Inner {
                config,
                shown,
                permits: Arc::new(Semaphore::new(opts.max_connections)),
                opts,
                idle: Mutex::new(Vec::new()),
                origin: tag.iter().map(|b| format!("{b:02x}")).collect(),
                listener: Mutex::new(None),
            }),
        };
        let mut client = store.client().await?;
        migrate(
            &mut client,
            &store.inner.shown,
            "schema_version",
            MIGRATIONS,
        )
        .await?;
        drop(client);
        Ok(store)
    }

    /// The URL this store connects to, without its password.
    pub fn url(&self) -> &str {
        &self.inner.shown
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    /// A connection from the pool, or a new one; waits at most `acquire_timeout`.
    pub(crate) async fn client(&self) -> Result<Pooled> {
        let inner = &self.inner;
        let permit = tokio::time::timeout(
            inner.opts.acquire_timeout,
            inner.permits.clone().acquire_owned(),
        )
        .await
        .map_err(|_| StoreError::Unavailable {
            target: inner.shown.clone(),
            reason: format!(
                "all {} connections stayed busy for {:?}; the database is slow or overloaded, try again",
                inner.opts.max_connections, inner.opts.acquire_timeout
            ),
        })?
        .map_err(|_| StoreError::Backend("the connection pool is closed".into()))?;
        let reused = loop {
            let next = inner.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match next {
                Some(c) if c.is_closed() => continue,
                other => break other,
            }
        };
        let client = match reused {
            Some(c) => c,
            None => {
                let (client, connection) = inner
                    .config
                    .connect(NoTls)
                    .await
                    .map_err(|e| unreachable(&inner.shown, &e))?;
                tokio::spawn(async move {
                    // Ends when the server closes the connection; the client then
                    // reports `is_closed` and the pool drops it.
                    let _ = connection.await;
                });
                // Durable acknowledgements even if the server's default says otherwise.
                client
                    .batch_execute("SET synchronous_commit TO on")
                    .await
                    .map_err(|e| pg_error(&inner.shown, e))?;
                client
            }
        };
        Ok(Pooled {
            client: Some(client),
            inner: inner.clone(),
            _permit: permit,
        })
    }

    fn run<'a, T, F, Fut>(&'a self, f: F) -> StoreFuture<'a, T>
    where
        T: Send + 'a,
        F: FnOnce(Pooled, PostgresOptions) -> Fut + Send + 'a,
        Fut:
            std::future::Future<Output = std::result::Result<T, tokio_postgres::Error>> + Send + 'a,
    {
        Box::pin(async move {
            let client = self.client().await?;
            f(client, self.inner.opts.clone())
                .await
                .map_err(|e| pg_error(&self.inner.shown, e))
        })
    }
}

/// Holds one `LISTEN` connection on `channel` for as long as `stop` is
/// open, reconnecting with backoff (0.1 s doubling to 5 s) whenever it is
/// lost. Each payload goes to `heard` in commit order; `heard(None)` says the
/// connection came back after a loss, so what was sent meanwhile is gone.
pub(crate) async fn listen(
    config: Config,
    channel: &'static str,
    mut heard: impl FnMut(Option<&str>) + Send,
    listening: watch::Sender<bool>,
    mut stop: oneshot::Receiver<()>,
) {
    let mut backoff = Duration::from_millis(100);
    let mut first = true;
    loop {
        let session = async {
            let (client, mut connection) = config.connect(NoTls).await.ok()?;
            let (tx, mut inbox) = mpsc::unbounded_channel();
            // The connection delivers notifications in order; forward them
            // until the server closes it.
            tokio::spawn(async move {
                while let Some(Ok(message)) =
                    std::future::poll_fn(|cx| connection.poll_message(cx)).await
                {
                    if let AsyncMessage::Notification(n) = message
                        && tx.send(n.payload().to_string()).is_err()
                    {
                        break;
                    }
                }
            });
            client
                .batch_execute(&format!("LISTEN {channel}"))
                .await
                .ok()?;
            listening.send_replace(true);
            if !std::mem::take(&mut first) {
                heard(None);
            }
            while let Some(payload) = inbox.recv().await {
                heard(Some(&payload));
            }
            drop(client);
            Some(())
        };
        let up = tokio::select! {
            _ = &mut stop => return,
            up = session => up.is_some(),
        };
        listening.send_replace(false);
        if up {
            backoff = Duration::from_millis(100);
        }
        tokio::select! {
            _ = &mut stop => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// Reads a notification payload; `None` for this store's own changes and
/// for anything malformed.
fn parse_change(payload: &str, own_origin: &str) -> Option<Change> {
    let mut parts = payload.split(' ');
    let id = parts.next()?.parse::<ConversationId>().ok()?;
    let what = parts.next()?;
    let origin = parts.next()?;
    if origin == own_origin || parts.next().is_some() {
        return None;
    }
    match what {
        "deleted" => Some(Change::Deleted { id }),
        v => Some(Change::Refreshed {
            id,
            version: v.parse().ok()?,
        }),
    }
}

fn unreachable(shown: &str, e: &tokio_postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        // Starting up or shutting down (57P01..57P05): try again later.
        if db.code().code().starts_with("57P") {
            return StoreError::Unavailable {
                target: shown.to_string(),
                reason: db.message().to_string(),
            };
        }
        return StoreError::Open {
            path: shown.to_string(),
            reason: format!("PostgreSQL refused the connection: {}", db.message()),
        };
    }
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        reason = format!("{reason}: {s}");
        source = s.source();
    }
    StoreError::Unavailable {
        target: shown.to_string(),
        reason,
    }
}

pub(crate) fn pg_error(shown: &str, e: tokio_postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        // The server is shutting down or restarting.
        if db.code().code().starts_with("57P") {
            return unreachable(shown, &e);
        }
        return StoreError::Backend(format!("PostgreSQL: {}", db.message()));
    }
    if e.is_closed() || std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>()) {
        return unreachable(shown, &e);
    }
    StoreError::Backend(format!("PostgreSQL: {e}"))
}

/// Applies `migrations` in one transaction under an advisory lock; `track`
/// is the table that records how many were applied (the conversations'
/// `schema_version`, or the daemon's own).
pub(crate) async fn migrate(
    client: &mut Client,
    shown: &str,
    track: &str,
    migrations: &[&str],
) -> Result<()> {
    let err = |e| pg_error(shown, e);
    let tx = client.transaction().await.map_err(err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(err)?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {track} (version BIGINT NOT NULL)"
    ))
    .await
    .map_err(err)?;
    let current: i64 = tx
        .query_one(
            &format!("SELECT COALESCE(MAX(version), 0) FROM {track}"),
            &[],
        )
        .await
        .map_err(err)?
        .get(0);
    let supported = migrations.len() as i64;
    if current > supported {
        return Err(StoreError::SchemaTooNew {
            path: shown.to_string(),
            found: current,
            supported,
        });
    }
    for (i, sql) in migrations.iter().enumerate().skip(current as usize) {
        let version = i as i64 + 1;
        tx.batch_execute(sql).await.map_err(err)?;
        tx.execute(
            &format!("INSERT INTO {track} (version) VALUES ($1)"),
            &[&version],
        )
        .await
        .map_err(err)?;
    }
    tx.commit().await.map_err(err)
}

fn conversation_row(row: &Row) -> Option<Conversation> {
    // A row whose id no longer parses is skipped rather than failing the read.
    let id = row.get::<_, String>(0).parse::<ConversationId>().ok()?;
    let schema: Option<String> = row.get(4);
    Some(Conversation {
        id,
        session_id: row.get(1),
        cwd: row.get(2),
        permission_mode: row.get(3),
        json_schema: schema.and_then(|s| serde_json::from_str(&s).ok()),
        created_at: row.get(5),
        updated_at: row.get(6),
        version: row.get::<_, i32>(7).max(0) as u32,
        url: row.get(8),
        html_bytes: row.get::<_, i64>(9).max(0) as u64,
    })
}

async fn get_conversation(
    client: &impl tokio_postgres::GenericClient,
    id: &str,
) -> std::result::Result<Option<Conversation>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            &format!("SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = $1"),
            &[&id],
        )
        .await?;
    Ok(row.as_ref().and_then(conversation_row))
}

fn page_row(r: &Row) -> StoredPage {
    StoredPage {
        version: r.get::<_, i32>(0).max(0) as u32,
        html: r.get(1),
        url: r.get(2),
        created_at: r.get(3),
        capture: r.get(4),
    }
}

impl Store for PostgresStore {
    fn create(&self, new: NewConversation) -> StoreFuture<'_, Conversation> {
        let id = match ConversationId::random() {
            Ok(id) => id,
            Err(e) => return Box::pin(async move { Err(e) }),
        };
        let shown = self.inner.shown.clone();
        Box::pin(async move {
            let conv = self
                .run(move |mut client, _| async move {
                    let now = now_ms();
                    let key = id.to_string();
                    let schema = new.json_schema.as_ref().map(|v| v.to_string());
                    let bytes = new.page.html.len() as i64;
                    let tx = client.transaction().await?;
                    tx.execute(
                        &format!("INSERT INTO conversations ({CONVERSATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $6, 1, $7, $8)"),
                        &[&key, &new.session_id, &new.cwd, &new.permission_mode, &schema, &now, &new.page.url, &bytes],
                    )
                    .await?;
                    tx.execute(
                        "INSERT INTO page_versions (conversation_id, version, html, url, created_at, capture) VALUES ($1, 1, $2, $3, $4, $5)",
                        &[&key, &new.page.html, &new.page.url, &now, &new.page.capture],
                    )
                    .await?;
                    let conv = get_conversation(&tx, &key).await?;
                    tx.commit().await?;
                    Ok(conv)
                })
                .await?;
            conv.ok_or_else(|| {
                StoreError::Backend(format!(
                    "the new conversation was not found after creating it in {shown}"
                ))
            })
        })
    }

    fn get(&self, id: ConversationId) -> StoreFuture<'_, Option<Conversation>> {
        self.run(move |client, _| async move { get_conversation(&*client, &id.to_string()).await })
    }

    fn list(&self, query: ListQuery) -> StoreFuture<'_, Vec<Conversation>> {
        self.run(move |client, _| async move {
            let rows = client
                .query(
                    &format!("SELECT {CONVERSATION_COLUMNS} FROM conversations ORDER BY updated_at DESC, id LIMIT $1 OFFSET $2"),
                    &[&i64::from(query.limit), &i64::from(query.offset)],
                )
                .await?;
            Ok(rows.iter().filter_map(conversation_row).collect())
        })
    }

    fn delete(&self, id: ConversationId) -> StoreFuture<'_, bool> {
        let origin = self.inner.origin.clone();
        self.run(move |client, _| async move {
            // One statement: the notification goes out with the deletion's
            // commit, and only when a row was deleted.
            let n: i64 = client
                .query_one(
                    &format!(
                        "WITH gone AS (DELETE FROM conversations WHERE id = $1 RETURNING id), \
                         sent AS (SELECT pg_notify('{CHANNEL}', id || ' deleted ' || $2::TEXT) FROM gone) \
                         SELECT count(*) FROM sent"
                    ),
                    &[&id.to_string(), &origin],
                )
                .await?
                .get(0);
            Ok(n > 0)
        })
    }

    fn add_version(
        &self,
        id: ConversationId,
        page: NewPage,
    ) -> StoreFuture<'_, Option<Conversation>> {
        let origin = self.inner.origin.clone();
        self.run(move |mut client, opts| async move {
            let key = id.to_string();
            let now = now_ms();
            let tx = client.transaction().await?;
            // FOR UPDATE serialises refreshes of one conversation across instances.
            let Some(latest) = tx
                .query_opt(
                    "SELECT version, created_at FROM conversations WHERE id = $1 FOR UPDATE",
                    &[&key],
                )
                .await?
            else {
                return Ok(None);
            };
            let version: i32 = latest.get::<_, i32>(0).saturating_add(1);
            // Time never goes backwards for one conversation, even if the clock does.
            let now = now.max(latest.get::<_, i64>(1));
            let bytes = page.html.len() as i64;
            tx.execute(
                "INSERT INTO page_versions (conversation_id, version, html, url, created_at, capture) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&key, &version, &page.html, &page.url, &now, &page.capture],
            )
            .await?;
            tx.execute(
                "UPDATE conversations SET version = $2, updated_at = $3, url = $4, html_bytes = $5 WHERE id = $1",
                &[&key, &version, &now, &page.url, &bytes],
            )
            .await?;
            let oldest_dropped = i64::from(version) - i64::from(opts.max_versions);
            tx.execute(
                "DELETE FROM page_versions WHERE conversation_id = $1 AND version <= $2::BIGINT",
                &[&key, &oldest_dropped],
            )
            .await?;
            // Delivered to the other instances when (and only if) this commits.
            let payload = format!("{key} {version} {origin}");
            tx.execute(
                &format!("SELECT pg_notify('{CHANNEL}', $1)"),
                &[&payload],
            )
            .await?;
            let conv = get_conversation(&tx, &key).await?;
            tx.commit().await?;
            Ok(conv)
        })
    }

    fn latest_version(&self, id: ConversationId) -> StoreFuture<'_, Option<u32>> {
        self.run(move |client, _| async move {
            let row = client
                .query_opt(
                    "SELECT version FROM conversations WHERE id = $1",
                    &[&id.to_string()],
                )
                .await?;
            Ok(row.map(|r| r.get::<_, i32>(0).max(0) as u32))
        })
    }

    fn changes(&self) -> Option<Changes> {
        let mut slot = self
            .inner
            .listener
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            // Listening needs a runtime to run on.
            tokio::runtime::Handle::try_current().ok()?;
            let origin = self.inner.origin.clone();
            *slot = Some(Listener::start(
                self.inner.config.clone(),
                CHANNEL,
                move |p| parse_change(p, &origin),
            ));
        }
        slot.as_ref().map(Listener::subscribe)
    }

    fn page(
        &self,
        id: ConversationId,
        version: Option<u32>,
    ) -> StoreFuture<'_, Option<StoredPage>> {
        self.run(move |client, _| async move {
            let key = id.to_string();
            let row = match version {
                Some(v) => {
                    let Ok(v) = i32::try_from(v) else {
                        return Ok(None);
                    };
                    client
                        .query_opt(
                            "SELECT version, html, url, created_at, capture FROM page_versions WHERE conversation_id = $1 AND version = $2",
                            &[&key, &v],
                        )
                        .await?
                }
                None => {
                    client
                        .query_opt(
                            "SELECT version, html, url, created_at, capture FROM page_versions WHERE conversation_id = $1 ORDER BY version DESC LIMIT 1",
                            &[&key],
                        )
                        .await?
                }
            };
            Ok(row.as_ref().map(page_row))
        })
    }

    fn versions(&self, id: ConversationId) -> StoreFuture<'_, Vec<u32>> {
        self.run(move |client, _| async move {
            let rows = client
                .query(
                    "SELECT version FROM page_versions WHERE conversation_id = $1 ORDER BY version",
                    &[&id.to_string()],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| r.get::<_, i32>(0).max(0) as u32)
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Change, ConversationId, parse_change, redact};

    #[test]
    fn notification_payloads() {
        let id = ConversationId::from_bytes([0xab; 16]);
        assert_eq!(
            parse_change(&format!("{id} 7 other"), "mine"),
            Some(Change::Refreshed { id, version: 7 })
        );
        assert_eq!(
            parse_change(&format!("{id} deleted other"), "mine"),
            Some(Change::Deleted { id })
        );
        assert_eq!(parse_change(&format!("{id} 7 mine"), "mine"), None);
        for bad in [
            "",
            "x 1 o",
            &format!("{id} x o"),
            &format!("{id} 1"),
            &format!("{id} 1 o extra"),
        ] {
            assert_eq!(parse_change(bad, "mine"), None, "{bad:?}");
        }
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redact("postgres://web:s3cret@db.local:5432/webfold?sslmode=disable"),
            "postgres://web:***@db.local:5432/webfold?sslmode=disable"
        );
        assert_eq!(
            redact("postgres://web@db.local/webfold"),
            "postgres://web@db.local/webfold"
        );
        assert_eq!(redact("postgresql://localhost"), "postgresql://localhost");
    }
}
