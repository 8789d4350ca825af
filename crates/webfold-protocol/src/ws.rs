//! The WebSocket protocol between the extension and the daemon.
//!
//! Every frame is a JSON object `{"type": …, "payload": …}` (seed 004's
//! shape; `ping`/`pong` carry no payload). Field names are camelCase as the
//! extension writes them. Parsing is strict: unknown types and fields are
//! errors, answered with an `error` frame that names the problem. The JSON
//! Schema of both directions is checked in at `schema/daemon-protocol.schema.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use webfold_core::page::capture::DomCapture;

use crate::agent::History;
use crate::pick::{Ancestor, Child, Element, PageInfo, Pick, PickSource};

/// The protocol's version: the daemon announces it in `agents`; a client
/// that needs more can tell. 2: answers name the user message they answer
/// (`messageId`), and the daemon closes an unfinished one (`answer_closed`).
/// 3: a tab may ask for its earlier conversation (`get_history`).
/// 4: a capture carries what decides whether text can be seen (computed
/// colours and sizes, text boxes, text painted over).
pub const PROTOCOL_VERSION: u32 = 4;

/// Largest WebSocket message the daemon reads (a page's capture and a
/// screenshot ride along).
pub const MAX_MESSAGE_BYTES: usize = 28 * 1024 * 1024;
/// Largest screenshot, decoded.
pub const MAX_SCREENSHOT_BYTES: usize = 8 * 1024 * 1024;
/// Largest page HTML a selection may carry (and largest page capture).
pub const MAX_HTML_BYTES: usize = 16 * 1024 * 1024;
/// Largest user message.
pub const MAX_USER_MESSAGE_BYTES: usize = 64 * 1024;

/// What the extension sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    content = "payload",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum ClientFrame {
    /// The element the user picked, with its surroundings.
    SetContext(Box<SetContext>),
    /// What the user wrote about a selection.
    UserMessage(UserMessage),
    /// Which connected coding agent this tab talks to.
    SelectAgent(SelectAgent),
    /// Keepalive (the extension's service worker sends one every 20 s).
    Ping,
    /// The answer to a `get_html` the daemon sent this tab.
    Html(HtmlReply),
    /// The side panel asks how the model sees this tab's page.
    GetView(GetView),
    /// The tab's earlier conversation (the panel lost its own, as after a
    /// browser restart); answered by `history`.
    GetHistory(GetHistory),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetHistory {
    /// The latest messages to send, at most [`MAX_HISTORY`] (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// Most messages one `history` frame carries.
pub const MAX_HISTORY: u32 = 200;

/// The tab's current HTML, read when the daemon asked (`get_html`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HtmlReply {
    /// The `requestId` of the `get_html` this answers.
    pub request_id: String,
    /// The page's whole current HTML (the extension's own marks left out),
    /// when the selector matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// How many elements the selector matched in the live page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<u32>,
    /// The tab's address when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Why there is no HTML (the selector matched nothing, or is invalid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetView {
    /// Echoed in the `view` answer.
    pub request_id: String,
    /// The view's name, as the command line has it (`cnt`, `outline`, `links`, …).
    pub view: String,
}

/// A pick as the extension sends it: the [`Pick`]'s fields, then the
/// screenshot and page inline.
///
/// The one real difference from [`Pick`]: the fields are spelled out here
/// rather than flattened in, because a flattened field is read from a
/// buffered copy (the capture is megabytes) and its errors lose their path
/// (`payload.element.boundingBox.width`). [`SetContext::into_parts`] is the
/// only way the daemon reads it, and a test checks the two agree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetContext {
    pub element: Element,
    pub ancestors: Vec<Ancestor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<Child>>,
    pub page: PageInfo,
    /// Base64 PNG of the visible tab (may be absent when the browser refused a capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// A CSS selector that matches exactly the picked element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The page's HTML as the user sees it, so page views can read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// The page as the user sees it, with its layout (what is hidden, where
    /// each element is): read instead of `html` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dom: Option<Box<DomCapture>>,
    /// The code that renders the element (development builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PickSource>,
}

/// What a `set_context` carries besides its [`Pick`]: the daemon writes
/// these to files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PickPayload {
    pub screenshot: Option<String>,
    pub html: Option<String>,
    pub dom: Option<Box<DomCapture>>,
}

impl SetContext {
    pub fn into_parts(self) -> (Pick, PickPayload) {
        let SetContext {
            element,
            ancestors,
            children,
            page,
            screenshot,
            selector,
            html,
            dom,
            source,
        } = self;
        let pick = Pick {
            element,
            ancestors,
            children,
            page,
            selector,
            source,
        };
        (
            pick,
            PickPayload {
                screenshot,
                html,
                dom,
            },
        )
    }

    pub fn from_parts(pick: Pick, payload: PickPayload) -> SetContext {
        let Pick {
            element,
            ancestors,
            children,
            page,
            selector,
            source,
        } = pick;
        SetContext {
            element,
            ancestors,
            children,
            page,
            screenshot: payload.screenshot,
            selector,
            html: payload.html,
            dom: payload.dom,
            source,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserMessage {
    pub context_id: String,
    pub message: String,
    /// The agent to ask; without it, the tab's selected agent (or the only one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectAgent {
    pub agent_id: String,
}

/// The token, when it could not travel as a subprotocol: the first frame,
/// flat as pairing describes it: `{"type": "hello", "token": "…"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// Always "hello".
    #[serde(rename = "type")]
    pub kind: String,
    pub token: String,
}

/// The token of a hello frame, if `text` is one.
pub fn parse_hello(text: &str) -> Option<String> {
    serde_json::from_str::<Hello>(text)
        .ok()
        .filter(|h| h.kind == "hello")
        .map(|h| h.token)
}

/// What the daemon sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum ServerFrame {
    /// The selection is stored (on disk) under this id.
    ContextStored(ContextStored),
    /// The message is stored and queued for this agent.
    MessageStored(MessageStored),
    /// The message is stored, but no agent is connected: the next one to
    /// connect gets it (then `message_stored` names it).
    MessageWaiting(MessageWaiting),
    /// What the agent is doing; `idle` clears it (sent when an answer is
    /// complete and when the agent disconnects).
    StatusUpdate(StatusUpdate),
    /// An answer, complete: its whole text (it replaces the parts shown).
    AgentResponse(AgentResponse),
    /// The next part of an answer still being written.
    AgentResponseChunk(AgentResponseChunk),
    /// An answer that will not be completed: its text as it stands, and why.
    AnswerClosed(AnswerClosed),
    /// The coding agents connected now, sent on connect and on every change.
    Agents(Agents),
    Error(ErrorFrame),
    Pong,
    /// Asks the tab for its current HTML, checked against `selector` when
    /// there is one; answered by an `html` frame with the same `requestId`.
    GetHtml(GetHtml),
    /// A view of the tab's latest captured page, answering `get_view`.
    View(Box<ViewFrame>),
    /// The tab's earlier messages, oldest first, answering `get_history`.
    History(History),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetHtml {
    pub request_id: String,
    /// A CSS selector that must match in the live page; without one, the
    /// whole page is wanted (the built-in agent picks its chunk itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewFrame {
    pub request_id: String,
    /// The view's name, as asked.
    pub view: String,
    /// Tokens (o200k) of the view's text, as an agent reads it.
    #[serde(default)]
    pub tokens: usize,
    /// The page the view was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// One line per node, in order.
    #[serde(default)]
    pub lines: Vec<ViewLine>,
    /// Why there is no view (nothing captured yet, an unreadable capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A line of a view: its text (page content: show it as text only), the
/// element it stands for, and for the outline the tokens of its HTML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ViewLine {
    pub text: String,
    /// A CSS selector matching the line's element alone, in the captured page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextStored {
    pub context_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageStored {
    pub context_id: String,
    pub agent_id: String,
    /// The message's id: every frame of an answer to it names it.
    pub message_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageWaiting {
    pub context_id: String,
    /// The message's id, which the later `message_stored` names too.
    pub message_id: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Idle,
    Thinking,
    Searching,
    Editing,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatusUpdate {
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentResponse {
    pub context_id: String,
    /// The user message this answers (`message_stored`'s `messageId`).
    pub message_id: String,
    /// Markdown.
    pub message: String,
    pub is_complete: bool,
    /// The built-in agent's structured answer, beside its words.
    // Boxed: every other frame is small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<AgentResult>>,
}

/// What the built-in agent's run gave besides its reply: the changes it
/// proposes (shown, never applied to the page) and what the run cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentResult {
    /// The DOM changes, as the model wrote them.
    pub dom_changes: serde_json::Value,
    /// How to apply them (e.g. "append", "replace"), as the model said.
    pub action: serde_json::Value,
    /// Model calls made.
    pub iterations: u32,
    /// Tokens over every call, as the provider counted them.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Why the run sent the whole page instead of a view, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentResponseChunk {
    pub context_id: String,
    /// The user message this answers (`message_stored`'s `messageId`).
    pub message_id: String,
    pub chunk: String,
}

/// An answer left open, closed by the daemon: no more parts will come.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerClosed {
    pub context_id: String,
    /// The user message it answered.
    pub message_id: String,
    /// The answer's text as it stands (Markdown), unfinished.
    pub message: String,
    pub reason: CloseReason,
}

/// Why an answer was closed before it was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// The agent's connection to the daemon dropped (it stopped or was killed).
    Disconnected,
    /// Another agent started answering the same message.
    Superseded,
}

impl CloseReason {
    /// What the user is told, under the unfinished answer.
    pub fn said(self) -> &'static str {
        match self {
            CloseReason::Disconnected => "the agent disconnected before it finished this answer",
            CloseReason::Superseded => {
                "another agent answered this message before this answer was finished"
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Agents {
    pub protocol_version: u32,
    pub agents: Vec<AgentInfo>,
    /// The agent this tab talks to, when one is chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentInfo {
    pub agent_id: String,
    /// The project directory the agent works in.
    pub project: String,
    /// The agent's client, as it named itself (e.g. "claude-code"); for the
    /// built-in agent, its name with the provider and model.
    pub client: String,
    /// The daemon's own agent (a model it calls), not a coding agent: it
    /// has no project.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub built_in: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorFrame {
    /// A stable code: `bad_frame`, `unauthorized`, `too_large`, `unknown_context`,
    /// `choose_agent`, `unknown_agent`, `storage`, `unknown_request`,
    /// `agent_failed` (the built-in agent's run ended without an answer).
    pub code: String,
    pub message: String,
}

/// Reads one client frame; the error names the field at fault.
pub fn parse_client_frame(text: &str) -> Result<ClientFrame, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, ClientFrame>(&mut de) {
        Ok(frame) => de
            .end()
            .map(|_| frame)
            .map_err(|_| "the frame has trailing characters after its JSON object".to_string()),
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            Err(if path == "." || path.is_empty() {
                format!("not a valid frame: {inner}")
            } else {
                format!("not a valid frame at {path}: {inner}")
            })
        }
    }
}

/// A tab's session id: the lowercase hex SHA-256 of (tab id, origin, time),
/// made by the extension. It names files, so nothing else is accepted.
pub fn is_session_id(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The JSON Schema of both directions, as checked in.
pub fn json_schema() -> serde_json::Value {
    let client = schemars::schema_for!(ClientFrame);
    // What the daemon writes: a field it always writes is required, even
    // where a reader may go without it.
    let server = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ServerFrame>();
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "webfold daemon WebSocket protocol",
        "version": PROTOCOL_VERSION,
        "description": "Frames between the webfold extension and the webfold daemon, at ws://127.0.0.1:PORT/ws?sessionId=…",
        "extensionToDaemon": client,
        "helloFrame": schemars::schema_for!(Hello),
        "daemonToExtension": server,
        "extensionToHost": schemars::schema_for!(crate::native::HostRequest),
        "hostToExtension": schemars::schema_for!(crate::native::HostReply),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_as_the_extension_writes_them() {
        let f = parse_client_frame(r#"{"type":"ping"}"#).unwrap();
        assert_eq!(f, ClientFrame::Ping);
        let f = parse_client_frame(
            r#"{"type":"user_message","payload":{"contextId":"c1","message":"make it blue"}}"#,
        )
        .unwrap();
        assert!(matches!(f, ClientFrame::UserMessage(m) if m.message == "make it blue"));
        let f = parse_client_frame(
            r#"{"type":"set_context","payload":{"element":{"tagName":"BUTTON","classList":["cta"],"textContent":"Buy","attributes":{"type":"submit"},"boundingBox":{"x":1,"y":2,"width":30,"height":10}},"ancestors":[{"tagName":"FORM","classList":[]}],"page":{"url":"http://x/","title":"X"},"screenshot":"iVBORw0KGgo="}}"#,
        )
        .unwrap();
        assert!(matches!(f, ClientFrame::SetContext(c) if c.element.tag_name == "BUTTON"));
    }

    #[test]
    fn mistakes_name_the_field() {
        for (frame, says) in [
            (r#"{"type":"fly"}"#, "unknown variant `fly`"),
            (
                r#"{"type":"user_message","payload":{"contextId":"c"}}"#,
                "missing field `message`",
            ),
            (
                r#"{"type":"user_message","payload":{"contextId":"c","message":"m","extra":1}}"#,
                "unknown field `extra`",
            ),
            (
                r#"{"type":"set_context","payload":{"element":{"tagName":"A","classList":[],"textContent":"","attributes":{},"boundingBox":{"x":0,"y":0,"width":"wide","height":0}},"ancestors":[],"page":{"url":"u","title":"t"}}}"#,
                "payload.element.boundingBox.width",
            ),
            ("not json", "not a valid frame"),
        ] {
            let e = parse_client_frame(frame).unwrap_err();
            assert!(e.contains(says), "{frame}: {e}");
        }
    }

    #[test]
    fn a_set_context_is_a_pick_and_its_payload() {
        let pick = r#"{"element":{"tagName":"A","id":"x","classList":["c"],"textContent":"t","attributes":{"href":"/"},"boundingBox":{"x":0.0,"y":1.0,"width":2.0,"height":3.0}},"ancestors":[{"tagName":"P","classList":[]}],"children":[{"tagName":"B","classList":[]}],"page":{"url":"u","title":"t"},"selector":"a#x"}"#;
        let as_pick: Pick = serde_json::from_str(pick).unwrap();
        let frame: SetContext = serde_json::from_str(pick).unwrap();
        let (from_frame, payload) = frame.clone().into_parts();
        assert_eq!(from_frame, as_pick);
        assert_eq!(payload, PickPayload::default());
        assert_eq!(SetContext::from_parts(from_frame, payload), frame);
        assert_eq!(
            serde_json::to_value(&frame).unwrap(),
            serde_json::to_value(&as_pick).unwrap()
        );
    }

    #[test]
    fn session_ids_are_lowercase_sha256_hex() {
        assert!(is_session_id(&"ab12".repeat(16)));
        for bad in [
            "".to_string(),
            "AB12".repeat(16),
            "ab12".repeat(15),
            format!("{}g", "a".repeat(63)),
            format!("../{}", "a".repeat(61)),
        ] {
            assert!(!is_session_id(&bad), "{bad}");
        }
    }
}
