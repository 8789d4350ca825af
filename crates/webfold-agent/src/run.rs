//! seed 000's loop for API providers.
//!
//! Chunked mode: the system prompt carries a view of the page; the model
//! reads parts with `get_html_chunk` and answers with the final tool, within
//! `max_iterations` calls. An answer that breaks the final tool's schema
//! gets one corrective turn (an extra call, even past the cap). When the loop
//! ends without a valid answer (no tool call, the cap, a second invalid
//! answer, a view that cannot be built) one full-HTML call takes over, and
//! [`Outcome::fallback`] says why. Provider errors (a refused key, a server
//! that stays busy, a timeout, cancellation) end the run instead: the full
//! HTML would meet the same server.

use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::error::AgentError;
use crate::message::{Block, Message, Reply, Retry, Role, ToolChoice, ToolSpec, Usage};
use crate::page::{AgentView, CHUNK_TOOL, PageContext};
use crate::prompts;
use crate::provider::{ChatRequest, Model};
use crate::schema;
use crate::source::{self, PageSource};

/// seed 000's default iteration cap.
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;

/// The tool the model answers with.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalTool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the answer (an object schema).
    pub schema: Value,
}

impl Default for FinalTool {
    /// seed 000's `dom_changes_generator`: `{domChanges, response, action}`.
    fn default() -> Self {
        FinalTool {
            name: "dom_changes_generator".into(),
            description: prompts::FINAL_TOOL.trim().into(),
            // A constant checked by a test, so this cannot fail.
            schema: serde_json::from_str(prompts::DOM_CHANGES_SCHEMA).unwrap_or(Value::Null),
        }
    }
}

impl FinalTool {
    /// A final tool for the caller's schema: named by the schema's `title`
    /// when that is a valid tool name, described by its `description`.
    pub fn from_schema(schema: Value) -> Result<FinalTool, AgentError> {
        schema::check_schema(&schema).map_err(AgentError::Schema)?;
        let name = schema
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| {
                !t.is_empty()
                    && t.len() <= 64
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    && t != &CHUNK_TOOL
            })
            .unwrap_or("final_answer")
            .to_string();
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .map_or_else(|| prompts::FINAL_TOOL.trim().to_string(), str::to_string);
        Ok(FinalTool {
            name,
            description,
            schema,
        })
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            schema: self.schema.clone(),
        }
    }
}

/// How a run goes.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentOptions {
    /// The view the system prompt carries (the outline by default).
    pub view: AgentView,
    /// The view's token budget (the core's default when `None`).
    pub view_max_tokens: Option<usize>,
    /// Model calls in chunked mode, corrective turn aside.
    pub max_iterations: u32,
    /// seed 000's `useChunkedHTML`: off sends the full HTML at once.
    pub chunking: bool,
    pub final_tool: FinalTool,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            view: AgentView::default(),
            view_max_tokens: None,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            chunking: true,
            final_tool: FinalTool::default(),
        }
    }
}

/// Which prompt the answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A view in the prompt, chunks on demand.
    Chunked,
    /// The full HTML in the prompt.
    FullHtml,
}

/// One model call, as the transcript keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Call {
    pub mode: Mode,
    /// The provider's own token counts for this call.
    pub usage: Usage,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retries: Vec<Retry>,
    /// The tools the model called, with their arguments as written.
    pub tool_calls: Vec<ToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    pub name: String,
    pub arguments: String,
    /// What went wrong with the call, as the model was told.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a run gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The final tool's input, valid against its schema.
    pub output: Value,
    pub mode: Mode,
    /// Model calls made, in both modes.
    pub iterations: u32,
    /// Why the chunked loop gave way to the full HTML (`None` when it did not,
    /// or when chunking was off).
    pub fallback: Option<String>,
    /// An answer failed the schema and the corrective turn was used.
    pub corrected: bool,
    /// Tokens over every call.
    pub usage: Usage,
    pub calls: Vec<Call>,
    pub prompt_version: &'static str,
}

/// Runs `task` on `page` with `model`.
pub async fn run<M: Model>(
    model: &M,
    page: &PageContext,
    task: &str,
    opts: &AgentOptions,
    cancel: &CancellationToken,
) -> Result<Outcome, AgentError> {
    run_live(model, page, page, task, opts, cancel).await
}

/// As [`run`], with `get_html_chunk` answered from what `source` says the
/// page is now (a browser tab's live DOM); `page` makes the prompt.
pub async fn run_live<M: Model, S: PageSource>(
    model: &M,
    page: &PageContext,
    source: &S,
    task: &str,
    opts: &AgentOptions,
    cancel: &CancellationToken,
) -> Result<Outcome, AgentError> {
    schema::check_schema(&opts.final_tool.schema).map_err(AgentError::Schema)?;
    let mut log = Log::default();
    let fallback = if opts.chunking {
        match system_prompt(page, opts) {
            Ok(system) => {
                let mut conv = Conversation::new(
                    system,
                    vec![PageContext::chunk_tool(), opts.final_tool.spec()],
                    ToolChoice::Auto,
                    task,
                    Mode::Chunked,
                );
                match conv
                    .run(
                        model,
                        (page, source),
                        opts,
                        opts.max_iterations.max(1),
                        &mut log,
                        cancel,
                    )
                    .await?
                {
                    Ok(output) => return Ok(log.outcome(output, Mode::Chunked, None)),
                    Err(reason) => Some(reason),
                }
            }
            Err(e) => Some(format!(
                "the {} view could not be built: {e}",
                opts.view.name()
            )),
        }
    } else {
        None
    };
    let system = prompts::fill(
        prompts::SYSTEM_FULL_HTML,
        &[
            ("final_tool", &opts.final_tool.name),
            ("html", &webfold_core::contract::fence::defuse(page.html())),
        ],
    );
    let mut conv = Conversation::new(
        system,
        vec![opts.final_tool.spec()],
        ToolChoice::Tool(opts.final_tool.name.clone()),
        task,
        Mode::FullHtml,
    );
    match conv
        .run(model, (page, page), opts, 1, &mut log, cancel)
        .await?
    {
        Ok(output) => Ok(log.outcome(output, Mode::FullHtml, fallback)),
        Err(reason) => Err(AgentError::NoAnswer(match fallback {
            Some(first) => format!("{first}; then, with the full HTML, {reason}"),
            None => reason,
        })),
    }
}

/// The chunked mode's system prompt: instructions and the fenced view.
pub fn system_prompt(
    page: &PageContext,
    opts: &AgentOptions,
) -> Result<String, webfold_core::Error> {
    let view = page.view(opts.view, opts.view_max_tokens)?;
    Ok(prompts::fill(
        prompts::SYSTEM,
        &[
            ("view_name", opts.view.article()),
            ("view_guide", opts.view.reading().trim()),
            ("final_tool", &opts.final_tool.name),
            ("max_iterations", &opts.max_iterations.max(1).to_string()),
            (
                "view",
                &webfold_core::contract::fence::defuse(view.trim_end()),
            ),
        ],
    ))
}

#[derive(Default)]
struct Log {
    calls: Vec<Call>,
    corrected: bool,
}

impl Log {
    fn outcome(self, output: Value, mode: Mode, fallback: Option<String>) -> Outcome {
        let mut usage = Usage::default();
        for c in &self.calls {
            usage += c.usage;
        }
        Outcome {
            output,
            mode,
            iterations: self.calls.len() as u32,
            fallback,
            corrected: self.corrected,
            usage,
            calls: self.calls,
            prompt_version: prompts::VERSION,
        }
    }
}

/// One mode's conversation with the model.
struct Conversation {
    system: String,
    tools: Vec<ToolSpec>,
    choice: ToolChoice,
    messages: Vec<Message>,
    mode: Mode,
}

/// The loop ended without an answer, for this reason (in words for the user).
type Miss = String;

impl Conversation {
    fn new(
        system: String,
        tools: Vec<ToolSpec>,
        choice: ToolChoice,
        task: &str,
        mode: Mode,
    ) -> Self {
        Conversation {
            system,
            tools,
            choice,
            messages: vec![Message::user_text(task)],
            mode,
        }
    }

    /// Calls the model until the final tool gives a valid answer, within
    /// `cap` calls plus one corrective turn.
    async fn run<M: Model, S: PageSource>(
        &mut self,
        model: &M,
        (page, source): (&PageContext, &S),
        opts: &AgentOptions,
        cap: u32,
        log: &mut Log,
        cancel: &CancellationToken,
    ) -> Result<Result<Value, Miss>, AgentError> {
        let final_name = opts.final_tool.name.as_str();
        let mut calls = 0u32;
        let mut correcting = false;
        let mut corrected_once = false;
        loop {
            if calls >= cap && !correcting {
                return Ok(Err(format!(
                    "no final answer within {cap} iteration{}",
                    if cap == 1 { "" } else { "s" }
                )));
            }
            correcting = false;
            let req = ChatRequest {
                system: &self.system,
                messages: &self.messages,
                tools: &self.tools,
                choice: &self.choice,
            };
            let mut reply = model.call(&req, cancel).await?;
            calls += 1;
            name_anonymous_calls(&mut reply, log.calls.len());
            let mut call = Call {
                mode: self.mode,
                usage: reply.usage,
                retries: std::mem::take(&mut reply.retries),
                tool_calls: Vec::new(),
                stop_reason: reply.stop_reason.clone(),
            };
            if reply.tool_uses().next().is_none() {
                log.calls.push(call);
                return Ok(Err("the model answered without calling a tool".into()));
            }
            let Answers {
                mut results,
                answer,
                invalid,
            } = self
                .answer_calls(&reply, &mut call, (page, source), opts)
                .await;
            log.calls.push(call);
            if let Some(value) = answer {
                return Ok(Ok(value));
            }
            self.messages.push(Message {
                role: Role::Assistant,
                content: reply.blocks,
            });
            if let Some(errors) = invalid {
                if corrected_once {
                    return Ok(Err(format!(
                        "the final answer still did not match its schema after a correction ({})",
                        errors.first().map_or("", String::as_str)
                    )));
                }
                corrected_once = true;
                correcting = true;
                log.corrected = true;
                results.push(Block::Text {
                    text: prompts::fill(
                        prompts::CORRECT,
                        &[("final_tool", final_name), ("errors", &errors.join("\n"))],
                    ),
                });
            }
            self.messages.push(Message {
                role: Role::User,
                content: results,
            });
        }
    }

    /// Answer each tool call of `reply`, logging them in `call`.
    async fn answer_calls<S: PageSource>(
        &self,
        reply: &Reply,
        call: &mut Call,
        ctx: (&PageContext, &S),
        opts: &AgentOptions,
    ) -> Answers {
        let mut out = Answers {
            results: Vec::new(),
            answer: None,
            invalid: None,
        };
        for (id, name, arguments) in reply.tool_uses() {
            let outcome = self.tool_call(name, arguments, ctx, opts).await;
            if let Some(value) = outcome.answer {
                out.answer.get_or_insert(value);
            }
            if outcome.invalid.is_some() {
                out.invalid = outcome.invalid;
            }
            call.tool_calls.push(ToolCall {
                name: name.to_string(),
                arguments: arguments.to_string(),
                error: outcome.error.clone(),
            });
            out.results.push(Block::ToolResult {
                id: id.to_string(),
                content: outcome.content,
                is_error: outcome.error.is_some(),
            });
        }
        out
    }

    /// Answer one tool call: the final tool checks the answer against its
    /// schema, the chunk tool reads the page, any other name is an error.
    async fn tool_call<S: PageSource>(
        &self,
        name: &str,
        arguments: &str,
        (page, source): (&PageContext, &S),
        opts: &AgentOptions,
    ) -> ToolOutcome {
        if name == opts.final_tool.name {
            return final_answer(arguments, opts);
        }
        let (content, error) =
            if name == CHUNK_TOOL && self.tools.iter().any(|t| t.name == CHUNK_TOOL) {
                let answer = match parse_object(arguments) {
                    Ok(args) => source::chunk(page, source, args).await,
                    Err(e) => Err(e),
                };
                match answer {
                    Ok(html) => (html, None),
                    Err(e) => (e.clone(), Some(e)),
                }
            } else {
                let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
                let e = format!(
                    "There is no tool named '{name}'; the tools are {}.",
                    names.join(" and ")
                );
                (e.clone(), Some(e))
            };
        ToolOutcome {
            content,
            error,
            answer: None,
            invalid: None,
        }
    }
}

/// What a reply's tool calls gave back.
struct Answers {
    /// The tool results, to send back.
    results: Vec<Block>,
    /// The first final answer that matches its schema.
    answer: Option<Value>,
    /// The schema errors of the last final answer that does not.
    invalid: Option<Vec<String>>,
}

/// What one tool call gave back.
struct ToolOutcome {
    /// The tool result the model reads.
    content: String,
    /// The error the transcript logs.
    error: Option<String>,
    /// A final answer that matches its schema.
    answer: Option<Value>,
    /// The schema errors of a final answer that does not.
    invalid: Option<Vec<String>>,
}

/// The final tool's call: its arguments are the answer, if they match the
/// schema.
fn final_answer(arguments: &str, opts: &AgentOptions) -> ToolOutcome {
    let value = match parse_object(arguments) {
        Err(e) => {
            return ToolOutcome {
                content: e.clone(),
                error: Some(e),
                answer: None,
                invalid: None,
            };
        }
        Ok(value) => value,
    };
    let errors = schema::validate(&opts.final_tool.schema, &Value::Object(value.clone()));
    if errors.is_empty() {
        return ToolOutcome {
            content: "Received.".to_string(),
            error: None,
            answer: Some(Value::Object(value)),
            invalid: None,
        };
    }
    // The corrective text after the results lists the errors; the
    // transcript keeps them here.
    ToolOutcome {
        content: "Not accepted: the arguments do not match the schema.".to_string(),
        error: Some(format!("does not match the schema: {}", errors.join("; "))),
        answer: None,
        invalid: Some(errors),
    }
}

/// Tool calls need ids to be answered; some local servers leave them out.
fn name_anonymous_calls(reply: &mut Reply, call_index: usize) {
    for (k, b) in reply.blocks.iter_mut().enumerate() {
        if let Block::ToolUse { id, .. } = b
            && id.is_empty()
        {
            *id = format!("call_{call_index}_{k}");
        }
    }
}

/// Tool arguments as a JSON object, or what is wrong with them in words the
/// model can act on.
fn parse_object(arguments: &str) -> Result<Map<String, Value>, String> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!(
            "The arguments must be a JSON object, not {}.",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        )),
        Err(e) => Err(format!(
            "The arguments are not valid JSON ({e}); send one JSON object."
        )),
    }
}
