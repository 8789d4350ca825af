//! `webfold snapshot`: the accessibility snapshot an agent acts on (seed 001).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Parser;
use webfold_core::snapshot::{self, SnapshotOptions, SnapshotSession};

use crate::flags::Flags;
use crate::input::{Input, ViewInput};

/// Print the page's accessibility snapshot (Playwright's YAML), cut to a budget.
///
/// By default only interactive elements are counted and kept, highest priority
/// first (buttons, inputs, form controls, links, …), with the headings and
/// live regions (status, alert, log: their text first) that say where they are
/// and what the page just answered, and their ancestors, in at most
/// --max-elements elements and --max-tokens tokens (exact, header included).
/// Whatever is cut is counted in a closing line that says where it is and how
/// to get it. --full prints everything, byte-identical to Playwright when no
/// --session is given.
#[derive(Parser)]
#[command(after_help = "Examples:
  webfold snapshot page.html
  webfold snapshot page.html --full --mode aria
  webfold snapshot page.html --ref e12 --all-roles
  webfold snapshot a.html --url https://shop.example/a --session s.json
  webfold snapshot b.html --url https://shop.example/b --session s.json   # site chrome deduped
  webfold snapshot b.html --url https://shop.example/b --session s.json --diff   # only what changed")]
pub struct Args {
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<SnapshotOptions>,
    /// Keep snapshot state (history, stable refs, previous page) in this JSON file
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    /// The page's address, for history and same-site dedup (default: the input's)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Print the snapshot and its counts as JSON,
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = args.input.load()?;
    let page = input.page()?;
    let url = page_url(args.url.as_deref(), &input, &args.input.input);
    let options = args.input.ctx(args.view.request);
    let scope = options.scope()?;
    let mut session = match &args.session {
        Some(path) => Some(load_session(path)?),
        None => None,
    };
    let snap = snapshot::snapshot(&page, &url, &scope, &options, session.as_mut())?;
    if let (Some(path), Some(s)) = (&args.session, &session) {
        save_session(path, s)?;
    }
    if args.json {
        crate::out::line(&serde_json::to_string(&snap)?)
    } else if options.full_snapshot {
        crate::out::view(&snap.text, snap.tokens, None)
    } else {
        crate::out::view(&snap.text, snap.tokens, Some(options.max_tokens))
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
