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

/// A view's names, one per surface: its subcommand and bridge path, and
/// its MCP tool (on a given page and on a live browser page). Each view
/// declares its own (`view::View::NAME`); the registry lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewName {
    cli: &'static str,
    tool: &'static str,
    browser_tool: &'static str,
}

impl ViewName {
    /// A view called `cli` on the command line and the bridge, `tool` over MCP.
    pub const fn new(cli: &'static str, tool: &'static str) -> Self {
        ViewName {
            cli,
            tool,
            browser_tool: tool,
        }
    }

    /// The same view, with another tool name on live browser pages.
    pub const fn in_browser(self, browser_tool: &'static str) -> Self {
        ViewName {
            browser_tool,
            ..self
        }
    }

    /// The view's name on `surface`: a subcommand, a bridge path, a tool.
    pub fn on(self, surface: Surface) -> &'static str {
        match surface {
            Surface::Cli | Surface::Http => self.cli,
            Surface::Mcp => self.tool,
            Surface::McpBrowser => self.browser_tool,
        }
    }

    /// The view's own name: its subcommand.
    pub fn as_str(self) -> &'static str {
        self.cli
    }
}

impl std::fmt::Display for ViewName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cli)
    }
}

impl serde::Serialize for ViewName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.cli)
    }
}

/// A view's request: its options, declared once with serde and schemars.
pub trait Request:
    serde::Serialize
    + serde::de::DeserializeOwned
    + schemars::JsonSchema
    + Default
    + Clone
    + Send
    + Sync
    + 'static
{
    /// Rules across options (exactly one of several, say), checked when the
    /// request is read so every surface refuses the same calls, in its words.
    fn validate(&self, _surface: Surface) -> Result<(), crate::Error> {
        Ok(())
    }
}
