//! The browser's native messaging host: how the extension pairs itself.
//!
//! Chromium starts the host (the webfold binary, named in a manifest that
//! `webfold install-host` writes) for the extension, passes one message on
//! stdin and reads one answer on stdout, each a native-endian `u32` length
//! then JSON. The host makes sure the daemon runs and answers with what
//! `webfold pair` prints, so no one copies a token by hand.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The name the browser knows the host by (its manifest's `name`).
pub const HOST_NAME: &str = "dev.webfold.host";

/// Largest message either side sends (Chromium's own limit to a host is 4 GB;
/// ours is what a request can need).
pub const MAX_HOST_MESSAGE_BYTES: u32 = 64 * 1024;

/// What the extension asks the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum HostRequest {
    /// Start the daemon if it is down; answer with the pairing.
    Pair,
}

/// The host's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum HostReply {
    /// The daemon runs; connect with this.
    Paired(Pairing),
    /// Why not, for the user.
    Error(HostError),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostError {
    pub message: String,
}

/// What the extension needs to connect to the daemon: what `webfold pair
/// --json` prints, and the host's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Pairing {
    /// `ws://127.0.0.1:PORT/ws`; the tab's session goes in the query.
    pub ws_url: String,
    /// The query parameter naming the tab's session.
    pub session_param: String,
    /// 64 lowercase hex characters.
    pub token: String,
    /// How the token travels: `subprotocol`.
    pub auth: String,
    /// The WebSocket subprotocol carrying the token.
    pub subprotocol: String,
    /// The extension's own origin.
    pub origin: String,
    /// Every extension origin the daemon admits.
    pub origins: Vec<String>,
    /// Whether a daemon answered when this was made.
    pub daemon_running: bool,
}
