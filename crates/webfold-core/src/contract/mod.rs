//! The view contract: every view's request and the words for getting more,
//! declared once here and rendered by every surface.
//!
//! - A **request** is a view's options: a serde + schemars struct in the view's
//!   module (`OutlineOptions`, `ChunkOptions`, …) with its defaults, limits and
//!   one doc line per option. [`Request`] ties each to its [`ViewName`]; the CLI
//!   derives its flags, the HTTP bridge its query parameters and MCP its input
//!   schemas from that one declaration, and reads values back through
//!   [`parse`], so names, defaults and errors are the same everywhere.
//! - A **hint** ([`Hint`]) is a way to get more of a view: read on from a line,
//!   raise a limit, unfold an element. Views return them structured and write
//!   them into their text spelled for the surface that asked ([`Surface`]), so a
//!   CLI user reads `--start-line 201`, an MCP client `start_line: 201` and an
//!   HTTP client `start_line=201`.
//! - [`Ctx`] is what a surface knows that is not an option: its vocabulary and
//!   the tokenizer its model counts with.

pub mod fence;
mod hint;
pub mod parse;
pub mod schema;

pub use hint::{Handle, Hint, Limit, Switch, cli_positional, cli_switch};

use crate::tokens::Encoding;

/// The budget every view gets when the caller names none.
pub const DEFAULT_MAX_TOKENS: usize = 8000;

/// The surfaces whose vocabulary hints are spelled in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Surface {
    /// The `webfold` command line: `--max-tokens 16000`, `chunk --ref e3`.
    #[default]
    Cli,
    /// The HTTP bridge: `max_tokens=16000`, `chunk?ref=e3`.
    Http,
    /// MCP tools on a given page: `max_tokens: 16000`, `get_html_chunk {ref: "e3"}`.
    Mcp,
    /// MCP tools on a live browser page: snapshots are `browser_snapshot`.
    McpBrowser,
}

impl Surface {
    pub const ALL: [Surface; 4] = [
        Surface::Cli,
        Surface::Http,
        Surface::Mcp,
        Surface::McpBrowser,
    ];
}

/// What a view needs from the surface that asks, besides the request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    /// The tokenizer budgets and counts use.
    pub encoding: Encoding,
    /// Whose words hints are written in.
    pub surface: Surface,
}

impl Ctx {
    pub fn new(surface: Surface, encoding: Encoding) -> Self {
        Ctx { encoding, surface }
    }
}

/// The views, as every surface names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewName {
    Outline,
    Chunk,
    Snapshot,
    Find,
    Markdown,
    Cnt,
    Tokens,
}

impl ViewName {
    pub const ALL: [ViewName; 7] = [
        ViewName::Outline,
        ViewName::Chunk,
        ViewName::Snapshot,
        ViewName::Find,
        ViewName::Markdown,
        ViewName::Cnt,
        ViewName::Tokens,
    ];

    /// The view's name on `surface`: a subcommand, a bridge path, a tool.
    pub fn on(self, surface: Surface) -> &'static str {
        match surface {
            Surface::Cli | Surface::Http => self.cli_name(),
            Surface::Mcp | Surface::McpBrowser => self.tool_name(surface),
        }
    }

    fn cli_name(self) -> &'static str {
        match self {
            ViewName::Outline => "outline",
            ViewName::Chunk => "chunk",
            ViewName::Snapshot => "snapshot",
            ViewName::Find => "find",
            ViewName::Markdown => "markdown",
            ViewName::Cnt => "cnt",
            ViewName::Tokens => "tokens",
        }
    }

    fn tool_name(self, surface: Surface) -> &'static str {
        match self {
            ViewName::Outline => "get_dom_outline",
            ViewName::Chunk => "get_html_chunk",
            ViewName::Snapshot if surface == Surface::McpBrowser => "browser_snapshot",
            ViewName::Snapshot => "page_snapshot",
            ViewName::Find => "page_find",
            ViewName::Markdown => "web_fetch",
            ViewName::Cnt => "cnt_view",
            ViewName::Tokens => "count_tokens",
        }
    }

    /// Every hint this view can write, one of each kind: what the contract
    /// test spells on every surface and checks against its options.
    pub fn hints(self) -> Vec<Hint> {
        use Hint::*;
        let sel = || Handle::Selector("SEL".into());
        let r = || Handle::Ref("REF".into());
        let id = || Handle::Id("N".into());
        match self {
            ViewName::Outline => vec![
                Raise(Limit::MaxTokens, None),
                Chunk(sel(), false),
                Chunk(id(), false),
            ],
            ViewName::Chunk => vec![
                Raise(Limit::MaxTokens, None),
                Chunk(sel(), false),
                Chunk(sel(), true),
                Chunk(id(), false),
            ],
            ViewName::Snapshot => vec![
                Raise(Limit::MaxTokens, None),
                Raise(Limit::MaxElements, None),
                Switch(self::Switch::InteractiveOnly, false),
                Switch(self::Switch::ViewportOnly, false),
                Switch(self::Switch::Diff, false),
                Switch(self::Switch::FullSnapshot, true),
                Snapshot(r()),
                Snapshot(sel()),
                Chunk(r(), false),
                Chunk(sel(), false),
                Find,
            ],
            ViewName::Find => vec![
                Raise(Limit::MaxTokens, None),
                Raise(Limit::MaxMatches, None),
                Raise(Limit::Lines, None),
                Snapshot(r()),
            ],
            ViewName::Markdown => vec![StartLine(201), Raise(Limit::MaxTokens, None)],
            ViewName::Cnt => vec![
                Raise(Limit::MaxTokens, None),
                Expand("12.3-97".into()),
                Chunk(id(), false),
            ],
            ViewName::Tokens => vec![],
        }
    }
}

/// A view's request: its options, declared once with serde and schemars.
pub trait Request:
    serde::Serialize + serde::de::DeserializeOwned + schemars::JsonSchema + Default + 'static
{
    const VIEW: ViewName;
    /// Takes the surface's vocabulary and tokenizer.
    fn set_ctx(&mut self, ctx: Ctx);
    /// Rules across options (exactly one of several, say), checked when the
    /// request is read so every surface refuses the same calls.
    fn validate(&self) -> Result<(), crate::Error> {
        Ok(())
    }
    /// The request with the surface's vocabulary and tokenizer.
    fn with_ctx(mut self, ctx: Ctx) -> Self {
        self.set_ctx(ctx);
        self
    }
}
