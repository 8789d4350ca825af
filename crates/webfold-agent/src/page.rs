//! What the loop knows of the page: the view the system prompt carries, the
//! `get_html_chunk` tool answered from the same page, and the full HTML for
//! the fallback. Views and chunks come from the core's requests (the view
//! contract), spelled for the MCP surface, whose tool name is ours too.

use serde_json::{Map, Value};
use webfold_core::chunk::{self, ChunkOptions};
use webfold_core::cnt::{self, Cnt};
use webfold_core::contract::{Ctx, Surface, fence, parse, schema};
use webfold_core::outline::{self, OutlineOptions};
use webfold_core::select::UniqueSelectors;
use webfold_core::snapshot::{self, SnapshotOptions};
use webfold_core::tokens::Encoding;
use webfold_core::{Error, NodeId, Page};

use crate::message::ToolSpec;
use crate::prompts;

/// Name of the chunk tool, as on the MCP surface.
pub const CHUNK_TOOL: &str = "get_html_chunk";

/// Hints in views and chunk answers name MCP tools and parameters
/// (`get_html_chunk {selector: …}`): the names the model is given here.
const SURFACE: Surface = Surface::Mcp;

/// Which view of the page the system prompt carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewKind {
    /// seed 000's element tree with selector labels.
    #[default]
    Outline,
    /// The accessibility snapshot with refs.
    Snapshot,
    /// The compressed node tree with node ids.
    Cnt,
}

impl ViewKind {
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Outline => "outline",
            ViewKind::Snapshot => "snapshot",
            ViewKind::Cnt => "cnt",
        }
    }

    /// How the system prompt names the view, and how to read it.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            ViewKind::Outline => ("an outline", prompts::VIEW_OUTLINE),
            ViewKind::Snapshot => ("an accessibility snapshot", prompts::VIEW_SNAPSHOT),
            ViewKind::Cnt => ("a compressed node tree", prompts::VIEW_CNT),
        }
    }
}

impl std::str::FromStr for ViewKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "outline" => Ok(ViewKind::Outline),
            "snapshot" => Ok(ViewKind::Snapshot),
            "cnt" => Ok(ViewKind::Cnt),
            _ => Err(format!("unknown view '{s}': use outline, snapshot or cnt")),
        }
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

    /// The view's text within `max_tokens` (the core's default budget when `None`).
    pub fn view(&self, kind: ViewKind, max_tokens: Option<usize>) -> Result<String, Error> {
        match kind {
            ViewKind::Outline => {
                let mut opts = OutlineOptions::default();
                if max_tokens.is_some() {
                    opts.max_tokens = max_tokens;
                }
                Ok(outline::outline(&self.page, &opts, self.ctx())?.text)
            }
            ViewKind::Snapshot => {
                let mut opts = SnapshotOptions::default();
                if let Some(n) = max_tokens {
                    opts.max_tokens = n;
                }
                let scope = opts.scope(SURFACE)?;
                Ok(
                    snapshot::snapshot(&self.page, &self.url, &scope, &opts, None, self.ctx())?
                        .text,
                )
            }
            ViewKind::Cnt => {
                let mut opts = cnt::ViewOptions::default();
                if let Some(n) = max_tokens {
                    opts.max_tokens = n;
                }
                let tree = Cnt::build(&self.page);
                Ok(tree.view(&opts, self.ctx())?.text)
            }
        }
    }

    /// The system prompt's words for the view.
    pub fn view_words(kind: ViewKind) -> (&'static str, &'static str) {
        kind.words()
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
            .and_then(|n| UniqueSelectors::new(&self.page).selector(NodeId(n)));
        if let Some(selector) = found {
            args.remove("id");
            args.insert("selector".into(), Value::String(selector));
        }
        args
    }
}
