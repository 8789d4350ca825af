//! Building a [`Page`] straight from the tokens, in document order, while the
//! page stays on the tree builder's common path.
//!
//! html5ever's tree builder links nodes through a sink in any order (the
//! adoption agency and foster parenting move them), so its tree is renumbered
//! in preorder afterwards, and every step asks the sink about names through
//! reference-counted handles. Most pages never need those moves: each node
//! lands as the last child of the current node, so creation order is
//! document order and the page's arena can be written as the tokens come.
//! This builder follows the standard's insertion modes as html5ever does for
//! those pages, and declines ([`Leave`]) the moment a page needs more: a
//! misnested formatting element with a furthest block, anything fostered
//! out of a table, a template, a frameset, MathML, an element put back into
//! the head, `<plaintext>`, nesting near the depth limit, an unknown
//! doctype. The page is then built again by html5ever's builder from the
//! start. The tests and the page fuzzer hold the two to the same trees.
//!
//! Comments after `</body>` and `</html>` belong to `<html>` and the
//! document, after the body; text may still follow them into the body, so
//! they are held back and placed when the page ends.

use std::cell::RefCell;

use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Token, TokenSink, TokenSinkResult};
use html5ever::{LocalName, QualName, ns};

use super::tokenize::{RawTag, Tokens};
use super::{Node, NodeData, NodeId, Page};

mod arena;
mod body;
mod modes;
mod names;
mod stack;
mod svg;
mod table;
mod tokens;

#[cfg(test)]
mod tests;

/// The page left the common path: build it with html5ever's tree builder.
#[derive(Debug)]
pub(super) struct Leave;

type Step<T = ()> = Result<T, Leave>;

/// The page built here, or `None` when it needs html5ever's tree builder.
pub(super) fn parse(html: &str) -> Option<Page> {
    let builder = Builder {
        state: RefCell::new(Ok(State::new())),
    };
    super::tokenize::tokenize(html, &builder);
    builder.state.into_inner().ok().map(State::finish)
}

struct Builder {
    state: RefCell<Step<State>>,
}

impl Builder {
    /// One step on the state, unless the page already left; what the
    /// tokenizer reads next.
    fn step(&self, f: impl FnOnce(&mut State) -> Step<Option<RawKind>>) -> TokenSinkResult<()> {
        let mut cell = self.state.borrow_mut();
        let Ok(state) = cell.as_mut() else {
            // Read the rest as one text, unparsed: it will be read again.
            return TokenSinkResult::Plaintext;
        };
        match f(state) {
            Ok(Some(kind)) => TokenSinkResult::RawData(kind),
            Ok(None) => TokenSinkResult::Continue,
            Err(leave) => {
                *cell = Err(leave);
                TokenSinkResult::Plaintext
            }
        }
    }
}

impl Tokens for Builder {
    fn text(&self, text: &str) {
        let _ = self.step(|state| state.text_token(text).map(|()| None));
    }

    fn tag(&self, tag: RawTag) -> TokenSinkResult<()> {
        self.step(|state| state.tag(tag))
    }
}

impl TokenSink for Builder {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        self.step(|state| state.token(token))
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        match &*self.state.borrow() {
            Ok(state) => state.open.last().is_some_and(|o| o.svg),
            Err(_) => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    AfterHead,
    InBody,
    Text,
    InTable,
    InCaption,
    InColumnGroup,
    InTableBody,
    InRow,
    InCell,
    AfterBody,
    AfterAfterBody,
}

/// An open element: its node and what the rules ask of it.
struct Open {
    id: u32,
    name: LocalName,
    /// In the SVG namespace (MathML is left to html5ever); else HTML.
    svg: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    Marker,
    Element(u32),
}

/// What a token's rules did: done, or read it again in another mode.
enum Flow {
    Done,
    Again,
    Raw(RawKind),
}

struct State {
    nodes: Vec<Node>,
    /// Each node's last child so far (the page keeps no such link).
    last_child: Vec<Option<NodeId>>,
    /// The last node when it is text (text only ever joins the node made
    /// last), and its whole text once a second piece joined it.
    text_node: Option<u32>,
    text: String,
    open: Vec<Open>,
    formatting: Vec<Entry>,
    mode: Mode,
    original_mode: Mode,
    head: Option<u32>,
    form: Option<u32>,
    quirks: bool,
    ignore_lf: bool,
    html_trailer: Vec<Box<str>>,
    document_trailer: Vec<Box<str>>,
}

fn html_name(local: LocalName) -> QualName {
    QualName::new(None, ns!(html), local)
}

impl State {
    fn new() -> State {
        let document = Node {
            parent: None,
            first_child: None,
            prev_sibling: None,
            next_sibling: None,
            subtree_end: NodeId::new(1),
            depth: 0,
            inert: false,
            data: NodeData::Document,
        };
        State {
            nodes: vec![document],
            last_child: vec![None],
            text_node: None,
            text: String::new(),
            open: Vec::new(),
            formatting: Vec::new(),
            mode: Mode::Initial,
            original_mode: Mode::Initial,
            head: None,
            form: None,
            quirks: false,
            ignore_lf: false,
            html_trailer: Vec::new(),
            document_trailer: Vec::new(),
        }
    }

    fn finish(mut self) -> Page {
        self.seal_text();
        if let Some(html) = self.open.first().map(|o| o.id) {
            for comment in std::mem::take(&mut self.html_trailer) {
                self.append(html, NodeData::Comment(comment));
            }
        }
        for comment in std::mem::take(&mut self.document_trailer) {
            self.append(0, NodeData::Comment(comment));
        }
        // Preorder: a subtree ends where its last child's subtree ends.
        for i in (0..self.nodes.len()).rev() {
            if let Some(last) = self.last_child[i] {
                self.nodes[i].subtree_end = self.nodes[last.index()].subtree_end;
            }
        }
        drop(self.last_child);
        // The page keeps its nodes as long as it lives: not the room the
        // arena grew into.
        self.nodes.shrink_to_fit();
        Page::from_parts(self.nodes, self.quirks)
    }
}

fn take_tag(tag: &mut RawTag) -> RawTag {
    RawTag {
        kind: tag.kind,
        name: tag.name.clone(),
        self_closing: tag.self_closing,
        attrs: std::mem::take(&mut tag.attrs),
    }
}
