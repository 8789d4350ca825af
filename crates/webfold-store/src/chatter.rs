//! The chatter daemon's shared state on PostgreSQL, for several daemons that
//! serve one team: a tab may be connected to one daemon and the coding agent
//! it talks to to another.
//!
//! What each table holds, and why it is shared:
//! - `chatter_messages`: the history (what the SQLite `history.db` holds for
//!   one project), with the agent each user message is for and whether that
//!   agent has read it: any daemon can hand it over.
//! - `chatter_sessions`: a tab's project, and the sequence its frames take.
//! - `chatter_contexts`: each pick as the tab sent it (page, capture,
//!   screenshot), so the agent's daemon can write its own copy.
//! - `chatter_frames`: frames for a tab held by another daemon (or by none
//!   yet), numbered per tab: order comes from `seq`, never from arrival.
//! - `chatter_presence`: which daemon holds which tab and which agent, with a
//!   heartbeat; a row older than [`PRESENCE_LEASE`] is a daemon that died.
//! - `chatter_replies`: a tab's answer to a request another daemon made.
//!
//! Every write that others must hear sends a [`ChatterEvent`] on
//! [`CHATTER_CHANNEL`] in its own transaction, so it is heard only if, and
//! after, it commits. A listener re-reads the rows an event names: an event
//! is a hint to look, and a lost one ([`Heard::Missed`]) means "look again
//! at everything".

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::changes::{Lossy, Subscription};
use crate::postgres::{Listener, Pooled, migrate, pg_error};
use crate::{Message, PostgresOptions, PostgresStore, Result, Role, StoreError, now_ms};

/// The notification channel of the daemons' events.
pub const CHATTER_CHANNEL: &str = "webfold_chatter";

/// How long a daemon's presence lasts without a heartbeat.
pub const PRESENCE_LEASE: Duration = Duration::from_secs(30);

/// How often a daemon renews its presence.
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// Frames kept for a tab that nobody holds (as the daemon's own outbox).
const FRAMES_KEPT: i64 = 256;

/// Picks kept per tab.
const CONTEXTS_KEPT: i64 = 20;

/// The daemon's tables, migrated apart from the conversations' (the bridge
/// never needs them), append only.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE chatter_messages (
    id          BIGSERIAL PRIMARY KEY,
    project     TEXT,
    session_id  TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content     TEXT NOT NULL,
    context_id  TEXT,
    agent_id    TEXT,
    timestamp   BIGINT NOT NULL,
    delivered   BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX chatter_messages_by_session ON chatter_messages (session_id, id);
CREATE INDEX chatter_messages_undelivered ON chatter_messages (agent_id, id) WHERE NOT delivered;
CREATE TABLE chatter_sessions (
    session_id  TEXT PRIMARY KEY,
    project     TEXT,
    next_seq    BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE chatter_contexts (
    session_id  TEXT NOT NULL,
    context_id  TEXT NOT NULL,
    record      TEXT NOT NULL,
    timestamp   BIGINT NOT NULL,
    PRIMARY KEY (session_id, context_id)
);
CREATE INDEX chatter_contexts_latest ON chatter_contexts (session_id, timestamp DESC);
CREATE TABLE chatter_frames (
    session_id  TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    frame       TEXT NOT NULL,
    durable     BOOLEAN NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE chatter_presence (
    kind        TEXT NOT NULL CHECK (kind IN ('tab', 'agent')),
    id          TEXT NOT NULL,
    instance    TEXT NOT NULL,
    project     TEXT,
    client      TEXT,
    seen_at     BIGINT NOT NULL,
    PRIMARY KEY (kind, id, instance)
);
CREATE TABLE chatter_replies (
    request_id  TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    reply       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
"#];

/// What one daemon tells the others. Each names the rows to read again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum ChatterEvent {
    /// A frame for this tab waits at `seq`.
    Frame { session: String, seq: i64 },
    /// A user message waits for this agent.
    Message { agent: String },
    /// A tab now belongs to a project.
    Bound { session: String, project: String },
    /// A tab sent a new pick.
    Context {
        session: String,
        project: Option<String>,
    },
    /// An agent connected or left somewhere.
    Presence,
    /// A tab answered a request `instance` made.
    Reply { request: String, instance: String },
}

/// What a daemon hears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// An event, and whether this daemon sent it.
    Event { own: bool, event: ChatterEvent },
    /// Events may have been lost (the listening connection dropped, or the
    /// reader fell behind): read everything again.
    Missed,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    o: String,
    #[serde(flatten)]
    event: ChatterEvent,
}

/// An agent connected to another daemon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentAgent {
    pub agent_id: String,
    pub project: String,
    pub client: String,
    pub instance: String,
}

/// Who a presence row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    Tab,
    Agent,
}

impl Presence {
    fn as_str(self) -> &'static str {
        match self {
            Presence::Tab => "tab",
            Presence::Agent => "agent",
        }
    }
}

/// One daemon's handle on the shared state.
#[derive(Clone)]
pub struct ChatterStore {
    pg: PostgresStore,
    instance: String,
    listener: Arc<Mutex<Option<Listener<Heard>>>>,
}

/// A subscription to what the other daemons say, in commit order.
pub type ChatterEvents = Subscription<Heard>;

impl Lossy for Heard {
    fn missed() -> Self {
        Heard::Missed
    }
}

fn payload(instance: &str, event: ChatterEvent) -> String {
    serde_json::to_string(&Envelope {
        o: instance.to_string(),
        event,
    })
    .unwrap_or_default()
}

/// Sends `said` to the other daemons when (and if) `tx` commits.
async fn notify(
    tx: &tokio_postgres::Transaction<'_>,
    said: &str,
) -> std::result::Result<(), tokio_postgres::Error> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHATTER_CHANNEL, &said])
        .await
        .map(|_| ())
}

fn read_payload(text: &str, instance: &str) -> Option<Heard> {
    let e: Envelope = serde_json::from_str(text).ok()?;
    Some(Heard::Event {
        own: e.o == instance,
        event: e.event,
    })
}

fn role(text: &str) -> Role {
    if text == "user" {
        Role::User
    } else {
        Role::Assistant
    }
}

fn message_row(r: &tokio_postgres::Row) -> Message {
    Message {
        id: r.get(0),
        session_id: r.get(1),
        role: role(r.get::<_, &str>(2)),
        content: r.get(3),
        context_id: r.get(4),
        agent_id: r.get(5),
        timestamp: r.get(6),
    }
}

const MESSAGE_COLUMNS: &str = "id, session_id, role, content, context_id, agent_id, timestamp";

impl ChatterStore {
    /// Connects to the database at `url` and migrates the daemon's tables.
    /// Each handle is one daemon: its own instance name in presence rows,
    /// request ids and events.
    pub async fn open(url: &str) -> Result<ChatterStore> {
        let pg = PostgresStore::open(url, PostgresOptions::default()).await?;
        let mut client = pg.client().await?;
        migrate(&mut client, pg.url(), "chatter_schema_version", MIGRATIONS).await?;
        drop(client);
        let mut tag = [0u8; 6];
        getrandom::fill(&mut tag)
            .map_err(|e| StoreError::Backend(format!("the OS random source failed: {e}")))?;
        Ok(ChatterStore {
            pg,
            instance: tag.iter().map(|b| format!("{b:02x}")).collect(),
            listener: Arc::default(),
        })
    }

    /// This daemon's name among the others (12 hex digits).
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// The URL, without its password.
    pub fn url(&self) -> &str {
        self.pg.url()
    }

    async fn client(&self) -> Result<Pooled> {
        self.pg.client().await
    }

    fn err(&self) -> impl Fn(tokio_postgres::Error) -> StoreError + '_ {
        |e| pg_error(self.pg.url(), e)
    }

    async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let client = self.client().await?;
        client.execute(sql, params).await.map_err(self.err())
    }

    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        let client = self.client().await?;
        client.query(sql, params).await.map_err(self.err())
    }

    async fn query_opt(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>> {
        let client = self.client().await?;
        client.query_opt(sql, params).await.map_err(self.err())
    }

    fn say(&self, event: ChatterEvent) -> String {
        payload(&self.instance, event)
    }

    /// Starts listening (once per handle) and subscribes. Needs a tokio runtime.
    pub fn events(&self) -> ChatterEvents {
        let mut slot = self.listener.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert_with(|| {
            let instance = self.instance.clone();
            Listener::start(self.pg.config().clone(), CHATTER_CHANNEL, move |t| {
                read_payload(t, &instance)
            })
        })
        .subscribe()
    }

    // ---- history ----

    /// Stores a message durably and gives its id; a user message for an
    /// agent tells the others it is waiting.
    pub async fn append(&self, project: Option<&str>, m: Message) -> Result<i64> {
        let mut client = self.client().await?;
        let err = self.err();
        let tx = client.transaction().await.map_err(&err)?;
        let delivered = m.role == Role::Assistant;
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let id: i64 = tx
            .query_one(
                "INSERT INTO chatter_messages (project, session_id, role, content, context_id, agent_id, timestamp, delivered)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                &[&project, &m.session_id, &role, &m.content, &m.context_id, &m.agent_id, &m.timestamp, &delivered],
            )
            .await
            .map_err(&err)?
            .get(0);
        if let (false, Some(agent)) = (delivered, m.agent_id) {
            let said = self.say(ChatterEvent::Message { agent });
            notify(&tx, &said).await.map_err(&err)?;
        }
        tx.commit().await.map_err(&err)?;
        Ok(id)
    }

    /// Marks a user message as read by its agent.
    pub async fn mark_delivered(&self, id: i64) -> Result<()> {
        self.execute(
            "UPDATE chatter_messages SET delivered = TRUE WHERE id = $1",
            &[&id],
        )
        .await?;
        Ok(())
    }

    /// The user messages `agent_id` has not read yet, oldest first.
    pub async fn undelivered(&self, agent_id: &str) -> Result<Vec<Message>> {
        let rows = self.query(
                &format!("SELECT {MESSAGE_COLUMNS} FROM chatter_messages WHERE NOT delivered AND agent_id = $1 ORDER BY id"),
                &[&agent_id],
        )
        .await?;
        Ok(rows.iter().map(message_row).collect())
    }

    /// The last `limit` messages of a tab, oldest first.
    pub async fn recent(&self, session_id: &str, limit: usize) -> Result<Vec<Message>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
                &format!(
                    "SELECT {MESSAGE_COLUMNS} FROM
                       (SELECT * FROM chatter_messages WHERE session_id = $1 ORDER BY id DESC LIMIT $2) m
                     ORDER BY id"
                ),
                &[&session_id, &limit],
        )
        .await?;
        Ok(rows.iter().map(message_row).collect())
    }

    // ---- tabs and their projects ----

    /// Binds a tab to a project; the others hear it when that changes it.
    pub async fn bind(&self, session_id: &str, project: &str) -> Result<()> {
        let said = self.say(ChatterEvent::Bound {
            session: session_id.to_string(),
            project: project.to_string(),
        });
        self.execute(
            "WITH b AS (
                   INSERT INTO chatter_sessions (session_id, project) VALUES ($1, $2)
                   ON CONFLICT (session_id) DO UPDATE SET project = EXCLUDED.project
                   WHERE chatter_sessions.project IS DISTINCT FROM EXCLUDED.project
                   RETURNING session_id)
                 SELECT pg_notify($3, $4) FROM b",
            &[&session_id, &project, &CHATTER_CHANNEL, &said],
        )
        .await?;
        Ok(())
    }

    /// Every tab's project.
    pub async fn bindings(&self) -> Result<Vec<(String, String)>> {
        let rows = self
            .query(
                "SELECT session_id, project FROM chatter_sessions WHERE project IS NOT NULL",
                &[],
            )
            .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    // ---- picks ----

    /// Keeps a tab's pick (`record`, the daemon's own JSON) and tells the others.
    pub async fn put_context(
        &self,
        session_id: &str,
        context_id: &str,
        project: Option<&str>,
        record: &str,
        timestamp: i64,
    ) -> Result<()> {
        let said = self.say(ChatterEvent::Context {
            session: session_id.to_string(),
            project: project.map(str::to_string),
        });
        let mut client = self.client().await?;
        let err = self.err();
        let tx = client.transaction().await.map_err(&err)?;
        tx.execute(
            "INSERT INTO chatter_contexts (session_id, context_id, record, timestamp) VALUES ($1, $2, $3, $4)
             ON CONFLICT (session_id, context_id) DO UPDATE SET record = EXCLUDED.record, timestamp = EXCLUDED.timestamp",
            &[&session_id, &context_id, &record, &timestamp],
        )
        .await
        .map_err(&err)?;
        tx.execute(
            "DELETE FROM chatter_contexts WHERE session_id = $1 AND context_id NOT IN
               (SELECT context_id FROM chatter_contexts WHERE session_id = $1 ORDER BY timestamp DESC LIMIT $2)",
            &[&session_id, &CONTEXTS_KEPT],
        )
        .await
        .map_err(&err)?;
        notify(&tx, &said).await.map_err(&err)?;
        tx.commit().await.map_err(&err)
    }

    /// One pick of a tab, as `put_context` kept it.
    pub async fn context(&self, session_id: &str, context_id: &str) -> Result<Option<String>> {
        let row = self
            .query_opt(
                "SELECT record FROM chatter_contexts WHERE session_id = $1 AND context_id = $2",
                &[&session_id, &context_id],
            )
            .await?;
        Ok(row.map(|r| r.get(0)))
    }

    /// A tab's latest pick.
    pub async fn latest_context(&self, session_id: &str) -> Result<Option<String>> {
        let row = self.query_opt(
                "SELECT record FROM chatter_contexts WHERE session_id = $1 ORDER BY timestamp DESC LIMIT 1",
                &[&session_id],
        )
        .await?;
        Ok(row.map(|r| r.get(0)))
    }

    // ---- frames for tabs held elsewhere ----

    /// Queues a frame for a tab under its next `seq` and tells whoever
    /// holds the tab. `durable`: still worth sending to a tab that connects
    /// later (an answer), or only now (a status).
    pub async fn push_frame(&self, session_id: &str, frame: &str, durable: bool) -> Result<i64> {
        let mut client = self.client().await?;
        let err = self.err();
        let tx = client.transaction().await.map_err(&err)?;
        // The row lock serialises pushes to one tab: seq order is commit order.
        let seq: i64 = tx
            .query_one(
                "INSERT INTO chatter_sessions (session_id, next_seq) VALUES ($1, 1)
                 ON CONFLICT (session_id) DO UPDATE SET next_seq = chatter_sessions.next_seq + 1
                 RETURNING next_seq",
                &[&session_id],
            )
            .await
            .map_err(&err)?
            .get(0);
        tx.execute(
            "INSERT INTO chatter_frames (session_id, seq, frame, durable, created_at) VALUES ($1, $2, $3, $4, $5)",
            &[&session_id, &seq, &frame, &durable, &now_ms()],
        )
        .await
        .map_err(&err)?;
        tx.execute(
            "DELETE FROM chatter_frames WHERE session_id = $1 AND seq <= $2",
            &[&session_id, &(seq - FRAMES_KEPT)],
        )
        .await
        .map_err(&err)?;
        let said = self.say(ChatterEvent::Frame {
            session: session_id.to_string(),
            seq,
        });
        notify(&tx, &said).await.map_err(&err)?;
        tx.commit().await.map_err(&err)?;
        Ok(seq)
    }

    /// A tab's frames after `seq`, in order: `(seq, frame, durable)`.
    pub async fn frames_after(
        &self,
        session_id: &str,
        seq: i64,
    ) -> Result<Vec<(i64, String, bool)>> {
        let rows = self.query(
                "SELECT seq, frame, durable FROM chatter_frames WHERE session_id = $1 AND seq > $2 ORDER BY seq",
                &[&session_id, &seq],
        )
        .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    /// Forgets a tab's frames up to `seq` (they reached it).
    pub async fn drop_frames(&self, session_id: &str, seq: i64) -> Result<()> {
        self.execute(
            "DELETE FROM chatter_frames WHERE session_id = $1 AND seq <= $2",
            &[&session_id, &seq],
        )
        .await?;
        Ok(())
    }

    // ---- presence ----

    /// This daemon holds a tab or an agent now; agents are announced.
    pub async fn present(
        &self,
        kind: Presence,
        id: &str,
        project: Option<&str>,
        client_name: Option<&str>,
    ) -> Result<()> {
        self.execute(
                "INSERT INTO chatter_presence (kind, id, instance, project, client, seen_at) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (kind, id, instance) DO UPDATE SET project = EXCLUDED.project, client = EXCLUDED.client, seen_at = EXCLUDED.seen_at",
                &[&kind.as_str(), &id, &self.instance, &project, &client_name, &now_ms()],
        )
        .await?;
        if kind == Presence::Agent {
            self.announce().await?;
        }
        Ok(())
    }

    /// This daemon no longer holds the tab or agent.
    pub async fn absent(&self, kind: Presence, id: &str) -> Result<()> {
        self.execute(
            "DELETE FROM chatter_presence WHERE kind = $1 AND id = $2 AND instance = $3",
            &[&kind.as_str(), &id, &self.instance],
        )
        .await?;
        if kind == Presence::Agent {
            self.announce().await?;
        }
        Ok(())
    }

    async fn announce(&self) -> Result<()> {
        let said = self.say(ChatterEvent::Presence);
        self.execute("SELECT pg_notify($1, $2)", &[&CHATTER_CHANNEL, &said])
            .await
            .map(|_| ())
    }

    /// Renews this daemon's presence rows; run every [`HEARTBEAT`].
    pub async fn heartbeat(&self) -> Result<()> {
        self.execute(
            "UPDATE chatter_presence SET seen_at = $2 WHERE instance = $1",
            &[&self.instance, &now_ms()],
        )
        .await?;
        Ok(())
    }

    /// Forgets everything this daemon held (it is stopping).
    pub async fn leave(&self) -> Result<()> {
        self.execute(
            "DELETE FROM chatter_presence WHERE instance = $1",
            &[&self.instance],
        )
        .await?;
        self.announce().await
    }

    fn lease_start() -> i64 {
        now_ms() - PRESENCE_LEASE.as_millis() as i64
    }

    /// The agents other live daemons hold, by id.
    pub async fn agents_elsewhere(&self) -> Result<Vec<PresentAgent>> {
        let rows = self.query(
                "SELECT id, COALESCE(project, ''), COALESCE(client, ''), instance FROM chatter_presence
                 WHERE kind = 'agent' AND instance <> $1 AND seen_at > $2 ORDER BY id, instance",
                &[&self.instance, &Self::lease_start()],
        )
        .await?;
        Ok(rows
            .iter()
            .map(|r| PresentAgent {
                agent_id: r.get(0),
                project: r.get(1),
                client: r.get(2),
                instance: r.get(3),
            })
            .collect())
    }

    /// Which of `sessions` another live daemon holds.
    pub async fn tabs_elsewhere(&self, sessions: &[String]) -> Result<Vec<String>> {
        let rows = self
            .query(
                "SELECT DISTINCT id FROM chatter_presence
                 WHERE kind = 'tab' AND instance <> $1 AND seen_at > $2 AND id = ANY($3)",
                &[&self.instance, &Self::lease_start(), &sessions],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    // ---- answers to requests made elsewhere ----

    /// Keeps a tab's answer for the daemon that asked, and tells it.
    pub async fn put_reply(
        &self,
        request_id: &str,
        instance: &str,
        session_id: &str,
        reply: &str,
    ) -> Result<()> {
        let said = self.say(ChatterEvent::Reply {
            request: request_id.to_string(),
            instance: instance.to_string(),
        });
        let mut client = self.client().await?;
        let err = self.err();
        let tx = client.transaction().await.map_err(&err)?;
        tx.execute(
            "INSERT INTO chatter_replies (request_id, session_id, reply, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (request_id) DO NOTHING",
            &[&request_id, &session_id, &reply, &now_ms()],
        )
        .await
        .map_err(&err)?;
        notify(&tx, &said).await.map_err(&err)?;
        tx.commit().await.map_err(&err)
    }

    /// Takes (and removes) the answer to a request: `(session, reply)`.
    pub async fn take_reply(&self, request_id: &str) -> Result<Option<(String, String)>> {
        let row = self
            .query_opt(
                "DELETE FROM chatter_replies WHERE request_id = $1 RETURNING session_id, reply",
                &[&request_id],
            )
            .await?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_back_and_know_their_sender() {
        let said = payload(
            "aaaa",
            ChatterEvent::Frame {
                session: "s".into(),
                seq: 3,
            },
        );
        assert_eq!(
            read_payload(&said, "aaaa"),
            Some(Heard::Event {
                own: true,
                event: ChatterEvent::Frame {
                    session: "s".into(),
                    seq: 3
                }
            })
        );
        assert!(matches!(
            read_payload(&said, "bbbb"),
            Some(Heard::Event { own: false, .. })
        ));
        for bad in ["", "{}", "{\"o\":\"a\",\"k\":\"nope\"}", "not json"] {
            assert_eq!(read_payload(bad, "a"), None, "{bad:?}");
        }
    }
}
