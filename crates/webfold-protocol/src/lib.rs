//! webfold-protocol: every message of the chatter as a Rust type.
//!
//! ```text
//! extension ──ws (ClientFrame / ServerFrame)──▶ daemon ◀──agent socket (AgentRequest / Call::Answer)── webfold mcp, CLI
//! ```
//!
//! - [`ws`]: the WebSocket frames both ways (strict, versioned); their JSON
//!   Schema ([`ws::json_schema`]) is checked in at
//!   `schema/daemon-protocol.schema.json`, and the extension's TypeScript
//!   types are generated from it ([`ts::declarations`]).
//! - [`agent`]: the agent socket's requests and answers.
//! - [`pick`]: the pick, one type for the frame, the daemon's files and
//!   the agents' context.
//! - [`native`]: the browser's native messaging host (the extension pairs
//!   itself through it).
//!
//! The invariant: nothing reads protocol JSON by string keys; each side
//! parses into these types and reads fields.

pub mod agent;
pub mod native;
pub mod pick;
pub mod ts;
pub mod ws;

pub use pick::*;
pub use ws::*;
