//! Every view as a subcommand: one generic adapter from the command line to
//! the core's view registry. A view's name, help, examples and options come
//! from its definition in the core; this adds how a page is named (INPUT,
//! `--browser`), the snapshot session file and how the result is printed.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Args as _, Command, FromArgMatches as _};
use webfold_core::contract::{Ctx, Surface};
use webfold_core::fetch_view::mime_essence;
use webfold_core::snapshot::SnapshotSession;
use webfold_core::view::{AnyView, Call, Input as ViewPage, Raw, SessionUse, VIEWS};

use crate::input::{Input, ViewInput};

/// The subcommand of every view in the registry.
pub fn commands() -> Vec<Command> {
    VIEWS.iter().map(|v| command(*v)).collect()
}

/// The view a subcommand names, if it names one.
pub fn named(name: &str) -> Option<&'static dyn AnyView> {
    webfold_core::view::by_name(name, Surface::Cli)
}

fn command(view: &'static dyn AnyView) -> Command {
    let examples = view.examples().replace('\n', "\n  ");
    // The input's own doc would otherwise become the command's summary.
    let mut cmd = ViewInput::augment_args(Command::new(view.name().on(Surface::Cli)))
        .about(view.about())
        .long_about(format!("{}.\n\n{}", view.about(), view.help()))
        .after_help(format!("Examples:\n  {examples}"));
    for spec in view.options() {
        for arg in crate::flags::args_for(spec) {
            cmd = cmd.arg(arg);
        }
    }
    let kept = match view.session() {
        SessionUse::None => None,
        SessionUse::Reads => {
            Some("Use this snapshot session's refs (see `snapshot --session`); it is not changed")
        }
        SessionUse::Moves => {
            Some("Keep snapshot state (history, stable refs, previous page) in this JSON file")
        }
    };
    if let Some(help) = kept {
        cmd = cmd
            .arg(
                Arg::new("session")
                    .long("session")
                    .value_name("FILE")
                    .help(help),
            )
            .arg(
                Arg::new("url")
                    .long("url")
                    .value_name("URL")
                    .help("The page's address, for history and refs (default: the input's)"),
            );
    }
    if view.html_page() {
        cmd = cmd.arg(
            Arg::new("html")
                .long("html")
                .action(ArgAction::SetTrue)
                .conflicts_with("json")
                .help("Print the same view as a standalone HTML page"),
        );
    }
    cmd.arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help(
                "Print the view as JSON (text, tokens, hints, the view's data), for programs: \
         --max-tokens budgets the text view it carries, not the JSON",
            ),
    )
}

/// The call the command line makes; an error is shown with the usage.
pub fn read(view: &'static dyn AnyView, m: &ArgMatches) -> Result<Call, clap::Error> {
    let input = ViewInput::from_arg_matches(m)?;
    let pairs = crate::flags::typed(view.options(), m);
    view.call_from_pairs(pairs, Ctx::new(Surface::Cli, input.encoding))
        .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n")))
}

pub fn run(view: &'static dyn AnyView, call: Call, m: &ArgMatches) -> anyhow::Result<()> {
    let args = ViewInput::from_arg_matches(m)?;
    let input = args.load()?;
    let parsed = page_of(view, &input)?;
    let session_file = m.optional("session").map(PathBuf::from);
    let mut session = session_file.as_deref().map(load_session).transpose()?;
    // Snapshot history and refs know every page by an address; other views
    // resolve links against the address the page came from, if any.
    let mime = input.content_type.as_deref().map(mime_essence);
    let url = match view.session() {
        SessionUse::None => input.url.clone().unwrap_or_default(),
        _ => page_url(m.optional("url"), &input, &args.input),
    };
    let mut page = ViewPage {
        page: parsed.as_ref(),
        url: &url,
        session: session.as_mut(),
        cnt: None,
        raw: view.any_content().then(|| Raw {
            bytes: &input.bytes,
            content_type: input.content_type.as_deref(),
            mime: mime.as_deref(),
        }),
        not_a_page: input.content_type.clone(),
        html: m.switch("html"),
        json: m.get_flag("json"),
        frame: None,
    };
    let envelope = call.run(&mut page)?;
    if let (SessionUse::Moves, Some(path), Some(s)) = (view.session(), &session_file, &session) {
        save_session(path, s)?;
    }
    if m.get_flag("json") {
        crate::out::line(&envelope.to_json())
    } else if let Some(html) = &envelope.html {
        crate::out::line(html)
    } else {
        crate::out::view(&envelope)
    }
}

/// The parsed page; none for content a view that takes any shows as it is.
fn page_of(view: &dyn AnyView, input: &Input) -> anyhow::Result<Option<webfold_core::Page>> {
    let html = input.content_type.as_deref().is_none_or(|ct| {
        let ct = mime_essence(ct);
        ct == "text/html" || ct == "application/xhtml+xml"
    });
    if view.any_content() && !html {
        return Ok(None);
    }
    input.page().map(Some)
}

/// Arguments only some views have.
trait SomeViews {
    fn switch(&self, id: &str) -> bool;
    fn optional(&self, id: &str) -> Option<&str>;
}

impl SomeViews for ArgMatches {
    fn switch(&self, id: &str) -> bool {
        matches!(self.try_get_one::<bool>(id), Ok(Some(true)))
    }

    fn optional(&self, id: &str) -> Option<&str> {
        self.try_get_one::<String>(id)
            .ok()
            .flatten()
            .map(String::as_str)
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
