//! What the side panel shows of a tab's page: any view of the core's
//! registry an agent reads, made from the page the tab last captured, a line
//! per node. The CNT's and the outline's lines carry the selector of their
//! element (so the panel can mark it on the page), the outline's the tokens
//! of its HTML.

use std::path::Path;

use webfold_core::cnt::{Cnt, ViewOptions};
use webfold_core::outline::{DomNode, OutlineOptions, outline};
use webfold_core::page::capture::DomCapture;
use webfold_core::select::UniqueSelectors;
use webfold_core::tokens::{self, Encoding};
use webfold_core::{NodeId, Page};

use webfold_core::contract::{Ctx, Surface};
use webfold_core::view::{Input, VIEWS, by_name};
use webfold_protocol::ViewLine;

/// The page a tab captured: from the extension's capture (with the layout
/// the user saw) when there is one, else from its HTML.
pub fn load(html: Option<&Path>, dom: Option<&Path>) -> Result<Page, String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| {
            format!(
                "the captured page {} cannot be read ({e}): pick again",
                path.display()
            )
        })
    };
    if let Some(path) = dom {
        let json = read(path)?;
        if let Ok(page) = DomCapture::page_from_json(&String::from_utf8_lossy(&json)) {
            return Ok(page);
        }
    }
    let path = html.ok_or("Nothing captured in this tab yet: pick an element.")?;
    Ok(Page::parse(&String::from_utf8_lossy(&read(path)?)))
}

/// The view's lines and the tokens of its text; `Err` says why there is none.
pub fn render(page: &Page, name: &str) -> Result<(usize, Vec<ViewLine>), String> {
    match name {
        "cnt" => cnt_lines(page),
        "outline" => outline_lines(page),
        _ => plain_lines(page, name),
    }
}

/// Any view with its default options, a line of text each.
fn plain_lines(page: &Page, name: &str) -> Result<(usize, Vec<ViewLine>), String> {
    let view = by_name(name, Surface::Cli).ok_or_else(|| {
        let names: Vec<&str> = VIEWS.iter().map(|v| v.name().on(Surface::Cli)).collect();
        format!("no view '{name}': the views are {}", names.join(", "))
    })?;
    let ctx = Ctx::new(Surface::Cli, Encoding::O200kBase);
    let call = view
        .call_from_json(Default::default(), ctx)
        .map_err(|e| format!("the {name} view needs more than the page: {e}"))?;
    let envelope = call
        .run(&mut Input::page(page, ""))
        .map_err(|e| format!("the {name} view of this page failed: {e}"))?;
    let lines = envelope
        .text
        .lines()
        .map(|line| ViewLine {
            text: line.to_string(),
            selector: None,
            tokens: None,
        })
        .collect();
    Ok((envelope.tokens(), lines))
}

fn cnt_lines(page: &Page) -> Result<(usize, Vec<ViewLine>), String> {
    let mut selectors = UniqueSelectors::new(page);
    let cnt = Cnt::build(page);
    let view = cnt
        .view(
            &ViewOptions::default(),
            webfold_core::contract::Ctx::default(),
        )
        .map_err(|e| format!("the CNT of this page failed: {e}"))?;
    let lines = view
        .text
        .lines()
        .map(|line| ViewLine {
            text: line.to_string(),
            selector: leading_id(line)
                .map(|id| innermost(page, &cnt, id))
                .and_then(|id| selectors.selector(id)),
            tokens: None,
        })
        .collect();
    Ok((view.tokens, lines))
}

fn outline_lines(page: &Page) -> Result<(usize, Vec<ViewLine>), String> {
    let o = outline(
        page,
        &OutlineOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .map_err(|e| format!("the outline of this page failed: {e}"))?;
    let mut lines = Vec::new();
    // Iterative: pages nest arbitrarily deep.
    let mut stack: Vec<(&DomNode, usize)> = vec![(&o.root, 0)];
    while let Some((node, depth)) = stack.pop() {
        lines.push(ViewLine {
            text: format!("{}{}", "  ".repeat(depth), label(node)),
            selector: Some(node.selector.clone()),
            tokens: Some(tokens::count(
                &page.outer_html(node.node_id),
                Encoding::O200kBase,
            )),
        });
        for child in node.children.iter().rev() {
            stack.push((child, depth + 1));
        }
    }
    Ok((o.tokens, lines))
}

/// The element a CNT line is mostly about: a node merged from a chain
/// (`header,h2,a`) shows the innermost one's attributes and text, so it is
/// the one to mark (ids are in document order: the deepest is the largest).
fn innermost(page: &Page, cnt: &Cnt, head: NodeId) -> NodeId {
    let Some(node) = cnt.node_of(head) else {
        return head;
    };
    let last = node.tag.rsplit(',').next().unwrap_or("");
    node.members()
        .filter(|&m| page.is_element(m) && page.tag(m) == Some(last))
        .max_by_key(|m| m.get())
        .unwrap_or(head)
}

/// A CNT line starts with its node's id (after the indent); markers and the
/// title do not.
fn leading_id(line: &str) -> Option<NodeId> {
    let digits: String = line
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().and_then(NodeId::try_new)
}

fn label(n: &DomNode) -> String {
    let mut s = n.tag.clone();
    if let Some(id) = &n.id {
        s.push('#');
        s.push_str(id);
    }
    for c in n.classes.iter().take(3) {
        s.push('.');
        s.push_str(c);
    }
    if let Some(r) = n.repeat {
        s.push_str(&format!(" ×{r}"));
    }
    if let Some(t) = &n.text_preview {
        s.push_str(&format!(" \"{t}\""));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><head><title>Shop</title></head><body><main>
        <h1>Fixture shop</h1><section class="card"><p class="price">12 €</p>
        <form><button id="buy" type="submit">Buy now</button></form></section></main></body></html>"#;

    #[test]
    fn cnt_lines_carry_the_selector_of_their_element() {
        let (tokens, lines) = render(&Page::parse(PAGE), "cnt").unwrap();
        assert!(tokens > 0);
        let buy = lines
            .iter()
            .find(|l| l.text.contains("Buy now"))
            .expect("the button's line");
        assert_eq!(buy.selector.as_deref(), Some("#buy"), "{lines:?}");
        assert!(lines[0].text.starts_with("# Shop") && lines[0].selector.is_none());
    }

    #[test]
    fn outline_lines_count_the_tokens_of_their_html() {
        let (_, lines) = render(&Page::parse(PAGE), "outline").unwrap();
        let root = &lines[0];
        let price = lines
            .iter()
            .find(|l| l.text.contains("p.price"))
            .expect("the price's line");
        assert!(price.text.starts_with("  "), "indented: {lines:?}");
        let (r, p) = (root.tokens.unwrap(), price.tokens.unwrap());
        assert!(p > 0 && p < r, "{r} {p}");
        assert_eq!(
            p,
            tokens::count(r#"<p class="price">12 €</p>"#, Encoding::O200kBase)
        );
        assert!(lines.iter().all(|l| l.selector.is_some()));
    }

    #[test]
    fn any_view_of_the_registry_shows_as_lines() {
        let (tokens, lines) = render(&Page::parse(PAGE), "links").unwrap();
        assert!(tokens > 0);
        assert!(lines[0].text.starts_with("# 0 links"), "{lines:?}");
        let err = render(&Page::parse(PAGE), "nope").unwrap_err();
        assert!(err.contains("links") && err.contains("outline"), "{err}");
        let err = render(&Page::parse(PAGE), "chunk").unwrap_err();
        assert!(err.contains("selector"), "{err}");
    }
}
