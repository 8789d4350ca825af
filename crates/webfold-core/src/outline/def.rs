//! The outline as a view every surface runs.

use super::{Outline, OutlineOptions};
use crate::Error;
use crate::contract::{Ctx, Handle, Hint, Limit, ViewName};
use crate::view::{Envelope, Input, View};

pub const NAME: ViewName = ViewName::new("outline", "get_dom_outline");

pub struct OutlineView;

impl View for OutlineView {
    type Request = OutlineOptions;
    type Output = Outline;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "Print the page's element tree with selector labels and text previews";
    const HELP: &'static str = "\
Lines are `tag#id` or `tag.class` labels; `@N` marks a label that is not
unique on the page, and N is the node id `chunk --id N` takes. Repeated
siblings fold into one line (`li.product ×48`), wrapper chains share a
line (`div.a > div.b > ul`), and what a person does not see (head,
scripts, styles, hidden elements) is left out. Over --max-tokens, deeper
and wider parts are cut first and the last line says how to unfold them.";
    const EXAMPLES: &'static str = "\
webfold outline page.html
webfold outline page.html --max-depth 6 --exclude footer --exclude '.ads'
webfold outline page.html --max-tokens 500 --json
webfold chunk page.html --selector 'section.hero'   # then unfold a part";
    const TOOL: &'static str = "A page's element tree: a line per element or run of alike ones, selector labels (@N: node id), text previews; unfold parts with get_html_chunk.";
    const ARTICLE: Option<&'static str> = Some("an outline");
    const READING: Option<&'static str> = Some(
        r#"one line per element or run of alike elements. A line is a selector label (tag#id or tag.class; "@N" is a node id) with a short preview of its text; "(N children)" marks where a line stops, and "×N" a run of N alike siblings. Pass a label as get_html_chunk's selector, or @N's number as its id."#,
    );

    fn hints() -> Vec<Hint> {
        vec![
            Hint::Raise(Limit::MaxTokens, None),
            Hint::Chunk(Handle::Selector("SEL".into()), false),
            Hint::Chunk(Handle::Id("N".into()), false),
        ]
    }

    fn run(request: &OutlineOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<Outline, Error> {
        super::outline(input.parsed()?, request, ctx)
    }

    fn envelope(request: &OutlineOptions, _: Ctx, out: Outline) -> Envelope {
        let hints: Vec<Hint> = out
            .truncated
            .iter()
            .flat_map(|t| &t.cut)
            .map(|c| Hint::Chunk(Handle::Selector(c.selector.clone()), false))
            .collect();
        let cut = out.truncated.is_some();
        Envelope::new(NAME, out.text.clone(), out.tokens, &out)
            .budget(request.max_tokens)
            .cut(cut, hints)
    }
}
