//! OpenAI-compatible Chat Completions: the request body, the whole reply,
//! and the streamed reply's chunks.

use serde_json::{Value, json};

use super::http::{Fail, Step};
use super::{ChatRequest, ProviderConfig, count, str_at};
use crate::error::ProviderError;
use crate::message::{Block, Reply, Role, ToolChoice, Usage};
use crate::sse::Event;

pub(super) fn body(cfg: &ProviderConfig, req: &ChatRequest<'_>) -> Value {
    let mut messages = vec![json!({"role": "system", "content": req.system})];
    for m in req.messages {
        push_message(&mut messages, m.role, &m.content);
    }
    let tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.schema
            }})
        })
        .collect();
    let choice = match req.choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    };
    let mut b = json!({
        "model": cfg.model,
        "messages": messages,
        "tools": tools,
        "tool_choice": choice,
        "max_tokens": cfg.max_output_tokens,
    });
    if cfg.stream {
        b["stream"] = Value::Bool(true);
        // Without this the stream carries no token counts.
        b["stream_options"] = json!({"include_usage": true});
    }
    b
}

/// One loop message as Chat Completions messages: tool results are
/// messages of their own (`role: tool`), text beside them a user message.
fn push_message(out: &mut Vec<Value>, role: Role, content: &[Block]) {
    match role {
        Role::Assistant => {
            let text: String = content
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            let calls: Vec<Value> = content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse {
                        id,
                        name,
                        arguments,
                    } => Some(json!({"id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments}})),
                    _ => None,
                })
                .collect();
            let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
            if !calls.is_empty() {
                m["tool_calls"] = Value::Array(calls);
            }
            out.push(m);
        }
        Role::User => {
            let mut text = String::new();
            for b in content {
                match b {
                    Block::ToolResult {
                        id,
                        content,
                        is_error,
                    } => {
                        // No error flag in this format: the words say it.
                        let content = if *is_error {
                            format!("Error: {content}")
                        } else {
                            content.clone()
                        };
                        out.push(json!({"role": "tool", "tool_call_id": id, "content": content}));
                    }
                    Block::Text { text: t } => {
                        if !text.is_empty() {
                            text.push_str("\n\n");
                        }
                        text.push_str(t);
                    }
                    Block::ToolUse { .. } => {}
                }
            }
            if !text.is_empty() {
                out.push(json!({"role": "user", "content": text}));
            }
        }
    }
}

pub(super) fn parse(v: &Value) -> Result<Reply, String> {
    let choice = v.pointer("/choices/0").ok_or("no 'choices' in the reply")?;
    let msg = choice
        .get("message")
        .ok_or("no 'message' in the reply's choice")?;
    let mut blocks = Vec::new();
    if let Some(t) = msg.get("content").and_then(Value::as_str)
        && !t.is_empty()
    {
        blocks.push(Block::Text {
            text: t.to_string(),
        });
    }
    for c in msg
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        blocks.push(Block::ToolUse {
            id: str_at(c, "/id"),
            name: str_at(c, "/function/name"),
            arguments: arguments_of(c.pointer("/function/arguments")),
        });
    }
    Ok(Reply {
        blocks,
        stop_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        usage: usage(v.get("usage")),
        retries: Vec::new(),
    })
}

/// Arguments are a JSON string in this format; some servers send an object.
fn arguments_of(a: Option<&Value>) -> String {
    match a {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn usage(u: Option<&Value>) -> Usage {
    let n = |k: &str| count(u, k);
    Usage {
        input_tokens: n("prompt_tokens"),
        output_tokens: n("completion_tokens"),
    }
}

/// A tool call being streamed, by its index.
struct Call {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

#[derive(Default)]
pub(super) struct Stream {
    text: String,
    calls: Vec<Call>,
    finish_reason: Option<String>,
    usage: Usage,
    done: bool,
}

impl Stream {
    pub(super) fn event(&mut self, ev: &Event) -> Result<Step, Fail> {
        if ev.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Step::Done);
        }
        let v: Value = serde_json::from_str(&ev.data).map_err(|e| {
            Fail::Fatal(ProviderError::BadReply {
                kind: super::ProviderKind::OpenAi,
                reason: format!("a stream chunk is not JSON ({e})"),
            })
        })?;
        if let Some(err) = v.get("error") {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("an error in the stream")
                .to_string();
            return Err(Fail::Retry {
                status: None,
                after: None,
                message,
            });
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = usage(Some(u));
        }
        for choice in v
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let d = choice.get("delta").unwrap_or(&Value::Null);
            if let Some(t) = d.get("content").and_then(Value::as_str) {
                self.text.push_str(t);
            }
            for c in d
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = c
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(self.calls.len() as u64);
                let pos = match self.calls.iter().position(|k| k.index == index) {
                    Some(p) => p,
                    None => {
                        self.calls.push(Call {
                            index,
                            id: String::new(),
                            name: String::new(),
                            arguments: String::new(),
                        });
                        self.calls.len() - 1
                    }
                };
                let call = &mut self.calls[pos];
                if let Some(id) = c.get("id").and_then(Value::as_str) {
                    call.id = id.to_string();
                }
                if let Some(n) = c.pointer("/function/name").and_then(Value::as_str) {
                    call.name.push_str(n);
                }
                call.arguments
                    .push_str(&arguments_of(c.pointer("/function/arguments")));
            }
            if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(r.to_string());
            }
        }
        Ok(Step::More)
    }

    pub(super) fn finish(self) -> Result<Reply, String> {
        if !self.done && self.finish_reason.is_none() {
            return Err("the stream ended before the reply did".into());
        }
        let mut blocks = Vec::new();
        if !self.text.is_empty() {
            blocks.push(Block::Text { text: self.text });
        }
        for c in self.calls {
            blocks.push(Block::ToolUse {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            });
        }
        Ok(Reply {
            blocks,
            stop_reason: self.finish_reason,
            usage: self.usage,
            retries: Vec::new(),
        })
    }
}
