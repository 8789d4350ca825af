//! The CNT as a view every surface runs.

use serde_json::json;

use super::{Cnt, ViewOptions};
use crate::Error;
use crate::contract::{Ctx, Handle, Hint, Limit, ViewName};
use crate::view::{Envelope, Input, View};

pub const NAME: ViewName = ViewName::new("cnt", "cnt_view");

pub struct CntView;

/// A CNT view made, with what its envelope and HTML page need (the view
/// itself borrows a tree that may not outlive the call).
pub struct CntOutput {
    text: String,
    tokens: usize,
    max_tokens: usize,
    figures: serde_json::Value,
    cut: bool,
    /// The tree as JSON object members, written while walking, when the
    /// surface prints JSON.
    members: Option<String>,
    html: Option<String>,
}

impl View for CntView {
    type Request = ViewOptions;
    type Output = CntOutput;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "Print the page as a compressed node tree (CNT) that fits a token budget";
    const HELP: &'static str = "\
One node per line: `ID TAGS[*] [attr=value]... [text]`, indented one space
per level; `*` marks clickable nodes, and lines without an id are text.
An element that took in the loose words around it quotes its own words
among them (`Read the \"docs\"`).
Nodes with many children show their first and last ones around a marker
`… N hidden [P.F-L]`; long texts end in `…+N [ID]`. The budget goes to the
page's main content first, then the rest, then navigation, footers and
other furniture; an open dialog or popover before all of it. An open
modal dialog leads the tree, the page behind it after a
`# Behind the modal dialog …` line. Pass either handle to --expand to see
what it hides. Ids are the same node ids `webfold chunk --id` takes, so any
node's original HTML is one command away.";
    const EXAMPLES: &'static str = "\
webfold cnt page.html --max-tokens 2000
webfold cnt page.html --expand 12.3-97      # the children a marker hides
webfold cnt page.html --expand 61           # one node's subtree, text in full if it fits
webfold chunk page.html --id 61             # the original HTML behind node 61
webfold cnt page.html --html > cnt.html     # look at the tree in a browser";
    const ARTICLE: Option<&'static str> = Some("a compressed node tree");
    const READING: Option<&'static str> = Some(
        r#"one node per line, "ID TAGS [attributes] text", indented by depth, "*" for clickable nodes, quoted words a node's own among loose words it took in; "… N hidden [P.F-L]" stands for children left out. Pass a node's ID to get_html_chunk as its id."#,
    );
    const HTML_PAGE: bool = true;
    const TOOL: &'static str = "A page as a compressed node tree: id, tags, attributes, * clickable, text; hidden parts show as `… N hidden [ID]`, opened with expand.";

    fn hints() -> Vec<Hint> {
        vec![
            Hint::Raise(Limit::MaxTokens, None),
            Hint::Expand("12.3-97".into()),
            Hint::Chunk(Handle::Id("N".into()), false),
        ]
    }

    fn run(request: &ViewOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<CntOutput, Error> {
        let built;
        let cnt = match input.cnt {
            Some(kept) => kept(),
            None => {
                built = Cnt::build(input.parsed()?);
                &built
            }
        };
        let view = cnt.view(request, ctx)?;
        let (width, text_limit) = view.cut_figures();
        let mut figures = json!({
                "title": view.title(),
                "scope": view.scope_label(),
                "encoding": view.encoding,
                "width": width,
                "text_limit": text_limit,
                "markers": view.stats.markers,
                "hidden_children": view.stats.hidden_children,
                "texts_cut": view.stats.texts_cut,
        });
        if let Some((id, name)) = cnt.modal_dialog() {
            figures["modal_dialog"] = json!({ "id": id.get(), "name": name });
        }
        Ok(CntOutput {
            figures,
            cut: view.stats.is_cut(),
            members: input.json.then(|| view.json_members()),
            html: input.html.then(|| view.to_html()),
            text: view.text.clone(),
            tokens: view.tokens,
            max_tokens: view.max_tokens,
        })
    }

    fn envelope(_: &ViewOptions, _: Ctx, out: CntOutput) -> Envelope {
        let hints = if out.cut {
            vec![Hint::Raise(Limit::MaxTokens, None)]
        } else {
            Vec::new()
        };
        let mut envelope = Envelope::new(NAME, out.text, out.tokens, out.figures)
            .budget(Some(out.max_tokens).filter(|&m| m != usize::MAX))
            .cut(out.cut, hints);
        envelope.tree = out.members;
        envelope.html = out.html;
        envelope
    }
}
