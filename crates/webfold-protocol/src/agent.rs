//! The agent socket: what `webfold mcp` processes and the CLI ask the
//! daemon over its unix socket, one JSON object per line.
//!
//! A request is `{"id": n, "method": …, "params": {…}}`, answered by
//! `{"id": n, "result": …}` or `{"id": n, "error": "…"}`, in any order (a
//! `get_ui_context` may wait while others are answered). Each method is a
//! variant of [`AgentRequest`] whose params are a struct, and each params
//! struct names its answer's type through [`Call`]: the daemon can only
//! answer a method with its type, and a client reads it back as that type.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pick::StoredContext;
use crate::ws::Status;

/// Longest request line.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Longest `wait_seconds`.
pub const MAX_WAIT_SECONDS: u64 = 600;

/// A method's params, tied to the answer the daemon gives it.
pub trait Call: Serialize + Into<AgentRequest> {
    type Answer: Serialize + DeserializeOwned;
}

macro_rules! methods {
    ($($(#[$doc:meta])* $variant:ident($params:ty) -> $answer:ty;)*) => {
        /// Every method of the agent socket, with its params.
        #[derive(Debug, Serialize, Deserialize)]
        #[serde(tag = "method", content = "params", rename_all = "snake_case")]
        pub enum AgentRequest {
            $($(#[$doc])* $variant($params),)*
        }

        $(
            impl From<$params> for AgentRequest {
                fn from(p: $params) -> AgentRequest {
                    AgentRequest::$variant(p)
                }
            }

            impl Call for $params {
                type Answer = $answer;
            }
        )*
    };
}

methods! {
    /// An agent process introducing itself; the first call of its connection.
    Hello(Hello) -> HelloAnswer;
    /// The next message for the agent, else the latest pick of its project.
    GetUiContext(GetUiContext) -> Option<UiContext>;
    /// The next message for the agent, waited for; `None` when none came.
    /// An agent process loops on it to push each message to its client as
    /// it arrives; a message answered here is not the next one of
    /// `get_ui_context` again, and stays answerable.
    NextMessage(NextMessage) -> Option<UiContext>;
    /// The tabs of the agent's project.
    ListSessions(ListSessions) -> SessionList;
    /// An answer (or a part of one) for the tab it answers.
    RespondToBrowser(RespondToBrowser) -> Delivered;
    /// What the agent is doing, shown in the tab.
    UpdateStatus(UpdateStatus) -> Delivered;
    GetConversationHistory(GetConversationHistory) -> History;
    /// A tab's current HTML, read from the live page.
    GetLiveHtml(GetLiveHtml) -> LiveHtml;
    /// `webfold ui list`: the tabs of a project, for no agent in particular.
    UiList(UiList) -> SessionList;
    /// `webfold ui N`: the tab agents of a project read by default.
    UiPick(UiPick) -> Done;
    /// What the daemon says of itself (`webfold doctor`).
    Status(GetStatus) -> DaemonStatus;
}

/// One request line.
#[derive(Debug, Serialize)]
pub struct Request {
    pub id: u64,
    #[serde(flatten)]
    pub call: AgentRequest,
}

/// A request line that could not be read: its id when it had one, and why.
#[derive(Debug, PartialEq)]
pub struct BadRequest {
    pub id: u64,
    pub message: String,
}

impl Request {
    /// Reads one request line. Params may be absent or `null` for a method
    /// whose params are all optional.
    pub fn parse(line: &[u8]) -> Result<Request, BadRequest> {
        #[derive(Deserialize)]
        struct Envelope {
            id: u64,
            method: Value,
            #[serde(default)]
            params: Value,
        }
        let e: Envelope = serde_json::from_slice(line).map_err(|e| BadRequest {
            id: 0,
            message: format!("not a request: {e}"),
        })?;
        let params = match e.params {
            Value::Null => Value::Object(Default::default()),
            p => p,
        };
        let call = serde_json::json!({ "method": e.method, "params": params });
        match serde_json::from_value::<AgentRequest>(call) {
            Ok(call) => Ok(Request { id: e.id, call }),
            Err(why) => Err(BadRequest {
                id: e.id,
                message: format!("invalid request: {why}"),
            }),
        }
    }
}

/// One answer line; `result` is the answer of the request's [`Call`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Response {
    pub id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An agent process introducing itself.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hello {
    pub agent_id: String,
    /// The directory the agent works in (absolute).
    pub project: PathBuf,
    pub client: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloAnswer {
    pub protocol_version: u32,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetUiContext {
    /// A tab's session (default: the latest of this project)
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// Wait up to this long for the user to pick or write
    #[schemars(range(max = 600))]
    pub wait_seconds: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextMessage {
    /// How long to wait for one (at most [`MAX_WAIT_SECONDS`]).
    pub wait_seconds: u64,
}

/// What `get_ui_context` answers: a pick, and the message about it when
/// the user wrote one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiContext {
    pub session_id: String,
    /// Its `timestamp` is when the message arrived, when there is one.
    #[serde(flatten)]
    pub context: StoredContext,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message: Option<String>,
    /// The user message's id, which `respond_to_browser` answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Other tabs of the project, when the answer picked one of several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_sessions: Vec<SessionInfo>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSessions {}

/// A tab, as `list_sessions` and `webfold ui list` show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub session_id: String,
    pub page_url: String,
    pub page_title: String,
    pub last_active: i64,
    pub has_unread_message: bool,
    pub connected: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SessionList {
    /// Most recently active first.
    pub sessions: Vec<SessionInfo>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RespondToBrowser {
    pub session_id: String,
    /// The user message answered, from get_ui_context
    pub message_id: String,
    /// Markdown
    pub message: String,
    /// false: a part, more follows
    pub is_complete: bool,
}

/// Whether a frame for a tab reached it now (`false`: queued for when it
/// reconnects, or dropped for a status).
#[derive(Debug, Serialize, Deserialize)]
pub struct Delivered {
    pub success: bool,
    pub delivered: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateStatus {
    pub session_id: String,
    pub status: Status,
    /// e.g. "Searching for the Button component"
    pub detail: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetConversationHistory {
    pub session_id: String,
    /// Most recent messages to return
    #[schemars(range(min = 1, max = 200), default = "twenty")]
    pub limit: Option<usize>,
}

fn twenty() -> Option<usize> {
    Some(20)
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct History {
    /// Oldest first.
    pub messages: Vec<HistoryMessage>,
}

/// A message of a tab's conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryMessage {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// A user message's id (what `respond_to_browser` answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A tab's current HTML, read from the live page (`get_html_chunk` with
/// `live: true` asks for it).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetLiveHtml {
    pub session_id: String,
    /// Must match an element in the live page.
    pub selector: String,
}

/// A tab's current HTML, as `get_live_html` answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveHtml {
    pub html: String,
    /// Elements the selector matched in the live page.
    pub matches: u32,
    /// The tab's address now (it may have moved on since the pick).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiList {
    pub project: PathBuf,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiPick {
    pub project: PathBuf,
    pub session_id: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Done {
    pub success: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetStatus {}

/// What the daemon says of itself (`webfold doctor`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub pid: u32,
    pub port: u16,
    pub version: String,
    pub protocol_version: u32,
    pub agents: usize,
    pub tabs: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_as_clients_write_them() {
        let r = Request::parse(br#"{"id":3,"method":"list_sessions"}"#).unwrap();
        assert_eq!(r.id, 3);
        assert!(matches!(r.call, AgentRequest::ListSessions(_)));
        let r = Request::parse(br#"{"id":4,"method":"status","params":null}"#).unwrap();
        assert!(matches!(r.call, AgentRequest::Status(_)));
        let r = Request::parse(
            br#"{"id":5,"method":"get_ui_context","params":{"sessionId":"s","wait_seconds":2}}"#,
        )
        .unwrap();
        let AgentRequest::GetUiContext(a) = r.call else {
            panic!("{:?}", r.call)
        };
        assert_eq!(
            (a.session_id.as_deref(), a.wait_seconds),
            (Some("s"), Some(2))
        );
    }

    #[test]
    fn written_requests_read_back() {
        let line = serde_json::to_vec(&Request {
            id: 9,
            call: UiPick {
                project: "/p".into(),
                session_id: "s".into(),
            }
            .into(),
        })
        .unwrap();
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(text.contains(r#""method":"ui_pick""#), "{text}");
        let back = Request::parse(&line).unwrap();
        assert!(matches!(back.call, AgentRequest::UiPick(p) if p.session_id == "s"));
    }

    #[test]
    fn bad_requests_keep_their_id_and_say_why() {
        let e = Request::parse(br#"{"id":7,"method":"fly"}"#).unwrap_err();
        assert_eq!(e.id, 7);
        assert!(e.message.contains("unknown variant `fly`"), "{}", e.message);
        let e = Request::parse(br#"{"id":8,"method":"ui_list","params":{"extra":1}}"#).unwrap_err();
        assert!(e.message.contains("unknown field `extra`"), "{}", e.message);
        let e = Request::parse(b"not json").unwrap_err();
        assert_eq!(e.id, 0);
        assert!(e.message.starts_with("not a request"), "{}", e.message);
    }
}
