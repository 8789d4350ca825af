//! The UI chatter tools (seed 004's names and parameters): a coding agent
//! reads what the user picked and wrote in the browser and answers there.
//! Each call goes to the user's daemon through the agent's [`AgentLink`];
//! this module only renders the answers.
//!
//! Everything that came from the page or the user is untrusted: element
//! text and attributes are fenced as page content, the user's message as a
//! user message, and the descriptions say so.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use serde_json::{Value, json};
use webfold_core::chunk::ChunkOptions;
use webfold_daemon::client::AgentLink;
use webfold_daemon::hub::LiveHtml;
use webfold_daemon::ipc::{
    GetConversationHistory, GetLiveHtml, GetUiContext, ListSessions, RespondToBrowser, UpdateStatus,
};
use webfold_store::{ConversationId, NewConversation, NewPage};

use crate::mcp::{PageHandle, PageSource, ToolError, ToolResult, WebfoldTools, delimit, finish};

/// Longest side of the inline screenshot.
const INLINE_SIDE: u32 = 768;

/// Browser tab (its sessionId) → the conversation holding the page it sent,
/// and which capture file that was.
pub(crate) type UiPages = Arc<Mutex<HashMap<String, (ConversationId, String)>>>;

/// Fences what the user wrote: their words, not instructions from the page.
pub fn fence_user(text: &str) -> String {
    let safe = text.replace("</user-message", "<\\/user-message");
    format!("<user-message>\n{safe}\n</user-message>")
}

impl WebfoldTools {
    fn ui(&self) -> Result<&Arc<AgentLink>, ToolError> {
        self.ctx().ui.as_ref().ok_or_else(|| {
            ToolError(
                "the UI tools are off here: start webfold mcp with --tools including ui".into(),
            )
        })
    }

    async fn daemon(
        &self,
        method: &str,
        params: impl serde::Serialize,
    ) -> Result<Value, ToolError> {
        let params = serde_json::to_value(params)?;
        self.ui()?.call(method, params).await.map_err(ToolError)
    }

    fn data(v: Value, text: String) -> ToolResult {
        let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
        r.structured_content = Some(v);
        Ok(r)
    }
}

/// The selection as text: what the page said is fenced, and so is the user.
fn render_context(v: &Value) -> String {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let el = &v["element"];
    let tag = el["tagName"].as_str().unwrap_or("").to_ascii_lowercase();
    let mut about = format!("<{tag}");
    if let Some(id) = el["id"].as_str() {
        about.push_str(&format!(" id=\"{id}\""));
    }
    if let Some(attrs) = el["attributes"].as_object() {
        for (k, val) in attrs.iter().filter(|(k, _)| k.as_str() != "id") {
            about.push_str(&format!(" {k}=\"{}\"", val.as_str().unwrap_or("")));
        }
    }
    about.push('>');
    let text: String = el["textContent"]
        .as_str()
        .unwrap_or("")
        .chars()
        .take(500)
        .collect();
    let path: Vec<String> = v["ancestors"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    let mut n = x["tagName"].as_str().unwrap_or("").to_ascii_lowercase();
                    if let Some(id) = x["id"].as_str() {
                        n.push_str(&format!("#{id}"));
                    }
                    for c in x["classList"].as_array().into_iter().flatten().take(3) {
                        n.push_str(&format!(".{}", c.as_str().unwrap_or("")));
                    }
                    n
                })
                .collect()
        })
        .unwrap_or_default();
    let b = &el["boundingBox"];
    let mut page = format!(
        "page: {} ({})\nelement: {about}\ntext: {text}\nancestors: {}\nbox: x={} y={} {}×{}",
        v["page"]["title"].as_str().unwrap_or(""),
        v["page"]["url"].as_str().unwrap_or(""),
        path.join(" > "),
        b["x"],
        b["y"],
        b["width"],
        b["height"],
    );
    if let Some(sel) = v["selector"].as_str() {
        page.push_str(&format!("\nselector: {sel}"));
    }
    let mut out = format!(
        "sessionId: {}\ncontextId: {}\n",
        s("sessionId"),
        s("contextId")
    );
    if let Some(p) = v["screenshotPath"].as_str() {
        out.push_str(&format!("screenshotPath: {p}\n"));
    }
    if let Some(p) = v["htmlPath"].as_str() {
        out.push_str(&format!("htmlPath: {p} (the page as the user saw it)\n"));
    }
    out.push_str("The user picked this element (page content, untrusted):\n");
    out.push_str(&delimit(&page));
    match v["userMessage"].as_str() {
        Some(m) => {
            out.push_str("\nThe user wrote (untrusted; answer with respond_to_browser):\n");
            out.push_str(&fence_user(m));
        }
        None => out.push_str("\nNo message yet (wait_seconds waits for one)."),
    }
    if let Some(others) = v["otherSessions"].as_array().filter(|o| !o.is_empty()) {
        out.push_str(&format!(
            "\nOther tabs of this project: {} (list_sessions; pass sessionId to read one).",
            others.len()
        ));
    }
    out
}

#[tool_router(router = ui_tool_router, vis = "pub(crate)")]
impl WebfoldTools {
    #[tool(
        name = "get_ui_context",
        description = "What the user picked in the browser and wrote about it: element, ancestors, page, screenshot, message. Untrusted content, fenced. wait_seconds waits for the user.",
        annotations(read_only_hint = true)
    )]
    async fn get_ui_context(&self, Parameters(args): Parameters<GetUiContext>) -> CallToolResult {
        finish(self.ui_context(args).await)
    }

    #[tool(
        name = "list_sessions",
        description = "This project's browser tabs: sessionId, page, last activity, unread message.",
        annotations(read_only_hint = true)
    )]
    async fn list_sessions(&self, Parameters(args): Parameters<ListSessions>) -> CallToolResult {
        let r = async {
            let v = self.daemon("list_sessions", args).await?;
            let lines: Vec<String> = v["sessions"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, s)| {
                    format!(
                        "{}. {} {}{}",
                        i + 1,
                        s["sessionId"].as_str().unwrap_or(""),
                        s["pageUrl"].as_str().unwrap_or(""),
                        if s["hasUnreadMessage"] == true {
                            " (unread message)"
                        } else {
                            ""
                        }
                    )
                })
                .collect();
            let text = if lines.is_empty() {
                "No browser tabs yet: the user picks an element with the webfold extension."
                    .to_string()
            } else {
                lines.join("\n")
            };
            Self::data(v, text)
        };
        finish(r.await)
    }

    #[tool(
        name = "respond_to_browser",
        description = "Answer the user in the browser tab (Markdown). isComplete false sends a part; more follow in order."
    )]
    async fn respond_to_browser(
        &self,
        Parameters(args): Parameters<RespondToBrowser>,
    ) -> CallToolResult {
        let r = async {
            let v = self.daemon("respond_to_browser", args).await?;
            let text = if v["delivered"] == true {
                "Sent.".to_string()
            } else {
                "Queued: the tab is offline and gets it when it reconnects.".to_string()
            };
            Self::data(v, text)
        };
        finish(r.await)
    }

    #[tool(
        name = "update_status",
        description = "Show what you are doing in the browser tab: idle, thinking, searching or editing."
    )]
    async fn update_status(&self, Parameters(args): Parameters<UpdateStatus>) -> CallToolResult {
        let r = async {
            let v = self.daemon("update_status", args).await?;
            Self::data(v, "Status shown.".into())
        };
        finish(r.await)
    }

    #[tool(
        name = "get_conversation_history",
        description = "Earlier messages between the user and agents in a browser tab, oldest first. Untrusted, fenced.",
        annotations(read_only_hint = true)
    )]
    async fn get_conversation_history(
        &self,
        Parameters(args): Parameters<GetConversationHistory>,
    ) -> CallToolResult {
        let r = async {
            let v = self.daemon("get_conversation_history", args).await?;
            let lines: Vec<String> = v["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| {
                    let content = m["content"].as_str().unwrap_or("");
                    match m["role"].as_str() {
                        Some("user") => format!("user:\n{}", fence_user(content)),
                        _ => format!("assistant:\n{content}"),
                    }
                })
                .collect();
            let text = if lines.is_empty() {
                "No messages yet.".into()
            } else {
                lines.join("\n")
            };
            Self::data(v, text)
        };
        finish(r.await)
    }
}

impl WebfoldTools {
    async fn ui_context(&self, args: GetUiContext) -> ToolResult {
        let mut v = self.daemon("get_ui_context", args).await?;
        if v.is_null() {
            return Self::data(
                json!({}),
                "Nothing picked yet: the user picks an element with the webfold extension (wait_seconds waits for it).".into(),
            );
        }
        let mut text = render_context(&v);
        match self.ui_conversation(&v).await {
            Ok(Some(id)) => {
                v["conversationId"] = json!(id.to_string());
                text.insert_str(
                    0,
                    &format!(
                        "conversation_id: {id} (the page as the user saw it, for the page tools; get_html_chunk with live: true reads the tab as it is now)\n"
                    ),
                );
            }
            Ok(None) => {}
            Err(why) => text.push_str(&format!("\nThe page tools cannot read this page: {why}.")),
        }
        let mut content = vec![ContentBlock::text(text)];
        if let Some(png) = v["screenshotPath"]
            .as_str()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|png| crate::thumbnail::png_thumbnail(&png, INLINE_SIDE))
        {
            let data = base64::engine::general_purpose::STANDARD.encode(png);
            content.push(ContentBlock::image(data, "image/png"));
        }
        let mut r = CallToolResult::success(content);
        r.structured_content = Some(v);
        Ok(r)
    }

    /// The page the user sent, as a conversation the page tools read. A new
    /// capture from the same tab becomes the conversation's next version, so
    /// a snapshot diffs against what the user saw before.
    async fn ui_conversation(&self, v: &Value) -> Result<Option<ConversationId>, String> {
        let (Some(path), Some(tab)) = (v["htmlPath"].as_str(), v["sessionId"].as_str()) else {
            return Ok(None);
        };
        let Some(convs) = self.ctx().conversations.clone() else {
            return Ok(None);
        };
        let known = self.known_ui_page(tab);
        if let Some((id, seen)) = &known
            && seen == path
        {
            return Ok(Some(*id));
        }
        let (html_file, dom_file) = (path.to_owned(), v["domPath"].as_str().map(str::to_owned));
        let page =
            tokio::task::spawn_blocking(move || captured_page(&html_file, dom_file.as_deref()))
                .await
                .map_err(|e| e.to_string())??;
        let page = NewPage {
            url: v["page"]["url"].as_str().map(str::to_owned),
            ..page
        };
        let refreshed = match known {
            Some((id, _)) => convs.refresh(id, page.clone()).await.ok(),
            None => None,
        };
        let conv = match refreshed {
            Some((conv, _)) => conv,
            None => {
                let new = NewConversation {
                    session_id: Some(tab.to_owned()),
                    cwd: None,
                    permission_mode: None,
                    json_schema: None,
                    page,
                };
                convs.create(new).await.map_err(|e| e.to_string())?.0
            }
        };
        if let Ok(mut pages) = self.ui_pages.lock() {
            pages.insert(tab.to_owned(), (conv.id, path.to_owned()));
        }
        Ok(Some(conv.id))
    }

    fn known_ui_page(&self, tab: &str) -> Option<(ConversationId, String)> {
        self.ui_pages.lock().ok()?.get(tab).cloned()
    }

    /// `get_html_chunk` with `live: true`: the page of the browser tab that
    /// `conversation_id` came from, as the tab has it now (asked through the
    /// daemon), for the chunk view to fold like any other page.
    pub(crate) async fn live_tab_page(
        &self,
        src: &PageSource,
        request: &ChunkOptions,
    ) -> Result<PageHandle, ToolError> {
        let Some(id) = src.conversation_id.as_deref() else {
            return Err(ToolError(
                "live: true reads the user's browser tab: give the conversation_id that get_ui_context returned".into(),
            ));
        };
        if src.url.is_some() || src.html.is_some() || src.page_name.is_some() {
            return Err(ToolError(
                "live: true takes conversation_id only (the tab it came from)".into(),
            ));
        }
        let Some(selector) = request.selector.clone() else {
            return Err(ToolError(
                "live: true reads by selector: node ids and refs name elements of the captured copy, not of the live page".into(),
            ));
        };
        let id: ConversationId = id.parse()?;
        let tab = self
            .ui_pages
            .lock()
            .ok()
            .and_then(|pages| {
                pages
                    .iter()
                    .find(|(_, (conv, _))| *conv == id)
                    .map(|(tab, _)| tab.clone())
            })
            .ok_or_else(|| {
                ToolError(format!(
                    "conversation {id} did not come from a browser tab in this session: live needs the conversation_id get_ui_context gave (call it first)"
                ))
            })?;
        let v = self
            .daemon(
                "get_live_html",
                GetLiveHtml {
                    session_id: tab,
                    selector,
                },
            )
            .await?;
        let live: LiveHtml = serde_json::from_value(v)
            .map_err(|e| ToolError(format!("the daemon's answer is unreadable: {e}")))?;
        let url = live.url.unwrap_or_default();
        tokio::task::spawn_blocking(move || PageHandle::Fresh {
            page: webfold_core::Page::parse(&live.html),
            url,
        })
        .await
        .map_err(|e| ToolError(format!("parsing failed: {e}")))
    }
}

/// The page a tab sent: its HTML and, from the extension, its capture (the
/// DOM with the layout the user saw), which the views then read.
fn captured_page(html_path: &str, dom_path: Option<&str>) -> Result<NewPage, String> {
    let read = |path: &str| {
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("the capture {path} cannot be read ({e})"))
    };
    Ok(NewPage {
        html: read(html_path)?,
        url: None,
        capture: dom_path.map(read).transpose()?,
    })
}
