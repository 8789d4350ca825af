//! webfold-chatter-client: the agents' side of the chatter daemon, for
//! `webfold mcp` and the CLI. A crate of its own so that an MCP server links
//! a socket client and the protocol's types, not the daemon (its hub,
//! cluster, built-in agent and store).
//!
//! - [`client`]: [`client::Connection`] (typed calls multiplexed by id on
//!   the daemon's unix socket), [`client::AgentLink`] (an agent process's
//!   link, re-announced after a daemon restart), the daemon started on
//!   demand.
//! - [`home`]: the per-user directory the daemon and its clients share.

pub mod client;
pub mod home;

use std::path::Path;

/// What can go wrong reaching the daemon; each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Setup(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("the webfold daemon is not reachable: {0}")]
    Unreachable(String),
}

impl ClientError {
    pub fn io(path: &Path, source: std::io::Error) -> ClientError {
        ClientError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
