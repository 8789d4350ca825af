//! A project's chat history with the browser: what the user asked about a
//! page and what the coding agent answered, one SQLite file per project
//! (`<project>/.webfold/history.db`).
//!
//! A user message is stored before the browser is told it arrived, with the
//! agent it is meant for and whether that agent has read it: after `kill -9`
//! the daemon finds every acknowledged message, and the unread ones go back
//! to their agent's inbox.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, params};

use crate::sqlite::{backend, connect, migrate_with, prepare_file};
use crate::{Result, StoreError};

const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content     TEXT NOT NULL,
    context_id  TEXT,
    agent_id    TEXT,
    timestamp   INTEGER NOT NULL,
    delivered   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX messages_by_session ON messages (session_id, id);
CREATE INDEX messages_undelivered ON messages (agent_id) WHERE delivered = 0;
"#];

/// Who said it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One stored message.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    #[serde(skip)]
    pub id: i64,
    #[serde(skip)]
    pub session_id: String,
    pub role: Role,
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    #[serde(skip)]
    pub agent_id: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: i64,
}

/// A project's history file.
#[derive(Clone)]
pub struct HistoryStore {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
}

impl HistoryStore {
    /// Opens (creating, 0600) the history at `path`.
    pub fn open(path: &Path) -> Result<HistoryStore> {
        let open_err = |reason: String| StoreError::Open {
            path: path.display().to_string(),
            reason,
        };
        prepare_file(path).map_err(|e| open_err(e.to_string()))?;
        let conn = connect(path).map_err(|e| open_err(e.to_string()))?;
        migrate_with(&conn, path, MIGRATIONS)?;
        Ok(HistoryStore {
            path: path.to_owned(),
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&conn).map_err(backend)
        })
        .await
        .map_err(|e| StoreError::Backend(format!("history task failed: {e}")))?
    }

    /// Stores a message (durably: the commit reaches the disk before this
    /// returns) and gives it its id.
    pub async fn append(&self, m: Message) -> Result<i64> {
        self.run(move |c| {
            c.execute(
                "INSERT INTO messages (session_id, role, content, context_id, agent_id, timestamp, delivered)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    m.session_id,
                    m.role.as_str(),
                    m.content,
                    m.context_id,
                    m.agent_id,
                    m.timestamp,
                    (m.role == Role::Assistant) as i64
                ],
            )?;
            Ok(c.last_insert_rowid())
        })
        .await
    }

    /// Marks a user message as read by its agent.
    pub async fn mark_delivered(&self, id: i64) -> Result<()> {
        self.run(move |c| {
            c.execute("UPDATE messages SET delivered = 1 WHERE id = ?1", [id])
                .map(|_| ())
        })
        .await
    }

    /// The user messages `agent_id` has not read yet, oldest first.
    pub async fn undelivered(&self, agent_id: &str) -> Result<Vec<Message>> {
        let agent = agent_id.to_string();
        self.run(move |c| {
            let mut stmt = c.prepare(
                "SELECT id, session_id, role, content, context_id, agent_id, timestamp FROM messages
                 WHERE delivered = 0 AND agent_id = ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([agent], row_to_message)?;
            rows.collect()
        })
        .await
    }

    /// The last `limit` messages of a session, oldest first.
    pub async fn recent(&self, session_id: &str, limit: usize) -> Result<Vec<Message>> {
        let session = session_id.to_string();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(move |c| {
            let mut stmt = c.prepare(
                "SELECT id, session_id, role, content, context_id, agent_id, timestamp FROM
                   (SELECT * FROM messages WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2)
                 ORDER BY id",
            )?;
            let rows = stmt.query_map(params![session, limit], row_to_message)?;
            rows.collect()
        })
        .await
    }
}

/// A project's history, wherever it is kept: its own file, or the database
/// several daemons share.
#[derive(Clone)]
pub enum History {
    File(HistoryStore),
    Shared {
        store: crate::ChatterStore,
        project: Option<String>,
    },
}

impl History {
    /// Stores a message durably and gives it its id.
    pub async fn append(&self, m: Message) -> Result<i64> {
        match self {
            History::File(h) => h.append(m).await,
            History::Shared { store, project } => store.append(project.as_deref(), m).await,
        }
    }

    /// Marks a user message as read by its agent.
    pub async fn mark_delivered(&self, id: i64) -> Result<()> {
        match self {
            History::File(h) => h.mark_delivered(id).await,
            History::Shared { store, .. } => store.mark_delivered(id).await,
        }
    }

    /// The user messages `agent_id` has not read yet, oldest first.
    pub async fn undelivered(&self, agent_id: &str) -> Result<Vec<Message>> {
        match self {
            History::File(h) => h.undelivered(agent_id).await,
            History::Shared { store, .. } => store.undelivered(agent_id).await,
        }
    }

    /// The last `limit` messages of a session, oldest first.
    pub async fn recent(&self, session_id: &str, limit: usize) -> Result<Vec<Message>> {
        match self {
            History::File(h) => h.recent(session_id, limit).await,
            History::Shared { store, .. } => store.recent(session_id, limit).await,
        }
    }
}

fn row_to_message(r: &rusqlite::Row<'_>) -> rusqlite::Result<Message> {
    let role: String = r.get(2)?;
    Ok(Message {
        id: r.get(0)?,
        session_id: r.get(1)?,
        role: if role == "user" {
            Role::User
        } else {
            Role::Assistant
        },
        content: r.get(3)?,
        context_id: r.get(4)?,
        agent_id: r.get(5)?,
        timestamp: r.get(6)?,
    })
}
