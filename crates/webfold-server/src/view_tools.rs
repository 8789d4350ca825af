//! Every view of the core's registry as an MCP tool: one generic adapter.
//! A tool's name, description and options come from the view's definition;
//! this adds where the page comes from (a conversation, a URL, HTML, a live
//! browser page, the user's tab now) and how the result is answered: a line
//! about the view, the page content fenced, and the envelope's figures as
//! structured content.

use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde::Deserialize;
use serde_json::{Map, Value};
use webfold_core::chunk::ChunkOptions;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::fetch_view::mime_essence;
use webfold_core::snapshot::SnapshotSession;
use webfold_core::tokens::Encoding;
use webfold_core::view::{AnyView, Envelope, Input, Raw, SessionUse, VIEWS};

use crate::mcp::{PageHandle, PageSource, ToolError, ToolResult, WebfoldTools, delimit, finish};

/// The page source's own parameters, besides a view's options.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewSource {
    #[serde(flatten)]
    source: PageSource,
    /// A kept version of conversation_id's page (the bridge's `version`).
    version: Option<u32>,
    live: Option<bool>,
}

/// Names the source parameters take, in the order the schema lists them.
const SOURCE: [&str; 5] = ["conversation_id", "url", "html", "page_name", "session_id"];

/// Whether a view's tool reads the user's tab now (`live`): views that name
/// their element by selector, which the tab can match.
fn reads_live(view: &dyn AnyView) -> bool {
    view.options().iter().any(|o| o.name == "selector")
}

/// A route per view. The first tool's description names the page sources
/// once for all (agents pay for every word of the list).
pub(crate) fn routes() -> Vec<ToolRoute<WebfoldTools>> {
    VIEWS
        .iter()
        .enumerate()
        .map(|(i, view)| {
            let pages = if i == 0 {
                " Page (every page tool): conversation_id, url, html or page_name."
            } else {
                ""
            };
            let tool = Tool::new(
                view.name().on(Surface::Mcp),
                format!("{}{pages}", view.tool()),
                Arc::new(input_schema(*view)),
            )
            .annotate(ToolAnnotations::new().read_only(true));
            let view: &'static dyn AnyView = *view;
            ToolRoute::new_dyn(tool, move |ctx| {
                let args = ctx.arguments.clone().unwrap_or_default();
                let tools = ctx.service;
                Box::pin(async move {
                    Ok(CallToolResponse::Complete(finish(
                        call(tools, view, args).await,
                    )))
                })
            })
        })
        .collect()
}

/// The page sources beside the view's options, in one object schema.
fn input_schema(view: &dyn AnyView) -> Map<String, Value> {
    let mut props = Map::new();
    for name in SOURCE {
        let mut p = serde_json::json!({"type": "string"});
        if name == "session_id" {
            // Only views that keep or read snapshot state take one.
            if view.session() == SessionUse::None {
                continue;
            }
            p["description"] = "Snapshot session (history, refs)".into();
        }
        props.insert(name.into(), p);
    }
    // `version` (a kept version of a conversation's page, as on the bridge)
    // is taken but not listed: the list costs every agent tokens.
    if reads_live(view) {
        props.insert(
            "live".into(),
            serde_json::json!({"type": "boolean", "description": "true: from the user's browser tab now, not the copy of conversation_id (selector only)"}),
        );
    }
    let options = view.schema();
    if let Some(p) = options.get("properties").and_then(Value::as_object) {
        props.extend(p.clone());
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(props));
    if let Some(req) = options.get("required") {
        out.insert("required".into(), req.clone());
    }
    out
}

pub(crate) async fn call(
    tools: &WebfoldTools,
    view: &'static dyn AnyView,
    args: Map<String, Value>,
) -> ToolResult {
    let (src, options) = split(view, args, tools.ctx().groups.ui)?;
    let surface = if src.source.page_name.is_some() {
        Surface::McpBrowser
    } else {
        Surface::Mcp
    };
    let call = view.call_from_json(options, Ctx::new(surface, Encoding::default()))?;
    let live = src.live == Some(true);
    let (page, fetched) = if live {
        if src.version.is_some() {
            return Err(ToolError(
                "live: true reads the tab as it is now, not a kept version: leave out version"
                    .into(),
            ));
        }
        let selector = call.request_json()["selector"].as_str().map(String::from);
        let request = ChunkOptions {
            selector,
            ..Default::default()
        };
        (tools.live_tab_page(&src.source, &request).await?, None)
    } else if view.any_content() && src.source.page_name.is_none() && src.source.url.is_some() {
        fetch(tools, &src.source).await?
    } else {
        (tools.page_at(&src.source, src.version).await?, None)
    };
    let session: Option<Arc<Mutex<SnapshotSession>>> = match (view.session(), live) {
        (SessionUse::None, _) => None,
        (_, true) => Some(Arc::default()),
        _ => Some(tools.session_for(&src.source, &page)),
    };
    let live_url = page.url().to_string();
    let status = match &page {
        PageHandle::Fetched { status, .. } => Some(*status),
        _ => None,
    };
    let envelope = tokio::task::spawn_blocking(move || -> Result<Envelope, ToolError> {
        let mut session = session
            .as_ref()
            .map(|s| s.lock().unwrap_or_else(|p| p.into_inner()));
        let (raw, not_a_page) = match &fetched {
            Some(f) => (
                Some(Raw {
                    bytes: &f.body,
                    content_type: f.content_type.as_deref(),
                    mime: Some(&f.mime),
                }),
                Some(f.mime.clone()),
            ),
            None => (None, None),
        };
        let cached = page.cached();
        let kept = cached.map(|l| move || l.cnt());
        let mut input = Input {
            page: page.parsed(),
            url: page.url(),
            session: session.as_deref_mut(),
            cnt: kept.as_ref().map(|f| f as _),
            raw,
            not_a_page,
            html: false,
            // Structured content leaves the tree to the text.
            json: false,
            frame: None,
        };
        Ok(call.run(&mut input)?)
    })
    .await??;
    let mut note = envelope.note.clone().unwrap_or_default();
    let mut figures = envelope.figures();
    if live {
        note.push_str(&format!(
            "; live from the browser tab ({live_url}), node ids of this live read only"
        ));
    }
    // What a fetched response was, before its view: "URL (status, format)".
    if let Some(status) = status {
        let format = figures["format"].as_str().unwrap_or("markdown").to_string();
        note = format!("{live_url} ({status}, {format}) {note}");
        figures["status"] = status.into();
    }
    fenced(note.trim().to_string(), &envelope.text, figures)
}

/// The call's arguments: the page source's and the view's options; a name
/// that is neither is refused with the valid ones.
fn split(
    view: &dyn AnyView,
    args: Map<String, Value>,
    ui: bool,
) -> Result<(ViewSource, Map<String, Value>), ToolError> {
    let mut own: Vec<&str> = SOURCE
        .into_iter()
        .filter(|&n| n != "session_id" || view.session() != SessionUse::None)
        .collect();
    own.push("version");
    if ui && reads_live(view) {
        own.push("live");
    }
    let (mut source, mut options) = (Map::new(), Map::new());
    for (k, v) in args {
        if own.contains(&k.as_str()) {
            source.insert(k, v);
        } else if view.options().iter().any(|o| o.name == k) {
            options.insert(k, v);
        } else {
            // Errors name what the tool lists (`version` is not listed).
            let mut valid: Vec<&str> = own
                .iter()
                .copied()
                .filter(|n| *n != "version")
                .chain(view.options().iter().map(|o| o.name.as_str()))
                .collect();
            valid.sort_unstable();
            return Err(ToolError(format!(
                "unknown parameter '{k}': valid parameters are {}",
                valid.join(", ")
            )));
        }
    }
    let src = serde_path_to_error::deserialize(Value::Object(source)).map_err(|e| {
        let path = e.path().to_string();
        ToolError(crate::extract::data_reason(
            &path,
            &e.into_inner().to_string(),
        ))
    })?;
    Ok((src, options))
}

/// A URL fetched for a view that shows any content: the page when it is
/// HTML, and the response as it came.
async fn fetch(
    tools: &WebfoldTools,
    src: &PageSource,
) -> Result<(PageHandle, Option<webfold_fetch::Fetched>), ToolError> {
    let url = src.url.clone().unwrap_or_default();
    let fetched = tools.fetcher()?.fetch(&url).await?;
    let essence = mime_essence(&fetched.mime);
    let html = essence == "text/html" || essence == "application/xhtml+xml";
    let final_url = fetched.final_url.to_string();
    let status = fetched.status;
    let page = if html {
        // Decoded from the body in place: the bytes stay for the view.
        let text =
            webfold_core::decode::decode_html(&fetched.body, fetched.content_type.as_deref()).text;
        Some(
            tokio::task::spawn_blocking(move || webfold_core::Page::parse(&text))
                .await
                .map_err(|e| ToolError(format!("parsing failed: {e}")))?,
        )
    } else {
        None
    };
    Ok((
        PageHandle::Fetched {
            page,
            url: final_url,
            status,
        },
        Some(fetched),
    ))
}

/// The text an agent reads (a one-line note, then the page content fenced),
/// and for programs the view's figures as structured content: never the
/// view's text again, which would double what the call costs.
pub(crate) fn fenced(note: String, content: &str, figures: Value) -> ToolResult {
    let text = if note.is_empty() {
        delimit(content)
    } else {
        format!("{note}\n{}", delimit(content))
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(figures);
    Ok(result)
}
