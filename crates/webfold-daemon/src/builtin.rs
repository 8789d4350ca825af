//! The built-in agent: with a model provider, the daemon answers a side-panel
//! message itself, with webfold-agent's loop. The prompt carries the outline
//! of the tab's latest capture (with the layout the user saw); each
//! `get_html_chunk` reads the tab's live DOM first (`get_html` to the tab),
//! so the model sees the page as it is now, and falls back to the capture,
//! saying so, when the tab cannot answer. The panel gets status updates, then
//! the reply with the proposed changes (shown, never applied) and the cost.

use std::sync::Arc;

use serde_json::{Map, Value};
use webfold_agent::{
    AgentOptions, CancellationToken, Current, Outcome, PageContext, PageSource, Provider,
    ProviderConfig, ProviderError, run_live,
};
use webfold_core::tokens::Encoding;
use webfold_store::Role;

use crate::hub::{Hub, LIVE_HTML_TIMEOUT};
use webfold_protocol::{
    AgentInfo, AgentResponse, AgentResult, ErrorFrame, ServerFrame, Status, StatusUpdate,
};

/// The built-in agent's id in `agents`, `select_agent` and `agentId`.
pub const AGENT_ID: &str = "webfold-agent";

/// The model the daemon calls for side-panel messages.
pub struct BuiltinAgent {
    provider: Provider,
    name: String,
}

impl BuiltinAgent {
    pub fn new(cfg: ProviderConfig) -> Result<BuiltinAgent, ProviderError> {
        let name = format!("webfold agent · {} {}", cfg.kind.name(), cfg.model);
        Ok(BuiltinAgent {
            provider: Provider::new(cfg)?,
            name,
        })
    }

    /// How the panel names it: "webfold agent · openai gpt-4.1".
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn info(&self) -> AgentInfo {
        AgentInfo {
            agent_id: AGENT_ID.into(),
            project: String::new(),
            client: self.name.clone(),
            built_in: true,
        }
    }
}

/// One user message for the built-in agent.
pub(crate) struct Ask {
    pub session_id: String,
    pub context_id: String,
    pub message_id: String,
    pub message: String,
}

/// Runs the loop for one message and tells the tab how it went. Ends
/// quietly when cancelled (the tab went away: nobody would read it).
pub(crate) async fn answer(
    hub: Arc<Hub>,
    agent: Arc<BuiltinAgent>,
    ask: Ask,
    cancel: CancellationToken,
) {
    let session = ask.session_id.as_str();
    status(&hub, session, Status::Thinking, "reading the page");
    let outcome = match prompt_page(&hub, session).await {
        Ok((page, url)) => {
            let tab = LiveTab {
                hub: &hub,
                session_id: session,
                url,
                cancel: &cancel,
            };
            run_live(
                &agent.provider,
                &page,
                &tab,
                &ask.message,
                &AgentOptions::default(),
                &cancel,
            )
            .await
            .map_err(|e| e.to_string())
        }
        Err(why) => Err(why),
    };
    if cancel.is_cancelled() {
        return;
    }
    let frame = match outcome {
        Ok(outcome) => reply(&hub, &ask, &outcome).await,
        Err(why) => ServerFrame::Error(ErrorFrame {
            code: "agent_failed".into(),
            message: format!("The webfold agent could not answer: {why}"),
        }),
    };
    hub.tell(session, frame, true);
    hub.tell(
        session,
        ServerFrame::StatusUpdate(StatusUpdate {
            status: Status::Idle,
            detail: None,
        }),
        false,
    );
}

fn status(hub: &Hub, session_id: &str, status: Status, detail: &str) {
    let frame = ServerFrame::StatusUpdate(StatusUpdate {
        status,
        detail: Some(detail.to_string()),
    });
    hub.tell(session_id, frame, false);
}

/// The page the prompt is made from: the tab's latest capture, with its
/// layout, and its address.
async fn prompt_page(hub: &Hub, session_id: &str) -> Result<(PageContext, String), String> {
    let latest = hub.latest_capture(session_id).ok_or(
        "nothing is captured in this tab yet: pick an element on the page, then ask again",
    )?;
    let url = latest.pick.page.url.clone();
    let page = tokio::task::spawn_blocking(move || {
        crate::page_view::load(latest.html_path.as_deref(), latest.dom_path.as_deref())
    })
    .await
    .map_err(|e| format!("reading the captured page failed ({e}): pick again"))??;
    // The fallback sends the page whole, as the browser has it.
    let html = page
        .document_element()
        .map(|root| page.outer_html(root))
        .unwrap_or_default();
    let context = PageContext::new(page, html, url.clone(), Encoding::default());
    Ok((context, url))
}

/// The final tool's answer as the panel shows it, kept in the history too.
async fn reply(hub: &Hub, ask: &Ask, outcome: &Outcome) -> ServerFrame {
    let output = &outcome.output;
    let message = output
        .get("response")
        .and_then(Value::as_str)
        .unwrap_or("(the model gave no reply text)")
        .to_string();
    // The reply is shown even if the history cannot keep it.
    let _ = hub
        .remember(&ask.session_id, Role::Assistant, &message, &ask.context_id)
        .await;
    ServerFrame::AgentResponse(AgentResponse {
        context_id: ask.context_id.clone(),
        message_id: ask.message_id.clone(),
        message,
        is_complete: true,
        result: Some(Box::new(AgentResult {
            dom_changes: output.get("domChanges").cloned().unwrap_or(Value::Null),
            action: output.get("action").cloned().unwrap_or(Value::Null),
            iterations: outcome.iterations,
            input_tokens: outcome.usage.input_tokens,
            output_tokens: outcome.usage.output_tokens,
            fallback: outcome.fallback.clone(),
        })),
    })
}

/// Chunks from the tab's live DOM.
struct LiveTab<'a> {
    hub: &'a Hub,
    session_id: &'a str,
    /// The captured page's address, for a live answer that names none.
    url: String,
    cancel: &'a CancellationToken,
}

impl PageSource for LiveTab<'_> {
    async fn current(&self, args: &Map<String, Value>) -> Current {
        let what = match (args.get("selector"), args.get("id")) {
            (Some(Value::String(s)), _) => s.clone(),
            (_, Some(id)) => format!("element {id}"),
            _ => "the page".into(),
        };
        status(
            self.hub,
            self.session_id,
            Status::Searching,
            &format!("reading {what}"),
        );
        let read = tokio::select! {
            r = self.hub.tab_html(self.session_id, None, LIVE_HTML_TIMEOUT) => r,
            _ = self.cancel.cancelled() => Err("the run was cancelled".into()),
        };
        let current = match read {
            Ok(live) => {
                let url = live.url.unwrap_or_else(|| self.url.clone());
                match tokio::task::spawn_blocking(move || PageContext::parse(&live.html, url)).await
                {
                    Ok(page) => Current::Fresh(page),
                    Err(e) => stale(&format!("reading its HTML failed: {e}")),
                }
            }
            Err(why) => stale(&why),
        };
        status(
            self.hub,
            self.session_id,
            Status::Thinking,
            "asking the model",
        );
        current
    }
}

fn stale(why: &str) -> Current {
    Current::Stale(format!(
        "Note: the browser tab could not be read just now ({why}), so this is the page as captured when the user picked; it may be out of date."
    ))
}
