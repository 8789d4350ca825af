//! What other processes changed: refreshes and deletions, heard as they commit.
//!
//! On PostgreSQL every refresh and deletion sends a notification in its own
//! transaction (`pg_notify`), so it is delivered only if, and once, the change
//! commits, in commit order. Each store keeps one listening connection and
//! hands what it hears to every [`Changes`] subscriber. Notifications sent
//! while that connection was down are lost; the subscriber is told with
//! [`Change::Missed`], so whoever caches what the database holds knows to
//! check again.

use tokio::sync::{broadcast, watch};

use crate::ConversationId;

/// One change to the stored conversations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// `version` became the conversation's latest page.
    Refreshed { id: ConversationId, version: u32 },
    /// The conversation and all its versions are gone.
    Deleted { id: ConversationId },
    /// Changes may have been missed (the listening connection was lost, or
    /// this subscriber fell too far behind): anything cached may be stale.
    Missed,
}

/// An event that can say "some were lost": what a subscriber is given when
/// it fell behind.
pub trait Lossy: Clone {
    fn missed() -> Self;
}

impl Lossy for Change {
    fn missed() -> Self {
        Change::Missed
    }
}

/// A subscription to what a listening connection hears, in commit order.
pub struct Subscription<E> {
    pub(crate) events: broadcast::Receiver<E>,
    pub(crate) listening: watch::Receiver<bool>,
}

/// A subscription to [`Change`]s.
pub type Changes = Subscription<Change>;

impl<E: Lossy> Subscription<E> {
    /// The next event; `None` once the store is gone.
    pub async fn next(&mut self) -> Option<E> {
        match self.events.recv().await {
            Ok(event) => Some(event),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(E::missed()),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }

    /// Whether the listening connection is up now.
    pub fn is_listening(&self) -> bool {
        *self.listening.borrow()
    }

    /// Waits until the listening connection is up: events committed after
    /// this returns are heard. `false` if `timeout` passed first.
    pub async fn wait_listening(&mut self, timeout: std::time::Duration) -> bool {
        tokio::time::timeout(timeout, self.listening.wait_for(|up| *up))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// A watch of the listening state, for health reports.
    pub fn listening(&self) -> watch::Receiver<bool> {
        self.listening.clone()
    }
}
