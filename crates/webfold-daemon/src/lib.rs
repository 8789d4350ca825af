//! webfold-daemon: the UI chatter daemon. A user points at an element in the
//! browser and writes; a coding agent (Claude Code, Cursor, …) reads the
//! selection through webfold's MCP tools and answers into the browser.
//!
//! ```text
//! extension ──WebSocket (loopback, Origin + token)──▶ daemon ◀──unix socket (0600)── webfold mcp ◀─stdio─ agent
//! ```
//!
//! - `webfold_protocol`: every frame and agent-socket message, as types
//!   (strict, versioned, JSON Schema and the extension's TypeScript generated).
//! - [`auth`]: Host, Origin and token checks; the extension's fixed id.
//! - [`hub`]: tabs, agents and routing: a message reaches exactly one agent,
//!   an answer exactly the tab it answers; what is on other daemons is
//!   reached through a [`hub::Transport`]: [`hub::Local`] alone, or with
//!   `--db postgres://…` the daemons sharing that database ([`hub::Cluster`]).
//! - [`ws`] and [`ipc`]: the two listeners; `webfold_chatter_client` is how
//!   `webfold mcp` and the CLI reach the daemon (starting it when absent),
//!   and keeps the [`home`] they share.
//! - [`registry`], [`project`], [`home`]: what is kept on disk, private to the user.
//! - [`builtin`]: the daemon's own agent (with a model provider): a
//!   side-panel message answered by webfold-agent's loop, chunks read from
//!   the tab's live DOM.
//! - [`page_view`]: the side panel's views (CNT, outline with tokens) of a
//!   tab's captured page, made by the core as an agent's tools make them.
//! - [`daemon`]: one daemon per user, run in the foreground.

pub mod auth;
pub mod builtin;
pub mod daemon;
pub mod hub;
pub mod ipc;
pub mod page_view;
pub mod project;
pub mod registry;
pub mod ws;

pub use webfold_chatter_client::home;

use std::path::Path;

/// What can go wrong; each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{0}")]
    Setup(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Store(String),
    #[error(
        "another webfold daemon is running{0}; `webfold doctor` shows it, or stop it before starting one here"
    )]
    AlreadyRunning(String),
    #[error("the webfold daemon is not reachable: {0}")]
    Unreachable(String),
}

impl From<webfold_chatter_client::ClientError> for DaemonError {
    fn from(e: webfold_chatter_client::ClientError) -> DaemonError {
        use webfold_chatter_client::ClientError;
        match e {
            ClientError::Setup(why) => DaemonError::Setup(why),
            ClientError::Io { path, source } => DaemonError::Io { path, source },
            ClientError::Unreachable(why) => DaemonError::Unreachable(why),
        }
    }
}

impl DaemonError {
    pub fn io(path: &Path, source: std::io::Error) -> DaemonError {
        DaemonError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub fn store(e: webfold_store::StoreError) -> DaemonError {
        DaemonError::Store(e.to_string())
    }
}
