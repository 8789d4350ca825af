//! What the loop knows of the page: the view the system prompt carries, the
//! `get_html_chunk` tool answered from the same page, and the full HTML for
//! the fallback. Views come from the core's registry and chunks from its
//! chunk request (the view contract), spelled for the MCP surface, whose tool
//! name is ours too.

use serde_json::{Map, Value};
use webfold_core::chunk::{self, ChunkOptions};
use webfold_core::contract::{Ctx, Surface, fence, parse, schema};
use webfold_core::select::UniqueSelectors;
use webfold_core::tokens::Encoding;
use webfold_core::view::{AnyView, Input, VIEWS, by_name};
use webfold_core::{Error, NodeId, Page};

use crate::message::ToolSpec;
use crate::prompts;

/// Name of the chunk tool, as on the MCP surface.
pub const CHUNK_TOOL: &str = "get_html_chunk";

/// Hints in views and chunk answers name MCP tools and parameters
/// (`get_html_chunk {selector: …}`): the names the model is given here.
const SURFACE: Surface = Surface::Mcp;

/// The view the system prompt carries: a view of the core's registry that
/// shows a whole page and says how a model reads it (its
/// [`AnyView::article`] and [`AnyView::reading`]). Views that show only a
/// part a call names (find, chunk) cannot be the page the agent starts from.
#[derive(Clone, Copy)]
pub struct AgentView(&'static dyn AnyView);

/// A view the agent cannot be given, and the ones it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ViewChoiceError {
    #[error("unknown view '{name}': the agent can be given {usable}")]
    Unknown { name: String, usable: String },
    #[error(
        "the agent cannot be given the {name} view: it shows only the part of a page a call names ({needs}), not a page to start from; it can be given {usable}"
    )]
    PartOnly {
        name: String,
        needs: String,
        usable: String,
    },
}

impl AgentView {
    /// The view the command line calls `name`, if the agent can be given it.
    pub fn named(name: &str) -> Result<AgentView, ViewChoiceError> {
        let usable = AgentView::usable().join(", ");
        let Some(view) = by_name(name, Surface::Cli) else {
            return Err(ViewChoiceError::Unknown {
                name: name.to_string(),
                usable,
            });
        };
        if view.article().is_none() || view.reading().is_none() {
            return Err(ViewChoiceError::PartOnly {
                name: name.to_string(),
                needs: needs(view),
                usable,
            });
        }
        Ok(AgentView(view))
    }

    /// The command-line names of the views the agent can be given, in the
    /// registry's order.
    pub fn usable() -> Vec<&'static str> {
        VIEWS
            .iter()
            .filter(|v| v.article().is_some() && v.reading().is_some())
            .map(|v| v.name().on(Surface::Cli))
            .collect()
    }

    /// The view's command-line name.
    pub fn name(self) -> &'static str {
        self.0.name().on(Surface::Cli)
    }

    /// How the system prompt names the view ("an outline").
    pub fn article(self) -> &'static str {
        self.0.article().unwrap_or_default()
    }

    /// The system prompt's paragraph on how to read it.
    pub fn reading(self) -> &'static str {
        self.0.reading().unwrap_or_default()
    }
}

/// What a view that shows a named part needs: its required options, or
/// what the core says of a call with none.
fn needs(view: &dyn AnyView) -> String {
    let required: Vec<&str> = view
        .options()
        .iter()
        .filter(|o| o.required)
        .map(|o| o.name.as_str())
        .collect();
    if !required.is_empty() {
        return format!("it needs {}", required.join(", "));
    }
    match view.call_from_json(Map::new(), Ctx::new(Surface::Cli, Encoding::default())) {
        Err(e) => e.to_string(),
        Ok(_) => "it has no words for a model to read it by".to_string(),
    }
}

impl Default for AgentView {
    /// The outline.
    fn default() -> Self {
        AgentView(&webfold_core::outline::OutlineView)
    }
}

impl std::fmt::Debug for AgentView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for AgentView {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for AgentView {}

impl serde::Serialize for AgentView {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::str::FromStr for AgentView {
    type Err = ViewChoiceError;
    fn from_str(s: &str) -> Result<Self, ViewChoiceError> {
        AgentView::named(s)
    }
}

/// A page the loop works on: parsed once, viewed and chunked on demand.
pub struct PageContext {
    page: Page,
    html: String,
    url: String,
    encoding: Encoding,
}

impl PageContext {
    /// `html` is what the fallback sends whole; `url` names the page for
    /// snapshot refs (any stable string for a file).
    pub fn new(page: Page, html: String, url: impl Into<String>, encoding: Encoding) -> Self {
        PageContext {
            page,
            html,
            url: url.into(),
            encoding,
        }
    }

    /// Parses `html` as a browser would.
    pub fn parse(html: &str, url: impl Into<String>) -> Self {
        PageContext::new(
            Page::parse(html),
            html.to_string(),
            url,
            Encoding::default(),
        )
    }

    pub fn html(&self) -> &str {
        &self.html
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    fn ctx(&self) -> Ctx {
        Ctx::new(SURFACE, self.encoding)
    }

    /// The view's text within `max_tokens` (the view's default budget when
    /// `None`), run through the registry as the MCP surface runs it.
    pub fn view(&self, view: AgentView, max_tokens: Option<usize>) -> Result<String, Error> {
        let mut args = Map::new();
        if let Some(n) = max_tokens {
            if !view.0.options().iter().any(|o| o.name == "max_tokens") {
                return Err(Error::InvalidOption(format!(
                    "the {} view takes no token budget",
                    view.name()
                )));
            }
            args.insert("max_tokens".into(), n.into());
        }
        let call = view.0.call_from_json(args, self.ctx())?;
        Ok(call.run(&mut Input::page(&self.page, &self.url))?.text)
    }

    /// The chunk tool as the model is shown it: the core's chunk request
    /// (selector, id, ref, all, max_tokens) as its argument schema.
    pub fn chunk_tool() -> ToolSpec {
        ToolSpec {
            name: CHUNK_TOOL.into(),
            description: prompts::GET_HTML_CHUNK.trim().into(),
            schema: Value::Object(schema::of::<ChunkOptions>()),
        }
    }

    /// Answers a `get_html_chunk` call: the chunk fenced as page content, or
    /// what was wrong with the call in the core's words (a miss suggests
    /// selectors that exist).
    pub fn chunk(&self, args: Map<String, Value>) -> Result<String, String> {
        let opts: ChunkOptions = parse::from_json(args, SURFACE).map_err(|e| e.to_string())?;
        let out = chunk::view(&self.page, &opts, &self.url, None, self.ctx())
            .map_err(|e| format!("{e:#}"))?;
        Ok(fence::delimit(&out.text))
    }

    /// `args` with a node id (`id`, without a selector) replaced by the
    /// unique selector of that element here, so that another version of the
    /// page can answer them. Anything else is left for the chunk view to judge.
    pub fn ids_as_selectors(&self, mut args: Map<String, Value>) -> Map<String, Value> {
        if args.contains_key("selector") {
            return args;
        }
        let id = args.get("id").and_then(Value::as_u64);
        let found = id
            .and_then(|n| u32::try_from(n).ok())
            .and_then(|n| UniqueSelectors::new(&self.page).selector(NodeId::new(n)));
        if let Some(selector) = found {
            args.remove("id");
            args.insert("selector".into(), Value::String(selector));
        }
        args
    }
}
