//! `webfold snapshot`: the accessibility snapshot an agent acts on (seed 001).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Parser, ValueEnum};
use webfold_core::aria::Mode;
use webfold_core::snapshot::{self, Scope, SnapshotOptions, SnapshotSession};
use webfold_core::tokens::Encoding;

use crate::input::Input;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModeArg {
    /// playwright-mcp's browser_snapshot: refs, [active], [cursor=pointer]
    Ai,
    /// locator('body').ariaSnapshot(): no refs
    Aria,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Ai => Mode::Ai,
            ModeArg::Aria => Mode::Aria,
        }
    }
}

/// Print the page's accessibility snapshot (Playwright's YAML), cut to a budget.
///
/// By default only interactive elements are counted and kept, highest priority
/// first (buttons, inputs, form controls, links, …), with the headings and
/// live regions (status, alert, log: their text first) that say where they are
/// and what the page just answered, and their ancestors, in at most
/// --max-elements elements and --max-tokens tokens (exact, header included). Whatever is cut is counted in a closing line that says where it
/// is and how to get it. --full prints everything, byte-identical to
/// Playwright when no --session is given.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold snapshot page.html
  webfold snapshot page.html --full --mode aria
  webfold snapshot page.html --ref e12 --all-roles
  webfold snapshot a.html --url https://shop.example/a --session s.json
  webfold snapshot b.html --url https://shop.example/b --session s.json   # site chrome deduped
  webfold snapshot b.html --url https://shop.example/b --session s.json   # only what changed")]
pub struct Args {
    /// File path, file URL, or - for standard input
    input: String,
    /// Snapshot format
    #[arg(long, value_enum, default_value = "ai")]
    mode: ModeArg,
    /// Count and keep every role, not only interactive elements (text and structure too)
    #[arg(long)]
    all_roles: bool,
    /// Print everything: no limits, no dedup, no diff
    #[arg(long)]
    full: bool,
    /// Most elements to keep (1–1000)
    #[arg(long, default_value_t = snapshot::DEFAULT_MAX_ELEMENTS)]
    max_elements: usize,
    /// Token budget for the whole output (1000–50000)
    #[arg(long, default_value_t = snapshot::DEFAULT_MAX_TOKENS)]
    max_tokens: usize,
    /// Only elements in the viewport (needs a live page's layout)
    #[arg(long)]
    viewport_only: bool,
    /// Leave out the session's navigation breadcrumbs
    #[arg(long)]
    no_history: bool,
    /// Print the whole (budgeted) page even when the session has seen this URL
    #[arg(long)]
    no_diff: bool,
    /// Keep snapshot state (history, stable refs, previous page) in this JSON file
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    /// The page's address, for history and same-site dedup (default: the input's)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Snapshot the subtree of the first element this CSS selector matches
    #[arg(long, value_name = "SEL", conflicts_with = "aria_ref")]
    selector: Option<String>,
    /// Snapshot the subtree of the element with this ref
    #[arg(long = "ref", value_name = "REF")]
    aria_ref: Option<String>,
    /// Tokenizer vocabulary
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    /// Print the snapshot and its counts as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load_with(&args.input, &args.browser)?;
    let page = input.page();
    let url = page_url(args.url.as_deref(), &input, &args.input);
    let options = SnapshotOptions {
        mode: args.mode.into(),
        interactive_only: !args.all_roles,
        full_snapshot: args.full,
        max_elements: args.max_elements,
        max_tokens: args.max_tokens,
        viewport_only: args.viewport_only,
        include_history: !args.no_history,
        diff: !args.no_diff,
        encoding: args.encoding,
    };
    warn_if_clamped(&options);
    let scope = match (&args.selector, &args.aria_ref) {
        (Some(s), _) => Scope::Selector(s.clone()),
        (_, Some(r)) => Scope::Ref(r.clone()),
        _ => Scope::Page,
    };
    let mut session = match &args.session {
        Some(path) => Some(load_session(path)?),
        None => None,
    };
    let snap = snapshot::snapshot(&page, &url, &scope, &options, session.as_mut())?;
    if let (Some(path), Some(s)) = (&args.session, &session) {
        save_session(path, s)?;
    }
    if args.json {
        print_line(&serde_json::to_string(&snap)?)
    } else {
        print_line(&snap.text)
    }
}

/// Print a line to stdout; a reader that went away (`| head`) is not an error.
pub fn print_line(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// The URL a page is known by: `--url`, where it was fetched from, or its file.
pub fn page_url(explicit: Option<&str>, input: &Input, spec: &str) -> String {
    if let Some(u) = explicit {
        return u.to_string();
    }
    if let Some(u) = &input.url {
        return u.clone();
    }
    if spec == "-" {
        return "stdin".to_string();
    }
    let path = spec.strip_prefix("file://").unwrap_or(spec);
    match std::fs::canonicalize(path) {
        Ok(p) => format!("file://{}", p.display()),
        Err(_) => spec.to_string(),
    }
}

fn warn_if_clamped(o: &SnapshotOptions) {
    let c = o.clamped();
    if c.max_elements != o.max_elements {
        eprintln!(
            "note: --max-elements {} is outside 1–1000; using {}",
            o.max_elements, c.max_elements
        );
    }
    if c.max_tokens != o.max_tokens {
        eprintln!(
            "note: --max-tokens {} is outside 1000–50000; using {}",
            o.max_tokens, c.max_tokens
        );
    }
}

pub fn load_session(path: &Path) -> anyhow::Result<SnapshotSession> {
    match std::fs::read(path) {
        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Ok(SnapshotSession::new()),
        Ok(bytes) => serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "'{}' is not a webfold snapshot session; delete it to start a new one",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SnapshotSession::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read session file '{}'", path.display())),
    }
}

fn save_session(path: &Path, s: &SnapshotSession) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec(s)?)
        .with_context(|| format!("cannot write session file '{}'", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot write session file '{}'", path.display()))
}
