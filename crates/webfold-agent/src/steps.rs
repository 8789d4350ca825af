//! The acting agent: one action per step on the live page. Each step sends
//! the page's current view (within a token budget), the task and one line per
//! earlier step; the model answers with one `act` (a core [`Action`]) or
//! `done`. The history is compacted: only the latest view is ever sent, and
//! past the kept steps the oldest lines fold into a count. Every step is
//! recorded (view sent, action, result) in a [`StepRun`] the user can read.

use std::future::Future;

use serde::Serialize;
use serde_json::{Value, json};
use webfold_core::action::Action;
use webfold_core::contract::fence::delimit;
use webfold_core::tokens::{Encoding, count};

use crate::error::AgentError;
use crate::message::{Message, ToolChoice, ToolSpec, Usage};
use crate::prompts;
use crate::provider::{ChatRequest, Model};
use crate::{CancellationToken, ProviderError};

/// The page the agent acts on: a live browser tab, or anything that can show
/// a view and run an action.
pub trait ActingPage {
    /// The page as it is now, within `max_tokens`.
    fn view(&mut self, max_tokens: usize) -> impl Future<Output = Result<String, String>> + Send;
    /// Runs one action; what happened, in a few words.
    fn act(&mut self, action: &Action) -> impl Future<Output = Result<String, String>> + Send;
}

#[derive(Clone, Debug)]
pub struct StepOptions {
    /// Steps before the run stops unsolved.
    pub max_steps: usize,
    /// Token budget of the view each step sends.
    pub view_max_tokens: usize,
    /// Earlier steps listed one line each; older ones fold into a count.
    pub history_steps: usize,
}

impl Default for StepOptions {
    fn default() -> Self {
        StepOptions {
            max_steps: 10,
            view_max_tokens: 2_000,
            history_steps: 8,
        }
    }
}

/// One step of the transcript.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The view sent, exactly.
    pub view: String,
    pub view_tokens: usize,
    /// The tool the model called and its arguments, as written.
    pub tool: Option<String>,
    pub arguments: Option<String>,
    /// What happened: the page's answer to the action, or why it failed.
    pub result: String,
    pub usage: Usage,
}

/// How a run ended, with every step.
#[derive(Clone, Debug, Serialize)]
pub struct StepRun {
    pub steps: Vec<Step>,
    /// `done` was called: whether the model said the task is solved.
    pub solved: Option<bool>,
    pub answer: Option<String>,
    pub usage: Usage,
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "act".into(),
            description: "Run one action on the page.".into(),
            schema: json!({
                "type": "object",
                "properties": {"action": webfold_core::action::json_schema()},
                "required": ["action"],
            }),
        },
        ToolSpec {
            name: "done".into(),
            description: "End the task: solved or not, and the answer when it asks one.".into(),
            schema: json!({
                "type": "object",
                "properties": {
                    "solved": {"type": "boolean"},
                    "answer": {"type": "string"},
                },
                "required": ["solved"],
            }),
        },
    ]
}

/// The system prompt of the acting agent.
pub fn system_prompt(max_steps: usize) -> String {
    prompts::fill(
        prompts::STEP_SYSTEM,
        &[("max_steps", &max_steps.to_string())],
    )
}

/// The user message of one step: task, compacted history, fenced view.
pub fn step_message(task: &str, history: &[String], keep: usize, view: &str) -> String {
    let mut lines = Vec::new();
    let folded = history.len().saturating_sub(keep);
    if folded > 0 {
        lines.push(format!("({folded} earlier steps)"));
    }
    lines.extend(history[folded..].iter().cloned());
    if lines.is_empty() {
        lines.push("none".into());
    }
    prompts::fill(
        prompts::STEP,
        &[
            ("task", task),
            ("history", &lines.join("\n")),
            ("view", &delimit(view)),
        ],
    )
}

/// Runs the task on `page`, one action per step.
pub async fn run_steps<M: Model + Sync, P: ActingPage + Send>(
    model: &M,
    task: &str,
    page: &mut P,
    opts: &StepOptions,
    cancel: &CancellationToken,
) -> Result<StepRun, AgentError> {
    let system = system_prompt(opts.max_steps);
    let tools = tools();
    let mut run = StepRun {
        steps: Vec::new(),
        solved: None,
        answer: None,
        usage: Usage::default(),
    };
    let mut history = Vec::new();
    for n in 1..=opts.max_steps {
        let view = page
            .view(opts.view_max_tokens)
            .await
            .unwrap_or_else(|e| format!("(the page cannot be shown: {e})"));
        let messages = [Message::user_text(step_message(
            task,
            &history,
            opts.history_steps,
            &view,
        ))];
        let req = ChatRequest {
            system: &system,
            messages: &messages,
            tools: &tools,
            choice: &ToolChoice::Auto,
        };
        if cancel.is_cancelled() {
            return Err(ProviderError::Cancelled.into());
        }
        let reply = model.call(&req, cancel).await?;
        run.usage += reply.usage;
        let call = reply
            .tool_uses()
            .next()
            .map(|(_, name, args)| (name.to_string(), args.to_string()));
        let result = match &call {
            None => "no tool was called: call act or done".to_string(),
            Some((name, args)) if name == "done" => {
                let v: Value = serde_json::from_str(args).unwrap_or(Value::Null);
                run.solved = Some(v["solved"].as_bool().unwrap_or(false));
                run.answer = v["answer"].as_str().map(str::to_owned);
                "done".to_string()
            }
            Some((name, args)) if name == "act" => match parse_action(args) {
                Ok(action) => match page.act(&action).await {
                    Ok(said) => said,
                    Err(e) => format!("failed: {e}"),
                },
                Err(e) => format!("failed: {e}"),
            },
            Some((name, _)) => format!("unknown tool {name}: call act or done"),
        };
        let (tool, arguments) = call.map_or((None, None), |(t, a)| (Some(t), Some(a)));
        history.push(format!(
            "{n}. {} {} → {result}",
            tool.as_deref().unwrap_or("(none)"),
            arguments.as_deref().unwrap_or("")
        ));
        run.steps.push(Step {
            view_tokens: count(&view, Encoding::O200kBase),
            view,
            tool,
            arguments,
            result,
            usage: reply.usage,
        });
        if run.solved.is_some() {
            break;
        }
    }
    Ok(run)
}

fn parse_action(args: &str) -> Result<Action, String> {
    let v: Value =
        serde_json::from_str(args).map_err(|e| format!("the arguments are not JSON: {e}"))?;
    serde_json::from_value(v.get("action").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("not an action: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_folds_past_the_kept_steps() {
        let h: Vec<String> = (1..=5).map(|i| format!("{i}. act")).collect();
        let m = step_message("Buy it", &h, 2, "- button \"Buy\" [ref=e1]");
        assert!(m.contains("(3 earlier steps)\n4. act\n5. act"), "{m}");
        assert!(m.contains("<page-content>\n- button \"Buy\" [ref=e1]\n</page-content>"));
        assert!(step_message("t", &[], 2, "v").contains("Steps so far:\nnone"));
    }
}
