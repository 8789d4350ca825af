//! The conversation as the loop sees it, the same for every provider. Each
//! provider module turns it into its own wire format and back.

use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One part of a message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
    },
    /// A tool call. `arguments` is the JSON text exactly as the model wrote
    /// it: it may not parse, and the loop says so to the model.
    ToolUse {
        id: String,
        name: String,
        arguments: String,
    },
    ToolResult {
        id: String,
        content: String,
        is_error: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: vec![Block::Text { text: text.into() }],
        }
    }
}

/// A tool the model may call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the tool's arguments (an object schema).
    pub schema: Value,
}

/// Whether the model may answer in text or must call a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    /// This tool, and no text answer.
    Tool(String),
}

/// Token counts as the provider reported them for one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
    }
}

/// A retry the provider client made before the call succeeded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Retry {
    /// The HTTP status that was retried, or `None` for a dropped connection
    /// or a stream that broke off.
    pub status: Option<u16>,
    /// How long the client waited, from the server's `retry-after` when it
    /// sent one, else the backoff.
    pub waited_ms: u64,
    /// The wait came from the server's `retry-after` (or `retry-after-ms`).
    pub from_header: bool,
}

/// The model's answer to one call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub blocks: Vec<Block>,
    /// The provider's own words for why it stopped (`tool_use`, `tool_calls`, `end_turn`, …).
    pub stop_reason: Option<String>,
    pub usage: Usage,
    /// Retries made on the way to this reply.
    pub retries: Vec<Retry>,
}

impl Reply {
    /// The tool calls in order: (id, name, arguments).
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.blocks.iter().filter_map(|b| match b {
            Block::ToolUse {
                id,
                name,
                arguments,
            } => Some((id.as_str(), name.as_str(), arguments.as_str())),
            _ => None,
        })
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.blocks {
            if let Block::Text { text } = b {
                out.push_str(text);
            }
        }
        out
    }
}
