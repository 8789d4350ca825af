//! Anthropic's Messages API: the request body, the whole reply, and the
//! streamed reply's events.

use serde_json::{Map, Value, json};

use super::http::{Fail, Step};
use super::{ChatRequest, ProviderConfig, count, str_at};
use crate::error::ProviderError;
use crate::message::{Block, Message, Reply, Role, ToolChoice, Usage};
use crate::sse::Event;

pub(super) fn body(cfg: &ProviderConfig, req: &ChatRequest<'_>) -> Value {
    let tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
        .collect();
    let choice = match req.choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    };
    let mut b = json!({
        "model": cfg.model,
        "max_tokens": cfg.max_output_tokens,
        "system": req.system,
        "messages": req.messages.iter().map(message).collect::<Vec<_>>(),
        "tools": tools,
        "tool_choice": choice,
    });
    if cfg.stream {
        b["stream"] = Value::Bool(true);
    }
    b
}

fn message(m: &Message) -> Value {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content: Vec<Value> = m
        .content
        .iter()
        // The API refuses empty text blocks, and a stream can open one
        // that never gets a delta.
        .filter(|b| !matches!(b, Block::Text { text } if text.is_empty()))
        .map(|b| match b {
            Block::Text { text } => json!({"type": "text", "text": text}),
            Block::ToolUse {
                id,
                name,
                arguments,
            } => {
                // The API takes the input as an object; arguments that did
                // not parse go back empty (the tool result says why).
                let input = serde_json::from_str::<Value>(arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::Object(Map::new()));
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            Block::ToolResult {
                id,
                content,
                is_error,
            } => {
                let mut r = json!({"type": "tool_result", "tool_use_id": id, "content": content});
                if *is_error {
                    r["is_error"] = Value::Bool(true);
                }
                r
            }
        })
        .collect();
    json!({"role": role, "content": content})
}

pub(super) fn parse(v: &Value) -> Result<Reply, String> {
    let content = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no 'content' list in the reply")?;
    let mut blocks = Vec::new();
    for c in content {
        match c.get("type").and_then(Value::as_str) {
            Some("text") => blocks.push(Block::Text {
                text: str_at(c, "/text"),
            }),
            Some("tool_use") => blocks.push(Block::ToolUse {
                id: str_at(c, "/id"),
                name: str_at(c, "/name"),
                arguments: c.get("input").map_or_else(|| "{}".into(), Value::to_string),
            }),
            _ => {} // thinking and other blocks are not the loop's business
        }
    }
    Ok(Reply {
        blocks,
        stop_reason: v
            .get("stop_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        usage: usage(v.get("usage")),
        retries: Vec::new(),
    })
}

fn usage(u: Option<&Value>) -> Usage {
    let n = |k: &str| count(u, k);
    // Cached prompt tokens are input the model read too.
    Usage {
        input_tokens: n("input_tokens")
            + n("cache_creation_input_tokens")
            + n("cache_read_input_tokens"),
        output_tokens: n("output_tokens"),
    }
}

/// A block being streamed.
enum Open {
    Text(String),
    Tool {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

/// An `error` event: a request the API refuses is final, anything else
/// (overloaded, say) is worth another try.
fn stream_error(v: &Value) -> Fail {
    let t = v
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let msg = v
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("an error in the stream")
        .to_string();
    if t == "invalid_request_error" {
        Fail::Fatal(ProviderError::Status {
            kind: super::ProviderKind::Anthropic,
            status: 400,
            message: msg,
        })
    } else {
        Fail::Retry {
            status: None,
            after: None,
            message: msg,
        }
    }
}

/// The streamed reply, gathered event by event.
#[derive(Default)]
pub(super) struct Stream {
    blocks: Vec<(usize, Open)>,
    stop_reason: Option<String>,
    usage: Usage,
    stopped: bool,
}

impl Stream {
    pub(super) fn event(&mut self, ev: &Event) -> Result<Step, Fail> {
        let bad = |reason: String| {
            Fail::Fatal(ProviderError::BadReply {
                kind: super::ProviderKind::Anthropic,
                reason,
            })
        };
        let v: Value = serde_json::from_str(&ev.data)
            .map_err(|e| bad(format!("a stream event is not JSON ({e})")))?;
        let kind = ev
            .name
            .as_deref()
            .or_else(|| v.get("type").and_then(Value::as_str))
            .unwrap_or("");
        match kind {
            "message_start" => {
                let u = usage(v.pointer("/message/usage"));
                self.usage = u;
            }
            "content_block_start" => self.block_start(&v),
            "content_block_delta" => self.block_delta(&v).map_err(bad)?,
            "message_delta" => self.message_delta(&v),
            "message_stop" => {
                self.stopped = true;
                return Ok(Step::Done);
            }
            "error" => return Err(stream_error(&v)),
            _ => {} // ping, content_block_stop, new event kinds
        }
        Ok(Step::More)
    }

    /// A content block opens: text, a tool call, or a kind we keep nothing of.
    fn block_start(&mut self, v: &Value) {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let b = v.get("content_block").unwrap_or(&Value::Null);
        let open = match b.get("type").and_then(Value::as_str) {
            Some("text") => Open::Text(str_at(b, "/text")),
            Some("tool_use") => Open::Tool {
                id: str_at(b, "/id"),
                name: str_at(b, "/name"),
                json: String::new(),
            },
            _ => Open::Other,
        };
        self.blocks.push((index, open));
    }

    /// More text, or more of a tool call's JSON, for an open block.
    fn block_delta(&mut self, v: &Value) -> Result<(), String> {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let Some((_, open)) = self.blocks.iter_mut().rev().find(|(i, _)| *i == index) else {
            return Err(format!("a delta for block {index}, which never started"));
        };
        let d = v.get("delta").unwrap_or(&Value::Null);
        match (open, d.get("type").and_then(Value::as_str)) {
            (Open::Text(t), Some("text_delta")) => t.push_str(&str_at(d, "/text")),
            (Open::Tool { json, .. }, Some("input_json_delta")) => {
                json.push_str(&str_at(d, "/partial_json"))
            }
            _ => {}
        }
        Ok(())
    }

    /// The stop reason and the usage so far.
    fn message_delta(&mut self, v: &Value) {
        if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
            self.stop_reason = Some(r.to_string());
        }
        if let Some(out) = v.pointer("/usage/output_tokens").and_then(Value::as_u64) {
            self.usage.output_tokens = out;
        }
        if let Some(inp) = v.pointer("/usage/input_tokens").and_then(Value::as_u64) {
            self.usage.input_tokens = self.usage.input_tokens.max(inp);
        }
    }

    pub(super) fn finish(self) -> Result<Reply, String> {
        if !self.stopped && self.stop_reason.is_none() {
            return Err("the stream ended before the reply did".into());
        }
        let blocks = self
            .blocks
            .into_iter()
            .filter_map(|(_, open)| match open {
                Open::Text(text) => Some(Block::Text { text }),
                Open::Tool { id, name, json } => Some(Block::ToolUse {
                    id,
                    name,
                    // A tool with no arguments streams no deltas.
                    arguments: if json.is_empty() { "{}".into() } else { json },
                }),
                Open::Other => None,
            })
            .collect();
        Ok(Reply {
            blocks,
            stop_reason: self.stop_reason,
            usage: self.usage,
            retries: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_left_out_and_broken_input_sent_empty() {
        let m = Message {
            role: Role::Assistant,
            content: vec![
                Block::Text {
                    text: String::new(),
                },
                Block::ToolUse {
                    id: "t".into(),
                    name: "get_html_chunk".into(),
                    arguments: "{\"selector\": ".into(),
                },
            ],
        };
        assert_eq!(
            message(&m),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t", "name": "get_html_chunk", "input": {}}
            ]})
        );
    }
}
