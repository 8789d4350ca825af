//! `webfold agent`: a model acts on a page through the agent loop.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Parser, ValueEnum};
use webfold_agent::{
    AgentOptions, AgentView, CancellationToken, Current, FinalTool, Outcome, PageContext, Provider,
    ProviderConfig, ProviderKind,
};

use webfold_agent::team::{Ending, TeamOptions, TeamRun, User, run_team};
use webfold_browser::BrowserOptions;
use webfold_live::LiveBrowser;

use crate::input::ViewInput;

/// Ask a model to do something on a page: it reads a small view of the page,
/// fetches the HTML of the parts it needs with get_html_chunk, and answers
/// through one structured tool (by default {domChanges, response, action}).
///
/// When that loop ends without a valid answer (no tool call, the iteration
/// cap, an answer that still breaks the schema after one correction), one
/// call with the full HTML takes over; --json reports why. The API key comes
/// from ANTHROPIC_API_KEY or OPENAI_API_KEY; a server on 127.0.0.1 or
/// localhost needs none. Ctrl-C cancels the call in flight.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold agent page.html --task 'Make the hero headline shorter'
  webfold agent https://example.com --task 'What does this page sell?' --provider openai --json
  webfold agent page.html --task '…' --provider openai --base-url http://127.0.0.1:8080/v1 --model local
  webfold agent page.html --task '…' --schema answer.schema.json --view cnt --max-iterations 3
  webfold agent https://example.com/login --task 'Sign in as demo' --act --max-iterations 8")]
pub struct Args {
    #[command(flatten)]
    input: ViewInput,
    /// What to do on the page, in your words
    #[arg(long)]
    task: String,
    #[command(flatten)]
    model: ModelArgs,
    /// JSON Schema (an object schema) of the final answer; its title names the tool
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// The view of the page the model is given first: any view of a whole
    /// page, by its command name
    #[arg(long, value_name = "NAME", default_value = "outline", value_parser = ViewParser)]
    view: AgentView,
    /// Token budget of that view
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(100..=200_000))]
    view_max_tokens: Option<u32>,
    /// Model calls before falling back to the full HTML
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=50))]
    max_iterations: u32,
    /// Send the full HTML at once instead of a view and chunks
    #[arg(long)]
    no_chunking: bool,
    /// Act on the page in Chromium instead: an operator plans the task (and
    /// asks you what is missing), an agent takes one action per call on the
    /// page's CNT (--max-iterations actions, --view-max-tokens each), a
    /// corrector checks each step on the page, a lookup finds elements the
    /// agent cannot name; prints every call (INPUT is a URL)
    #[arg(long)]
    act: bool,
    /// Wait for whole replies instead of streaming them
    #[arg(long)]
    no_stream: bool,
    /// Seconds to wait for one reply
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
    /// Print {output, mode, iterations, fallback, corrected, usage, calls, …} as JSON
    #[arg(long)]
    json: bool,
}

/// The model to call: `webfold agent`'s flags, and `webfold daemon`'s for
/// its built-in agent.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// Which API to call [default: anthropic]
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// The server: Anthropic's base (https://api.anthropic.com) or an
    /// OpenAI-compatible base ending in /v1 (https://api.openai.com/v1,
    /// http://127.0.0.1:8080/v1)
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model name [default: claude-sonnet-4-5 or gpt-4.1]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

impl ModelArgs {
    /// The provider's configuration, its key from the environment.
    pub fn config(&self, kind: ProviderKind) -> anyhow::Result<ProviderConfig> {
        Ok(ProviderConfig::from_env(
            kind,
            self.base_url.as_deref(),
            self.model.as_deref(),
        )?)
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ProviderArg {
    Anthropic,
    Openai,
}

impl ProviderArg {
    pub fn kind(self) -> ProviderKind {
        match self {
            ProviderArg::Anthropic => ProviderKind::Anthropic,
            ProviderArg::Openai => ProviderKind::OpenAi,
        }
    }
}

/// `--view`: a view of the registry the agent can be given, listed in the
/// help; any other name is refused with the core's reason.
#[derive(Clone)]
struct ViewParser;

impl clap::builder::TypedValueParser for ViewParser {
    type Value = AgentView;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<AgentView, clap::Error> {
        let name = value.to_string_lossy();
        AgentView::named(name.trim()).map_err(|e| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("--view: {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = AgentView::usable().into_iter();
        Some(Box::new(names.map(clap::builder::PossibleValue::new)))
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let kind = args
        .model
        .provider
        .map_or(ProviderKind::Anthropic, ProviderArg::kind);
    let mut cfg = args.model.config(kind)?;
    cfg.stream = !args.no_stream;
    cfg.timeout = Duration::from_secs(args.timeout);
    let final_tool = match &args.schema {
        Some(path) => FinalTool::from_schema(read_schema(path)?)?,
        None => FinalTool::default(),
    };
    let opts = AgentOptions {
        view: args.view,
        view_max_tokens: args.view_max_tokens.map(|n| n as usize),
        max_iterations: args.max_iterations,
        chunking: !args.no_chunking,
        final_tool,
    };
    if args.act {
        return act(&args, &cfg);
    }
    if args.input.browser.browser {
        return live(&args, &cfg, &opts);
    }
    let input = args.input.load()?;
    let page = input.page()?;
    // The fallback sends the page as the model would see it live: the
    // rendered DOM with --browser, else the HTML as given.
    let html = match (&input.live, page.document_element()) {
        (Some(_), Some(root)) => page.outer_html(root),
        _ => input.text(),
    };
    let url = super::view::page_url(None, &input, &args.input.input);
    let context = PageContext::new(page, html, url, args.input.encoding);
    let provider = Provider::new(cfg.clone())?;

    let outcome = with_ctrl_c(|cancel| async move {
        Ok(webfold_agent::run(&provider, &context, &args.task, &opts, &cancel).await?)
    })?;
    print(&outcome, &cfg, args.json)
}

/// `--browser`: the page stays open in Chromium for the whole run, and each
/// `get_html_chunk` reads the tab again, so chunks are the live DOM's.
fn live(args: &Args, cfg: &ProviderConfig, opts: &AgentOptions) -> anyhow::Result<()> {
    let url = crate::input::browser_url(&args.input.input)?;
    let provider = Provider::new(cfg.clone())?;
    let encoding = args.input.encoding;
    let chromium = args.input.browser.chromium.options();
    let outcome = with_ctrl_c(|cancel| async move {
        let browser = webfold_browser::Browser::launch(chromium).await?;
        let run = async {
            let tab = browser.new_tab().await?;
            tab.navigate(&url).await?;
            let source = LiveTab { tab, encoding };
            let first = source.read().await?;
            let outcome =
                webfold_agent::run_live(&provider, &first, &source, &args.task, opts, &cancel)
                    .await;
            // A browser we attached to keeps running; only our tab goes.
            let _ = source.tab.close().await;
            anyhow::Ok(outcome?)
        }
        .await;
        browser.close().await;
        run
    })?;
    print(&outcome, cfg, args.json)
}

/// A Chromium tab as the source of chunks.
struct LiveTab {
    tab: webfold_browser::Tab,
    encoding: webfold_core::tokens::Encoding,
}

impl LiveTab {
    /// The tab's page now, with its real layout.
    async fn read(&self) -> Result<PageContext, webfold_browser::BrowserError> {
        let captured = self.tab.capture().await?;
        let html = match captured.page.document_element() {
            Some(root) => captured.page.outer_html(root),
            None => String::new(),
        };
        Ok(PageContext::new(
            captured.page,
            html,
            captured.url,
            self.encoding,
        ))
    }
}

impl webfold_agent::PageSource for LiveTab {
    async fn current(&self, _args: &serde_json::Map<String, serde_json::Value>) -> Current {
        match self.read().await {
            Ok(now) => Current::Fresh(now),
            Err(e) => Current::Stale(format!(
                "Note: the browser tab could not be read just now ({e}), so this is the page as first loaded; it may be out of date."
            )),
        }
    }
}

/// Runs `work` on a runtime of its own; Ctrl-C cancels its token.
fn with_ctrl_c<T, F, Fut>(work: F) -> anyhow::Result<T>
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let cancel = CancellationToken::new();
        let on_ctrl_c = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_ctrl_c.cancel();
            }
        });
        work(cancel).await
    })
}

/// `--act`: seed 003's agents in a live tab.
fn act(args: &Args, cfg: &ProviderConfig) -> anyhow::Result<()> {
    let url = args.input.input.trim();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        bail!("--act opens the page in a browser: give an http(s) URL, not '{url}'");
    }
    let provider = Provider::new(cfg.clone())?;
    let opts = TeamOptions {
        max_actions: args.max_iterations as usize,
        view_max_tokens: args
            .view_max_tokens
            .map_or(TeamOptions::default().view_max_tokens, |n| n as usize),
        ..TeamOptions::default()
    };
    let run = with_ctrl_c(|cancel| async move {
        let live = LiveBrowser::new(BrowserOptions::default());
        let run = async {
            let page = live.page(None).await?;
            let mut page = page.lock().await;
            page.tab().navigate(url).await?;
            let mut user = Terminal;
            anyhow::Ok(
                run_team(&provider, &args.task, &mut *page, &mut user, &opts, &cancel).await?,
            )
        }
        .await;
        live.shutdown().await;
        run
    })?;
    if args.json {
        let report = Report {
            run: &run,
            provider: cfg.kind,
            model: &cfg.model,
        };
        return crate::out::line(&serde_json::to_string(&report)?);
    }
    print_team(&run)
}

/// The person at the terminal: the agents' words go to stderr; a question
/// waits for a line when stdin is a terminal.
struct Terminal;

impl User for Terminal {
    async fn talk(&mut self, message: &str) -> Option<String> {
        use std::io::IsTerminal;
        crate::out::note(&format!("agent: {message}"));
        if !message.trim_end().ends_with('?') || !std::io::stdin().is_terminal() {
            return None;
        }
        crate::out::prompt("you: ");
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).ok()?;
            let line = line.trim().to_string();
            (!line.is_empty()).then_some(line)
        })
        .await
        .ok()
        .flatten()
    }
}

fn print_team(run: &TeamRun) -> anyhow::Result<()> {
    for turn in &run.turns {
        let who = match turn.step {
            Some(s) => format!("[{s}] {}", turn.role.name()),
            None => turn.role.name().to_string(),
        };
        crate::out::line(&format!(
            "{} {} → {} (view: {} tokens)",
            who,
            turn.arguments.as_deref().unwrap_or("(no tool call)"),
            turn.result,
            turn.view_tokens
        ))?;
    }
    let steps = format!(
        "{}/{} steps, {} actions",
        run.steps_done,
        run.plan.len(),
        run.actions
    );
    crate::out::line(&match run.ending {
        Ending::Solved => format!("solved ({steps})"),
        Ending::NeedsInput => {
            "stopped: the task needs an answer from you (run it again with the answer in --task)"
                .to_string()
        }
        Ending::StepLimit => {
            format!("stopped at the action limit ({steps}); raise --max-iterations")
        }
    })?;
    if let Some(said) = &run.said {
        crate::out::line(said)?;
    }
    crate::out::note(&format!(
        "{} input + {} output tokens",
        run.usage.input_tokens, run.usage.output_tokens
    ));
    Ok(())
}

fn read_schema(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read the schema file '{}' (--schema takes a JSON Schema file)",
            path.display()
        )
    })?;
    match serde_json::from_str(&text) {
        Ok(v) => Ok(v),
        Err(e) => bail!("--schema '{}' is not JSON: {e}", path.display()),
    }
}

/// A run as `--json` prints it: what the run says, and which model said it.
#[derive(serde::Serialize)]
struct Report<'a, T> {
    #[serde(flatten)]
    run: &'a T,
    provider: ProviderKind,
    model: &'a str,
}

fn print(outcome: &Outcome, cfg: &ProviderConfig, json: bool) -> anyhow::Result<()> {
    if json {
        let report = Report {
            run: outcome,
            provider: cfg.kind,
            model: &cfg.model,
        };
        return crate::out::line(&serde_json::to_string(&report)?);
    }
    crate::out::line(&serde_json::to_string_pretty(&outcome.output)?)?;
    let u = outcome.usage;
    let calls = outcome.iterations;
    crate::out::note(&format!(
        "{calls} model call{} ({}), {} input + {} output tokens{}",
        if calls == 1 { "" } else { "s" },
        match outcome.mode {
            webfold_agent::Mode::Chunked => "page view and chunks",
            webfold_agent::Mode::FullHtml => "full HTML",
        },
        u.input_tokens,
        u.output_tokens,
        match &outcome.fallback {
            Some(reason) => format!("; fell back to the full HTML: {reason}"),
            None => String::new(),
        }
    ));
    Ok(())
}
