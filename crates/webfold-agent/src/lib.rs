//! webfold-agent: the agent loop over LLM providers.
//!
//! A page goes to the model as a small view (the outline by default, or any
//! view of the core's registry that shows a whole page: the accessibility
//! snapshot, Markdown, the CNT, the links) inside the system prompt; the model asks
//! for the HTML it needs with `get_html_chunk` and answers through one final
//! tool whose JSON Schema the caller supplies. When that loop fails, one call
//! with the full HTML in the prompt takes over, and the reason is reported.
//!
//! - [`provider`]: Anthropic Messages and OpenAI-compatible Chat Completions
//!   over HTTP, with native tool calling, streaming, retries, timeouts and
//!   cancellation. [`Model`] is what the loop calls, so tests and benches can
//!   answer in-process.
//! - [`page`]: what the loop knows of the page: the view ([`AgentView`], from
//!   the registry, with the prompt's words for it) and the chunk tool.
//! - [`run`]: the loop itself; [`Outcome`] is what it reports.
//! - [`source`]: where chunks come from: the prompt's page, or a live tab
//!   read again before each chunk ([`run_live`]).
//! - [`schema`]: the JSON Schema subset the final answer is checked against.
//! - [`prompts`]: the versioned prompt files.
//! - [`team`]: seed 003's agents (operator, agent, corrector, lookup) acting
//!   on a live page's CNT, one action per step.
//! - [`replay`]: a provider server on 127.0.0.1 that replays scripted replies.

pub mod error;
pub mod message;
pub mod page;
pub mod prompts;
pub mod provider;
pub mod replay;
pub mod run;
pub mod schema;
pub mod source;
mod sse;
pub mod team;

pub use error::{AgentError, ProviderError};
pub use message::{Block, Message, Reply, Role, ToolChoice, ToolSpec, Usage};
pub use page::{AgentView, PageContext, ViewChoiceError};
pub use provider::{Model, Provider, ProviderConfig, ProviderKind, RetryPolicy};
pub use run::{AgentOptions, FinalTool, Mode, Outcome, run, run_live};
pub use source::{Current, PageSource};
pub use tokio_util::sync::CancellationToken;
