//! The `browser_*` MCP tools: a real Chromium page an agent navigates,
//! snapshots and acts on by ref. The state lives in `webfold-live`; this
//! module turns tool arguments into steps and views into tool results.
//!
//! After an action the result is the diff against the page's previous
//! snapshot when the core finds it shorter than the whole budgeted view, and
//! the whole view otherwise; the first line of the text says which.

use base64::Engine as _;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use webfold_core::contract::{Ctx, Surface};
use webfold_core::snapshot::{SnapshotOptions, SnapshotView};
use webfold_core::tokens::Encoding;
use webfold_core::view::Call;

use webfold_core::action::Action;

use crate::mcp::{ToolError, ToolResult, WebfoldTools, WithRequest, delimit, finish};
use webfold_live::{
    LiveError, LivePage, LiveView, MAX_IMAGE_SIDE, MAX_SCRIPT_STEPS, parse_target, png_size,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    /// http(s) URL
    pub url: String,
    /// Browser tab: any name, each its own tab, history and refs (default "main")
    pub page_name: Option<String>,
}

/// The browser tab a snapshot is of.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageName {
    /// Tab name (default "main")
    pub page_name: Option<String>,
}

/// browser_snapshot's arguments: the tab and the snapshot request.
pub type BrowserSnapshotArgs = WithRequest<PageName, SnapshotOptions>;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickArgs {
    /// Ref from the latest snapshot, e.g. "e12"
    #[serde(rename = "ref")]
    pub r#ref: String,
    /// Tab name (default "main")
    pub page_name: Option<String>,
    /// Whole view, not just the changes
    pub full: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypeArgs {
    /// Text field's ref
    #[serde(rename = "ref")]
    pub r#ref: String,
    /// Replaces the field's value
    pub text: String,
    /// Press Enter after
    pub submit: Option<bool>,
    /// Tab name (default "main")
    pub page_name: Option<String>,
    /// Whole view, not just the changes
    pub full: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectArgs {
    /// The select's ref
    #[serde(rename = "ref")]
    pub r#ref: String,
    /// Option values or labels
    pub values: Vec<String>,
    /// Tab name (default "main")
    pub page_name: Option<String>,
    /// Whole view, not just the changes
    pub full: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BackArgs {
    /// Tab name (default "main")
    pub page_name: Option<String>,
    /// Whole view, not just the changes
    pub full: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    /// Only this element (default: the viewport)
    #[serde(rename = "ref")]
    pub r#ref: Option<String>,
    /// Also save the full-size PNG here (.png)
    pub path: Option<String>,
    /// Tab name (default "main")
    pub page_name: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DescribeImageArgs {
    /// An image's ref
    #[serde(rename = "ref")]
    pub r#ref: String,
    /// Tab name (default "main")
    pub page_name: Option<String>,
}

/// browser_script's own arguments, beside the snapshot request.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptSteps {
    /// Steps in order, each {"action": …}: click {ref}, type {ref, text, submit?}, write {ref, text}, select {ref, values}, check {ref, checked?}, press {key}, hover {ref}, scroll_into_view {ref}, navigate {url}, back
    pub actions: Vec<Action>,
    /// Tab name (default "main")
    pub page_name: Option<String>,
    /// Whole view, not just the changes
    pub full: Option<bool>,
}

/// browser_script's arguments: its steps and the snapshot's options. Its
/// schema lists only the steps' own and leaves the options to
/// browser_snapshot's, which the description names: the same dozen options
/// twice would cost every agent ~450 tokens of the tool list.
#[derive(Debug)]
pub struct ScriptArgs(WithRequest<ScriptSteps, SnapshotOptions>);

impl<'de> Deserialize<'de> for ScriptArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        WithRequest::deserialize(d).map(ScriptArgs)
    }
}

impl JsonSchema for ScriptArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScriptArgs".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::mcp::object_schema::<ScriptSteps>(None)
    }
}

/// A live page's snapshot, after whatever the tool did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BrowserViewOutput {
    pub page: String,
    pub url: String,
    pub title: String,
    /// diff (only what changed since the page's previous snapshot), budgeted (the whole view within the budget) or full (no limits).
    pub kind: String,
    /// The snapshot: the result's text, not repeated here.
    #[serde(skip)]
    pub text: String,
    pub tokens: usize,
    pub total_elements: usize,
    pub kept_elements: usize,
    /// A script's steps, as far as it ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepOutput>,
    /// The 1-based number of the step that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StepOutput {
    pub step: usize,
    pub action: String,
    pub ok: bool,
    /// What happened, or why it failed.
    pub detail: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ScreenshotOutput {
    pub page: String,
    /// Where the full-size PNG was saved, when a path was given.
    pub path: Option<String>,
    /// Size of the capture in CSS pixels (the saved file's size).
    pub width: u32,
    pub height: u32,
    /// Size of the image returned inline (longer side at most 1024).
    pub inline_width: u32,
    pub inline_height: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImageOutput {
    pub page: String,
    pub src: String,
    pub alt: Option<String>,
    pub width: u32,
    pub height: u32,
}

/// What a call that runs steps is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    /// browser_navigate: the new page, whole.
    Navigate,
    /// One action tool; `full` forces the whole view.
    Action { full: bool },
    /// browser_script: steps reported one by one.
    Script { full: bool },
}

/// The snapshot of a call, as a registry call on the live page: the call's
/// options (else the core's defaults), diffed against the page's previous
/// snapshot only after actions, and not when `full` asks for the whole view.
/// After steps the view is of the whole page, whatever part the request names.
fn snapshot_call(request: &SnapshotOptions, run: Option<Run>) -> (Call, bool) {
    let mut opts = request.clone();
    if let Some(run) = run {
        opts.diff = matches!(
            run,
            Run::Action { full: false } | Run::Script { full: false }
        );
        (opts.selector, opts.r#ref) = (None, None);
    }
    let diff = opts.diff;
    let ctx = Ctx::new(Surface::McpBrowser, Encoding::default());
    (Call::of::<SnapshotView>(opts, ctx), diff)
}

/// The snapshot's kind in its envelope: diff, budgeted or full.
fn kind(view: &LiveView) -> &str {
    view.envelope.data["kind"].as_str().unwrap_or("budgeted")
}

/// An element count of the snapshot's envelope.
fn count(view: &LiveView, key: &str) -> usize {
    view.envelope.data[key].as_u64().unwrap_or(0) as usize
}

/// The first line of a result: which view follows, and why. It stays free
/// of page content (titles, URLs a page redirected to): only what is inside
/// the delimiters comes from the page.
fn headline(page: &str, after: Option<&str>, view: &LiveView, diff: bool) -> String {
    let after = after.map(|a| format!(" after {a}")).unwrap_or_default();
    if kind(view) == "diff" {
        return format!(
            "Diff{after}: only what changed on page \"{page}\" since its previous snapshot (full: true gives the whole view)."
        );
    }
    let why = if after.is_empty() {
        ""
    } else if !diff {
        " (full view asked for)"
    } else if !view.same_url {
        " (a different URL from the previous snapshot)"
    } else {
        " (shorter than the list of changes)"
    };
    format!("Whole view of page \"{page}\"{after}{why}.")
}

fn view_output(page: &LivePage, view: LiveView) -> BrowserViewOutput {
    BrowserViewOutput {
        page: page.name().to_string(),
        kind: kind(&view).to_string(),
        tokens: view.envelope.tokens(),
        total_elements: count(&view, "total_elements"),
        kept_elements: count(&view, "kept_elements"),
        url: view.url,
        title: view.title,
        text: view.envelope.text,
        steps: Vec::new(),
        failed_step: None,
    }
}

/// A result: the headline, any report lines, then the delimited snapshot.
fn view_result(
    headline: String,
    report: &[String],
    out: &BrowserViewOutput,
    is_error: bool,
) -> ToolResult {
    let mut text = headline;
    for line in report {
        text.push('\n');
        text.push_str(line);
    }
    text.push('\n');
    text.push_str(&delimit(&out.text));
    let mut result = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    // Figures for programs; the snapshot itself is the text, once.
    result.structured_content = Some(serde_json::to_value(out)?);
    Ok(result)
}

#[tool_router(router = browser_tool_router, vis = "pub(crate)")]
impl WebfoldTools {
    #[tool(
        name = "browser_navigate",
        description = "Open an http(s) URL in a headless browser tab and return its snapshot. Every page_name is its own tab (default \"main\").",
        annotations(destructive_hint = false)
    )]
    async fn browser_navigate(&self, Parameters(args): Parameters<NavigateArgs>) -> CallToolResult {
        let step = Action::GoTo { url: args.url };
        finish(
            self.live_steps(
                args.page_name,
                vec![step],
                &SnapshotOptions::default(),
                Run::Navigate,
            )
            .await,
        )
    }

    #[tool(
        name = "browser_snapshot",
        description = "Snapshot a browser tab as it is now: accessibility tree with [ref=eN] to act on, budgeted.",
        annotations(read_only_hint = true)
    )]
    async fn browser_snapshot(
        &self,
        Parameters(args): Parameters<BrowserSnapshotArgs>,
    ) -> CallToolResult {
        finish(self.live_snapshot(args).await)
    }

    #[tool(
        name = "browser_click",
        description = "Click an element by ref; returns what changed (full: true for the whole view). A stale ref needs a new snapshot."
    )]
    async fn browser_click(&self, Parameters(args): Parameters<ClickArgs>) -> CallToolResult {
        let step = parse_target(&args.r#ref).map(|id| Action::Click { id });
        self.one_action(args.page_name, step, args.full).await
    }

    #[tool(
        name = "browser_type",
        description = "Type into a field by ref (replaces its value; submit presses Enter); returns what changed."
    )]
    async fn browser_type(&self, Parameters(args): Parameters<TypeArgs>) -> CallToolResult {
        let step = parse_target(&args.r#ref).map(|id| Action::Type {
            id,
            text: args.text,
            submit: args.submit.unwrap_or(false),
        });
        self.one_action(args.page_name, step, args.full).await
    }

    #[tool(
        name = "browser_select",
        description = "Choose options of a select by ref (values or labels); returns what changed."
    )]
    async fn browser_select(&self, Parameters(args): Parameters<SelectArgs>) -> CallToolResult {
        let step = parse_target(&args.r#ref).map(|id| Action::Select {
            id,
            values: args.values,
        });
        self.one_action(args.page_name, step, args.full).await
    }

    #[tool(
        name = "browser_back",
        description = "Go back in the tab's history; returns what changed.",
        annotations(destructive_hint = false)
    )]
    async fn browser_back(&self, Parameters(args): Parameters<BackArgs>) -> CallToolResult {
        self.one_action(args.page_name, Ok(Action::GoBack), args.full)
            .await
    }

    #[tool(
        name = "browser_screenshot",
        description = "Screenshot the viewport or an element by ref, inline (≤1024 px) and optionally saved to path.",
        annotations(destructive_hint = false)
    )]
    async fn browser_screenshot(
        &self,
        Parameters(args): Parameters<ScreenshotArgs>,
    ) -> CallToolResult {
        finish(self.live_screenshot(args).await)
    }

    #[tool(
        name = "browser_describe_image",
        description = "The image an element with a src shows, by ref, inline with its src and alt, to describe.",
        annotations(read_only_hint = true)
    )]
    async fn browser_describe_image(
        &self,
        Parameters(args): Parameters<DescribeImageArgs>,
    ) -> CallToolResult {
        finish(self.live_image(args).await)
    }

    #[tool(
        name = "browser_script",
        description = "Run actions in order, then take one snapshot (options as browser_snapshot). Stops at the first failing step and says which."
    )]
    async fn browser_script(&self, Parameters(a): Parameters<ScriptArgs>) -> CallToolResult {
        let a = match a.0.checked() {
            Ok(a) => a,
            Err(e) => return finish(Err(e)),
        };
        let (args, request) = (a.args, a.request);
        if args.actions.len() > MAX_SCRIPT_STEPS {
            return finish(Err(LiveError::TooManySteps(args.actions.len()).into()));
        }
        if args.actions.is_empty() {
            return finish(Err(ToolError(
                "actions is empty: list the steps to run, or call browser_snapshot".into(),
            )));
        }
        finish(
            self.live_steps(
                args.page_name,
                args.actions,
                &request,
                Run::Script {
                    full: args.full.unwrap_or(false),
                },
            )
            .await,
        )
    }
}

impl WebfoldTools {
    async fn live_snapshot(&self, args: BrowserSnapshotArgs) -> ToolResult {
        let args = args.checked()?;
        let live = self.live()?;
        let (call, diff) = snapshot_call(&args.request, None);
        let page = live.page(args.args.page_name.as_deref()).await?;
        let mut page = page.lock().await;
        let view = live.bounded(page.view(call)).await?;
        let headline = headline(page.name(), None, &view, diff);
        view_result(headline, &[], &view_output(&page, view), false)
    }

    /// One action (click, type, select, back) with the default view options,
    /// answered by the diff unless `full` asks for the whole view.
    async fn one_action(
        &self,
        page: Option<String>,
        step: Result<Action, LiveError>,
        full: Option<bool>,
    ) -> CallToolResult {
        let run = Run::Action {
            full: full.unwrap_or(false),
        };
        let step = match step {
            Ok(step) => step,
            Err(e) => return finish(Err(e.into())),
        };
        finish(
            self.live_steps(page, vec![step], &SnapshotOptions::default(), run)
                .await,
        )
    }

    /// Runs steps, stopping at the first failure, then takes the one
    /// snapshot. A lone failing action is a plain error (nothing was done);
    /// a script that fails part-way still shows the page it left behind.
    async fn live_steps(
        &self,
        page: Option<String>,
        steps: Vec<Action>,
        request: &SnapshotOptions,
        run: Run,
    ) -> ToolResult {
        let live = self.live()?;
        let (call, diff) = snapshot_call(request, Some(run));
        let page = live.page(page.as_deref()).await?;
        let mut page = page.lock().await;
        let script = matches!(run, Run::Script { .. });
        let work = async {
            let mut report = Vec::new();
            let mut failed = None;
            for (i, step) in steps.iter().enumerate() {
                match page.act(step).await {
                    Ok(detail) => report.push(StepOutput {
                        step: i + 1,
                        action: step.to_string(),
                        ok: true,
                        detail,
                    }),
                    Err(e) => {
                        if !script {
                            return Err(e);
                        }
                        failed = Some(i + 1);
                        report.push(StepOutput {
                            step: i + 1,
                            action: step.to_string(),
                            ok: false,
                            detail: e.to_string(),
                        });
                        break;
                    }
                }
            }
            let view = page.view(call).await?;
            Ok((report, failed, view))
        };
        let (report, failed, view) = live.bounded(work).await?;
        let what = match (run, steps.first()) {
            (Run::Navigate, _) => None,
            (Run::Action { .. }, Some(step)) => Some(step.to_string()),
            _ => Some("the script".to_string()),
        };
        let headline = headline(page.name(), what.as_deref(), &view, diff);
        let mut lines = Vec::new();
        if script {
            let done = report.iter().filter(|s| s.ok).count();
            lines.push(match failed {
                Some(n) => format!(
                    "Step {n} of {} ({}) failed: {}; {} not run.",
                    steps.len(),
                    steps[n - 1],
                    report.last().map(|s| s.detail.as_str()).unwrap_or(""),
                    match steps.len() - n {
                        0 => "no steps were".to_string(),
                        1 => "1 step was".to_string(),
                        k => format!("{k} steps were"),
                    }
                ),
                None => format!("All {done} steps ran."),
            });
        }
        let mut out = view_output(&page, view);
        out.failed_step = failed;
        if script {
            out.steps = report;
        }
        view_result(headline, &lines, &out, failed.is_some())
    }

    async fn live_screenshot(&self, args: ScreenshotArgs) -> ToolResult {
        let live = self.live()?;
        let path = match &args.path {
            Some(p) if !p.to_ascii_lowercase().ends_with(".png") => {
                return Err(LiveError::NotPng(p.clone()).into());
            }
            Some(p) => Some(
                std::path::absolute(p)
                    .map_err(|e| ToolError(format!("cannot use path {p}: {e}")))?,
            ),
            None => None,
        };
        let page = live.page(args.page_name.as_deref()).await?;
        let page = page.lock().await;
        let target = args.r#ref.as_deref();
        let (inline, full) = live
            .bounded(async {
                let inline = page.screenshot(target, Some(MAX_IMAGE_SIDE)).await?;
                let full = match &path {
                    Some(_) => Some(page.screenshot(target, None).await?),
                    None => None,
                };
                Ok((inline, full))
            })
            .await?;
        let (inline_width, inline_height) = png_size(&inline).unwrap_or((0, 0));
        let (width, height) = match &full {
            Some(png) => png_size(png).unwrap_or((0, 0)),
            None => (inline_width, inline_height),
        };
        if let (Some(path), Some(png)) = (&path, &full) {
            std::fs::write(path, png).map_err(|e| {
                ToolError(format!(
                    "cannot write {}: {e}; pass a path in a directory that exists and is writable",
                    path.display()
                ))
            })?;
        }
        let what = match target {
            Some(r) => format!("element {r}"),
            None => "the viewport".to_string(),
        };
        let mut text = format!(
            "Screenshot of {what} on page \"{}\", shown at {inline_width}×{inline_height}",
            page.name()
        );
        match &path {
            Some(p) => text.push_str(&format!("; saved at {width}×{height} to {}", p.display())),
            None => text.push_str(" (pass path to save it as a PNG file)"),
        }
        let out = ScreenshotOutput {
            page: page.name().to_string(),
            path: path.map(|p| p.display().to_string()),
            width,
            height,
            inline_width,
            inline_height,
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&inline);
        let mut result = CallToolResult::success(vec![
            ContentBlock::text(text),
            ContentBlock::image(data, "image/png"),
        ]);
        result.structured_content = Some(serde_json::to_value(&out)?);
        Ok(result)
    }

    async fn live_image(&self, args: DescribeImageArgs) -> ToolResult {
        let live = self.live()?;
        let page = live.page(args.page_name.as_deref()).await?;
        let page = page.lock().await;
        let (png, src, alt) = live.bounded(page.image(&args.r#ref)).await?;
        let (width, height) = png_size(&png).unwrap_or((0, 0));
        let out = ImageOutput {
            page: page.name().to_string(),
            src,
            alt,
            width,
            height,
        };
        // src and alt are page content: inside the delimiters.
        let about = match &out.alt {
            Some(alt) => format!("src: {}\nalt: {alt}", out.src),
            None => format!("src: {}\n(no alt text)", out.src),
        };
        let text = format!(
            "Image of {} on page \"{}\", shown at {width}×{height}:\n{}",
            args.r#ref,
            page.name(),
            delimit(&about)
        );
        let data = base64::engine::general_purpose::STANDARD.encode(&png);
        let mut result = CallToolResult::success(vec![
            ContentBlock::text(text),
            ContentBlock::image(data, "image/png"),
        ]);
        result.structured_content = Some(serde_json::to_value(&out)?);
        Ok(result)
    }
}
