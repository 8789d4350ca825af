//! Views as one trait: every view declares here what it is called, what it
//! takes, how it runs and what it returns, and every surface runs any view
//! through [`AnyView`] and the [`VIEWS`] registry, with no code of its own
//! per view.
//!
//! - [`View`] is one view's definition: its names, its help, its request
//!   type (the options, see [`crate::contract`]), whether it reads or moves
//!   the snapshot session, and `run`, a pure function of the page.
//! - [`Envelope`] is what every view returns on every surface: the text a
//!   model reads, its exact tokens, the budget it was held to, whether
//!   anything was cut, the ways to get more ([`Hint`]s) and the view's own
//!   structured data. A surface prints the text or serializes the envelope;
//!   so a view's JSON is the same on the command line, the bridge and MCP.
//! - [`Input`] is the page a surface hands a view: parsed (or, for a view
//!   that takes any content, the bytes as received), its address, the
//!   snapshot session, and the [`Ctx`] (the surface's vocabulary and
//!   tokenizer).

pub mod held;
mod registry;

pub use registry::{VIEWS, by_name};

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::cnt::Cnt;
use crate::contract::schema::{self, OptionSpec};
use crate::contract::{Ctx, Hint, Request, Surface, ViewName, parse};
use crate::snapshot::SnapshotSession;
use crate::tokens::Encoding;
use crate::{Error, Page};

/// What a view does with the page's snapshot session (history, stable refs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionUse {
    /// Never looks at it.
    None,
    /// Resolves refs with it; leaves it as it was.
    Reads,
    /// Moves it on: records the page, numbers refs.
    Moves,
}

/// One view, declared once.
pub trait View: Sync + 'static {
    /// The options, with their defaults, ranges and doc lines.
    type Request: Request;
    /// What `run` returns before it becomes an [`Envelope`].
    type Output;
    const NAME: ViewName;
    /// One line: what the view shows (the command's summary).
    const ABOUT: &'static str;
    /// What a reader of the command's help needs beyond the options.
    const HELP: &'static str;
    /// Command lines worth copying, one per line.
    const EXAMPLES: &'static str;
    /// The MCP tool's description: short, agents pay for every word.
    const TOOL: &'static str;
    const SESSION: SessionUse = SessionUse::None;
    /// The view takes content that is not a page (text, JSON, an image) and
    /// says what it is, rather than refusing it.
    const ANY_CONTENT: bool = false;
    /// The view can also be drawn as a standalone HTML page (`Input::html`).
    const HTML_PAGE: bool = false;
    /// How a prompt names the view when a model is handed it as the page,
    /// with its article ("an outline"). None for views that show only a
    /// part a call must name (a query, an element): an agent cannot start
    /// from them.
    const ARTICLE: Option<&'static str> = None;
    /// The prompt's paragraph on how to read the view and reach the HTML
    /// behind it; set with [`View::ARTICLE`].
    const READING: Option<&'static str> = None;

    /// Every hint this view can write, one of each kind: what the contract
    /// tests spell on every surface and check against its options.
    fn hints() -> Vec<Hint>;

    /// The view of `input`'s page, with hints in `ctx`'s words and tokens
    /// counted by its tokenizer.
    fn run(request: &Self::Request, ctx: Ctx, input: &mut Input<'_>)
    -> Result<Self::Output, Error>;

    /// The output as every surface returns it.
    fn envelope(request: &Self::Request, ctx: Ctx, output: Self::Output) -> Envelope;
}

/// A page's bytes as they were received, for views that take any content.
#[derive(Clone, Copy, Debug)]
pub struct Raw<'a> {
    pub bytes: &'a [u8],
    /// The `Content-Type` it came with, when it came over HTTP.
    pub content_type: Option<&'a str>,
    /// Its media type's essence (`text/html`), from the header or sniffed;
    /// none: a page (a file, a stored page).
    pub mime: Option<&'a str>,
}

/// The page a surface hands a view, and what it knows about it.
pub struct Input<'a> {
    /// The parsed page; none when the content is not HTML.
    pub page: Option<&'a Page>,
    /// The page's address (relative links, snapshot history); "" unknown.
    pub url: &'a str,
    pub session: Option<&'a mut SnapshotSession>,
    /// The page's CNT, built once and kept with the page by a surface that
    /// keeps pages (asked for only by views that read it).
    pub cnt: Option<&'a (dyn Fn() -> &'a Cnt + Sync)>,
    /// The content as received, when the surface has it.
    pub raw: Option<Raw<'a>>,
    /// What the content is instead, when `page` is none (its content type).
    pub not_a_page: Option<String>,
    /// The surface also wants the view as a standalone HTML page, from
    /// views that have one.
    pub html: bool,
    /// The surface prints the envelope as JSON for programs, so views write
    /// the data only that JSON carries (the CNT's tree).
    pub json: bool,
    /// What the surface prints before the view (a header naming the page),
    /// given the page's title: its tokens count against the budget.
    pub frame: Option<crate::fetch_view::Frame<'a>>,
}

impl<'a> Input<'a> {
    /// A parsed page at `url` ("" when unknown), with nothing else.
    pub fn page(page: &'a Page, url: &'a str) -> Self {
        Input {
            page: Some(page),
            url,
            session: None,
            cnt: None,
            raw: None,
            not_a_page: None,
            html: false,
            json: false,
            frame: None,
        }
    }

    /// The parsed page, or the error a view that needs one gives.
    pub fn parsed(&self) -> Result<&'a Page, Error> {
        self.page.ok_or_else(|| {
            Error::NotHtml(
                self.not_a_page
                    .clone()
                    .unwrap_or_else(|| "no page was given".into()),
            )
        })
    }

    pub fn url(&self) -> Option<&'a str> {
        Some(self.url).filter(|u| !u.is_empty())
    }
}

/// What every view returns, on every surface.
#[derive(Clone, Debug)]
pub struct Envelope {
    pub view: ViewName,
    /// What a model reads: within `max_tokens`, hints spelled for the
    /// surface that asked.
    pub text: String,
    /// Exact tokens of `text`: see [`Self::tokens`].
    tokens: TextTokens,
    /// The budget `text` was held to (none: shown whole, as asked).
    pub max_tokens: Option<usize>,
    /// Whether anything was left out to stay within the limits.
    pub cut: bool,
    /// A line about the view for a reader: what it shows, where it ends.
    pub note: Option<String>,
    /// Ways to get more, structured (the text spells them).
    pub hints: Vec<Hint>,
    /// The address of the page the view was made of, when known.
    pub url: Option<String>,
    /// The page version the view was made of, where the surface keeps versions.
    pub version: Option<u32>,
    /// The view's own structured data (trees, selectors, counts).
    pub data: Map<String, Value>,
    /// The view as a standalone HTML page, when asked for and the view has one.
    pub html: Option<String>,
    /// More of the view's data as JSON object members, written while walking
    /// a tree too deep for a `Value` (the CNT's nodes). Part of the JSON
    /// programs get; left out where the text already carries the view.
    pub tree: Option<String>,
}

/// An envelope's token count: the view's own where fitting a budget had to
/// count, else counted when first read. A text that is no longer than its
/// budget in bytes fits it uncounted (a token is at least a byte), so a
/// caller that reads only the text, as a package's `.text` does, never pays
/// for a count: a third of a whole page's Markdown.
#[derive(Clone, Debug)]
struct TextTokens {
    count: OnceLock<usize>,
    encoding: Encoding,
}

/// The envelope as JSON: its fields in this order, the view's data after
/// them, and `text` and `tokens` left out where a surface hands the text
/// over apart ([`Envelope::to_json_without_text`]).
#[derive(Serialize)]
struct Wire<'a> {
    view: ViewName,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<usize>,
    cut: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "<[Hint]>::is_empty")]
    hints: &'a [Hint],
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    #[serde(flatten)]
    data: &'a Map<String, Value>,
}

impl Serialize for Envelope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.wire(true).serialize(s)
    }
}

impl Envelope {
    /// An envelope for `view` of `text`, with `data` (an object; fields the
    /// envelope carries itself, such as its `text` and `tokens`, are dropped).
    pub fn new(view: ViewName, text: String, tokens: usize, data: impl Serialize) -> Self {
        let envelope = Self::uncounted(view, text, Encoding::default(), data);
        let _ = envelope.tokens.count.set(tokens);
        envelope
    }

    /// [`Self::new`] for a text whose tokens (in `encoding`) are counted
    /// only when read.
    pub fn uncounted(
        view: ViewName,
        text: String,
        encoding: Encoding,
        data: impl Serialize,
    ) -> Self {
        let mut data = match serde_json::to_value(data) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        // The envelope's own fields win over the view's of the same name.
        for key in [
            "view",
            "text",
            "tokens",
            "max_tokens",
            "cut",
            "note",
            "hints",
            "url",
            "version",
        ] {
            data.remove(key);
        }
        Envelope {
            view,
            text,
            tokens: TextTokens {
                count: OnceLock::new(),
                encoding,
            },
            max_tokens: None,
            cut: false,
            note: None,
            hints: Vec::new(),
            url: None,
            version: None,
            data,
            html: None,
            tree: None,
        }
    }

    /// Exact tokens of `text`, counted now if the view did not.
    pub fn tokens(&self) -> usize {
        *self
            .tokens
            .count
            .get_or_init(|| crate::tokens::count(&self.text, self.tokens.encoding))
    }

    /// The count [`Self::tokens`] gives without counting: the view's own,
    /// or one already read. `None`: count [`Self::text`] in [`Self::encoding`].
    pub fn counted_tokens(&self) -> Option<usize> {
        self.tokens.count.get().copied()
    }

    /// The encoding its tokens are counted in.
    pub fn encoding(&self) -> Encoding {
        self.tokens.encoding
    }

    fn wire(&self, with_text: bool) -> Wire<'_> {
        Wire {
            view: self.view,
            text: with_text.then_some(self.text.as_str()),
            tokens: with_text.then(|| self.tokens()),
            max_tokens: self.max_tokens,
            cut: self.cut,
            note: self.note.as_deref(),
            hints: &self.hints,
            url: self.url.as_deref(),
            version: self.version,
            data: &self.data,
        }
    }

    pub fn budget(mut self, max_tokens: Option<usize>) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    pub fn cut(mut self, cut: bool, hints: Vec<Hint>) -> Self {
        self.cut = cut;
        self.hints = hints;
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        let note = note.into();
        self.note = Some(note).filter(|n| !n.is_empty());
        self
    }

    /// Keys of the JSON for programs that repeat the text or list as much:
    /// left out where the text is read beside it (MCP's structured content).
    pub const BULK: [&'static str; 6] = ["text", "html", "root", "matches", "chunks", "links"];

    /// The envelope as JSON for programs: everything, the tree included.
    pub fn to_json(&self) -> String {
        self.with_tree(serde_json::to_string(self).unwrap_or_else(|_| "{}".into()))
    }

    /// `head`, a JSON object, with the tree's members in it.
    fn with_tree(&self, head: String) -> String {
        match &self.tree {
            Some(members) if !members.is_empty() && head.ends_with('}') => {
                let sep = if head == "{}" { "" } else { "," };
                format!("{}{sep}{members}}}", &head[..head.len() - 1])
            }
            _ => head,
        }
    }

    /// [`Self::to_json`] without `text` and `tokens`: for a surface that
    /// hands the text over as a string of its own and counts it only if
    /// asked (the packages).
    pub fn to_json_without_text(&self) -> String {
        self.with_tree(serde_json::to_string(&self.wire(false)).unwrap_or_else(|_| "{}".into()))
    }

    /// [`Self::to_json`] as a value, for a surface that adds its own fields.
    /// A tree too deep for a `Value` leaves the figures without it.
    pub fn to_json_value(&self) -> Value {
        serde_json::from_str(&self.to_json()).unwrap_or_else(|_| self.figures())
    }

    /// The envelope as a JSON value without [`Self::BULK`] and the tree:
    /// the figures beside a text that is read as well.
    pub fn figures(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            for key in Self::BULK {
                o.remove(key);
            }
        }
        v
    }
}

/// Any view, as surfaces hold it: names, help, options, and a call read from
/// what the surface received.
pub trait AnyView: Sync {
    fn name(&self) -> ViewName;
    fn about(&self) -> &'static str;
    fn help(&self) -> &'static str;
    fn examples(&self) -> &'static str;
    fn tool(&self) -> &'static str;
    fn session(&self) -> SessionUse;
    fn any_content(&self) -> bool;
    fn html_page(&self) -> bool;
    /// [`View::ARTICLE`]: how a prompt names the view, when a model can be
    /// handed it as the page.
    fn article(&self) -> Option<&'static str>;
    /// [`View::READING`]: how a model reads the view.
    fn reading(&self) -> Option<&'static str>;
    fn hints(&self) -> Vec<Hint>;
    /// The options, as the request's schema declares them.
    fn options(&self) -> &'static [OptionSpec];
    /// The request's JSON Schema, compact (MCP input schemas are built from it).
    fn schema(&self) -> Map<String, Value>;
    /// The call in a JSON object's words (MCP arguments, a JSON body).
    fn call_from_json(&self, args: Map<String, Value>, ctx: Ctx) -> Result<Call, Error>;
    /// The call from `name=value` pairs (flags, a URL query).
    fn call_from_pairs(&self, pairs: Vec<(String, String)>, ctx: Ctx) -> Result<Call, Error>;
}

impl<V: View> AnyView for V {
    fn name(&self) -> ViewName {
        V::NAME
    }
    fn about(&self) -> &'static str {
        V::ABOUT
    }
    fn help(&self) -> &'static str {
        V::HELP
    }
    fn examples(&self) -> &'static str {
        V::EXAMPLES
    }
    fn tool(&self) -> &'static str {
        V::TOOL
    }
    fn session(&self) -> SessionUse {
        V::SESSION
    }
    fn any_content(&self) -> bool {
        V::ANY_CONTENT
    }
    fn html_page(&self) -> bool {
        V::HTML_PAGE
    }
    fn article(&self) -> Option<&'static str> {
        V::ARTICLE
    }
    fn reading(&self) -> Option<&'static str> {
        V::READING
    }
    fn hints(&self) -> Vec<Hint> {
        V::hints()
    }
    fn options(&self) -> &'static [OptionSpec] {
        schema::options::<V::Request>()
    }
    fn schema(&self) -> Map<String, Value> {
        schema::of::<V::Request>()
    }
    fn call_from_json(&self, args: Map<String, Value>, ctx: Ctx) -> Result<Call, Error> {
        let request = parse::from_json::<V::Request>(args, ctx.surface)?;
        Ok(Call::new::<V>(request, ctx))
    }
    fn call_from_pairs(&self, pairs: Vec<(String, String)>, ctx: Ctx) -> Result<Call, Error> {
        let request = parse::from_pairs::<V::Request, _, _, _>(pairs, ctx.surface)?;
        Ok(Call::new::<V>(request, ctx))
    }
}

/// A view's request, read and checked, ready to run on a page: what a
/// surface holds between reading a call and loading the page it names.
pub struct Call {
    name: ViewName,
    ctx: Ctx,
    request: Box<dyn Runs>,
}

impl Call {
    fn new<V: View>(request: V::Request, ctx: Ctx) -> Self {
        Call {
            name: V::NAME,
            ctx,
            request: Box::new(Typed::<V>(request, ctx)),
        }
    }

    /// A call of `V` with a request a surface built itself, spelled in `ctx`.
    pub fn of<V: View>(request: V::Request, ctx: Ctx) -> Self {
        Call::new::<V>(request, ctx)
    }

    pub fn name(&self) -> ViewName {
        self.name
    }

    /// The surface whose words the view's hints are spelled in.
    pub fn surface(&self) -> Surface {
        self.ctx.surface
    }

    /// The view of `input`, as an envelope.
    pub fn run(&self, input: &mut Input<'_>) -> Result<Envelope, Error> {
        self.request.run(input)
    }

    /// The request as JSON (what the options came to, defaults included).
    pub fn request_json(&self) -> Value {
        self.request.json()
    }
}

trait Runs: Send + Sync {
    fn run(&self, input: &mut Input<'_>) -> Result<Envelope, Error>;
    fn json(&self) -> Value;
}

struct Typed<V: View>(V::Request, Ctx);

impl<V: View> Runs for Typed<V> {
    fn run(&self, input: &mut Input<'_>) -> Result<Envelope, Error> {
        let output = V::run(&self.0, self.1, input)?;
        let mut envelope = V::envelope(&self.0, self.1, output);
        envelope.url = input.url().map(String::from);
        Ok(envelope)
    }

    fn json(&self) -> Value {
        serde_json::to_value(&self.0).unwrap_or(Value::Null)
    }
}
