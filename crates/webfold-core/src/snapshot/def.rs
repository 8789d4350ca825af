//! The snapshot and find as views every surface runs.

use super::find::{FindOptions, FindResult};
use super::{Snapshot, SnapshotOptions};
use crate::Error;
use crate::contract::{Ctx, Handle, Hint, Limit, Switch, ViewName};
use crate::view::{Envelope, Input, SessionUse, View};

pub const NAME: ViewName =
    ViewName::new("snapshot", "page_snapshot").in_browser("browser_snapshot");
pub const FIND: ViewName = ViewName::new("find", "page_find");

pub struct SnapshotView;

impl View for SnapshotView {
    type Request = SnapshotOptions;
    type Output = Snapshot;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "Print the page's accessibility snapshot (Playwright's YAML), cut to a budget";
    const HELP: &'static str = "\
By default only interactive elements are counted and kept, highest priority
first (buttons, inputs, form controls, links, …), with the headings and
live regions (status, alert, log: their text first) that say where they are
and what the page just answered, and their ancestors, in at most
--max-elements elements and --max-tokens tokens (exact, header included).
Whatever is cut is counted in a closing line that says where it is and how
to get it. An open modal dialog comes first, the page behind it after a
`# Behind the modal dialog …` line; what is in an open popover or non-modal
dialog ranks high. --full prints everything, in document order,
byte-identical to Playwright when no --session is given.";
    const EXAMPLES: &'static str = "\
webfold snapshot page.html
webfold snapshot page.html --full --mode aria
webfold snapshot page.html --ref e12 --all-roles
webfold snapshot a.html --url https://shop.example/a --session s.json
webfold snapshot b.html --url https://shop.example/b --session s.json   # site chrome deduped
webfold snapshot b.html --url https://shop.example/b --session s.json --diff   # only what changed";
    const TOOL: &'static str = "A page's accessibility tree (YAML) with [ref=eN] per interactive element, budgeted; the header says what was cut.";
    const SESSION: SessionUse = SessionUse::Moves;
    const ARTICLE: Option<&'static str> = Some("an accessibility snapshot");
    const READING: Option<&'static str> = Some(
        "YAML, one line per element with its role, its name and a [ref=eN]. Pass a ref to get_html_chunk to read that element's HTML.",
    );

    fn hints() -> Vec<Hint> {
        let r = || Handle::Ref("REF".into());
        let sel = || Handle::Selector("SEL".into());
        vec![
            Hint::Raise(Limit::MaxTokens, None),
            Hint::Raise(Limit::MaxElements, None),
            Hint::Switch(Switch::InteractiveOnly, false),
            Hint::Switch(Switch::ViewportOnly, false),
            Hint::Switch(Switch::Diff, false),
            Hint::Switch(Switch::FullSnapshot, true),
            Hint::Snapshot(r()),
            Hint::Snapshot(sel()),
            Hint::Chunk(r(), false),
            Hint::Chunk(sel(), false),
            Hint::Find,
        ]
    }

    fn run(request: &SnapshotOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<Snapshot, Error> {
        let scope = request.scope(ctx.surface)?;
        let page = input.parsed()?;
        super::snapshot(
            page,
            input.url,
            &scope,
            request,
            input.session.as_deref_mut(),
            ctx,
        )
    }

    fn envelope(request: &SnapshotOptions, _: Ctx, out: Snapshot) -> Envelope {
        let cut = out.truncation.is_some() || !out.cut_groups.is_empty();
        let hints = if cut {
            vec![Hint::Raise(Limit::MaxTokens, None), Hint::Find]
        } else {
            Vec::new()
        };
        let budget = (!request.full_snapshot).then_some(request.max_tokens);
        Envelope::new(NAME, out.text.clone(), out.tokens, &out)
            .budget(budget)
            .cut(cut, hints)
    }
}

pub struct FindView;

impl View for FindView {
    type Request = FindOptions;
    type Output = FindResult;
    const NAME: ViewName = FIND;
    const ABOUT: &'static str =
        "Find elements in the page's accessibility snapshot by text or /regex/";
    const HELP: &'static str = "\
Matches names, values, text and /url or /placeholder props (plain text:
case-insensitive). Each match prints its ancestor path and its first few
snapshot lines, with refs that `snapshot --ref` and `chunk --ref` accept.";
    const EXAMPLES: &'static str = "\
webfold find page.html 'sign in'
webfold find page.html '/^(next|older)\\b/i' --lines 2
webfold find page.html checkout --session s.json --json";
    const TOOL: &'static str = "Find elements of a page's accessibility tree by text or /regex/: each match with its path and ref.";
    const SESSION: SessionUse = SessionUse::Reads;

    fn hints() -> Vec<Hint> {
        vec![
            Hint::Raise(Limit::MaxTokens, None),
            Hint::Raise(Limit::MaxMatches, None),
            Hint::Raise(Limit::Lines, None),
            Hint::Snapshot(Handle::Ref("REF".into())),
        ]
    }

    fn run(request: &FindOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<FindResult, Error> {
        let page = input.parsed()?;
        super::find(page, input.url, request, input.session.as_deref(), ctx)
    }

    fn envelope(request: &FindOptions, _: Ctx, out: FindResult) -> Envelope {
        let cut = out.matches.len() < out.total;
        let hints = if cut {
            vec![Hint::Raise(Limit::MaxMatches, None)]
        } else {
            Vec::new()
        };
        let mut envelope = Envelope::new(FIND, out.text.clone(), out.tokens, &out)
            .budget(Some(request.max_tokens))
            .cut(cut, hints);
        envelope
            .data
            .insert("shown".into(), out.matches.len().into());
        envelope
    }
}
