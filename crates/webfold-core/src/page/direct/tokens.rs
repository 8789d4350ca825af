//! A token's way in: text, comments, the doctype and the end of the page,
//! and the foreign-content check before a tag reaches its mode's rules.

use html5ever::local_name;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, TagKind, Token};

use super::names::{doctype_quirks, svg_html_integration_point, table_outer};
use super::{Flow, Leave, Mode, Open, State, Step, html_name};
use crate::page::tokenize::RawTag;
use crate::page::{Attr, ElementData, NodeData};

impl State {
    /// One token; the raw text kind when the tokenizer must read one next.
    pub(super) fn token(&mut self, token: Token) -> Step<Option<RawKind>> {
        let ignore_lf = std::mem::take(&mut self.ignore_lf);
        match token {
            Token::CharacterTokens(text) => {
                self.ignore_lf = ignore_lf;
                self.text_token(&text)?;
            }
            Token::NullCharacterToken => self.null()?,
            Token::CommentToken(text) => self.comment_token(&text)?,
            Token::DoctypeToken(doctype) => self.doctype(&doctype)?,
            Token::TagToken(tag) => {
                let attrs = tag.attrs.into_iter();
                return self.tag(RawTag {
                    kind: tag.kind,
                    name: tag.name,
                    self_closing: tag.self_closing,
                    attrs: attrs
                        .map(|a| Attr {
                            name: a.name,
                            value: (*a.value).into(),
                        })
                        .collect(),
                });
            }
            Token::EOFToken => self.eof()?,
            Token::ParseError(_) => {}
        }
        Ok(None)
    }

    pub(super) fn text_token(&mut self, mut text: &str) -> Step {
        if std::mem::take(&mut self.ignore_lf) {
            text = text.strip_prefix('\n').unwrap_or(text);
        }
        self.characters(text)
    }

    pub(super) fn doctype(&mut self, doctype: &Doctype) -> Step {
        if self.mode != Mode::Initial {
            return Ok(());
        }
        self.quirks = doctype_quirks(doctype).ok_or(Leave)?;
        let name = doctype.name.as_deref().unwrap_or("");
        self.append(0, NodeData::Doctype { name: name.into() });
        self.mode = Mode::BeforeHtml;
        Ok(())
    }

    pub(super) fn comment_token(&mut self, text: &str) -> Step {
        // Inside SVG a comment is the current element's, whatever the mode.
        if self.open.last().is_some_and(|o| o.svg) {
            return self.comment(text);
        }
        match self.mode {
            Mode::Initial | Mode::BeforeHtml => {
                self.append(0, NodeData::Comment(text.into()));
            }
            Mode::AfterBody => self.html_trailer.push(text.into()),
            Mode::AfterAfterBody => self.document_trailer.push(text.into()),
            Mode::Text => return Err(Leave),
            _ => self.comment(text)?,
        }
        Ok(())
    }

    /// Is the current node foreign to the HTML rules for this token?
    pub(super) fn foreign(&self, start_tag: bool) -> bool {
        match self.open.last() {
            Some(o) if o.svg => !(start_tag && svg_html_integration_point(&o.name)),
            _ => false,
        }
    }

    /// Text goes into the current SVG element as it is (no formatting
    /// elements reopened), but at an HTML integration point.
    pub(super) fn svg_text(&self) -> bool {
        self.open
            .last()
            .is_some_and(|o| o.svg && !svg_html_integration_point(&o.name))
    }

    pub(super) fn null(&mut self) -> Step {
        if self.svg_text() {
            let id = self.current_id()?;
            self.append_text(id, "\u{fffd}");
            return Ok(());
        }
        match self.mode {
            Mode::InBody | Mode::InCaption | Mode::InCell => Ok(()),
            Mode::InTable | Mode::InTableBody | Mode::InRow
                if self.current().is_ok_and(|o| !o.svg && table_outer(&o.name)) =>
            {
                Ok(())
            }
            _ => Err(Leave),
        }
    }

    pub(super) fn characters(&mut self, mut text: &str) -> Step {
        if text.is_empty() {
            return Ok(());
        }
        if self.svg_text() {
            let id = self.current_id()?;
            self.append_text(id, text);
            return Ok(());
        }
        loop {
            match self.mode {
                Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => {
                    text = text.trim_ascii_start();
                    if text.is_empty() {
                        return Ok(());
                    }
                    self.anything_else_before_body()?;
                }
                Mode::InHead | Mode::AfterHead | Mode::InColumnGroup => {
                    let rest = text.trim_ascii_start();
                    let id = self.current_id()?;
                    self.append_text(id, &text[..text.len() - rest.len()]);
                    text = rest;
                    if text.is_empty() {
                        return Ok(());
                    }
                    if self.mode == Mode::InColumnGroup {
                        if !self.current_is(&local_name!("colgroup")) {
                            return Err(Leave);
                        }
                        self.pop()?;
                        self.mode = Mode::InTable;
                    } else {
                        self.anything_else_before_body()?;
                    }
                }
                Mode::InBody | Mode::InCaption | Mode::InCell => {
                    self.reconstruct_formatting()?;
                    let id = self.current_id()?;
                    self.append_text(id, text);
                    return Ok(());
                }
                Mode::Text => {
                    let id = self.current_id()?;
                    self.append_text(id, text);
                    return Ok(());
                }
                Mode::InTable | Mode::InTableBody | Mode::InRow => {
                    // Table text: spaces stay; anything else is fostered.
                    let o = self.current()?;
                    if o.svg
                        || !table_outer(&o.name)
                        || !text.bytes().all(|b| b.is_ascii_whitespace())
                    {
                        return Err(Leave);
                    }
                    let id = o.id;
                    self.append_text(id, text);
                    return Ok(());
                }
                Mode::AfterBody | Mode::AfterAfterBody => {
                    let rest = text.trim_ascii_start();
                    if rest.len() < text.len() {
                        self.reconstruct_formatting()?;
                        let id = self.current_id()?;
                        self.append_text(id, &text[..text.len() - rest.len()]);
                    }
                    text = rest;
                    if text.is_empty() {
                        return Ok(());
                    }
                    self.mode = Mode::InBody;
                }
            }
        }
    }

    /// "Anything else" in the modes before the body: the element the page
    /// left out, and the next mode.
    pub(super) fn anything_else_before_body(&mut self) -> Step {
        match self.mode {
            Mode::Initial => {
                self.quirks = true;
                self.mode = Mode::BeforeHtml;
            }
            Mode::BeforeHtml => self.create_root(Vec::new()),
            Mode::BeforeHead => {
                self.head = Some(self.insert_phantom(local_name!("head"))?);
                self.mode = Mode::InHead;
            }
            Mode::InHead => {
                self.pop()?;
                self.mode = Mode::AfterHead;
            }
            Mode::AfterHead => {
                self.insert_phantom(local_name!("body"))?;
                self.mode = Mode::InBody;
            }
            _ => return Err(Leave),
        }
        Ok(())
    }

    pub(super) fn create_root(&mut self, attrs: Vec<Attr>) {
        let data = ElementData {
            name: html_name(local_name!("html")),
            attrs: attrs.into_boxed_slice(),
            is_template: false,
        };
        let id = self.append(0, NodeData::Element(Box::new(data)));
        self.open.push(Open {
            id,
            name: local_name!("html"),
            svg: false,
        });
        self.mode = Mode::BeforeHead;
    }

    pub(super) fn eof(&mut self) -> Step {
        loop {
            match self.mode {
                Mode::Initial
                | Mode::BeforeHtml
                | Mode::BeforeHead
                | Mode::InHead
                | Mode::AfterHead => self.anything_else_before_body()?,
                Mode::Text => {
                    self.pop()?;
                    self.mode = self.original_mode;
                }
                _ => return Ok(()),
            }
        }
    }

    pub(super) fn tag(&mut self, mut tag: RawTag) -> Step<Option<RawKind>> {
        // A line feed right after `<pre>` is dropped only if it comes next.
        self.ignore_lf = false;
        let start = tag.kind == TagKind::StartTag;
        if self.foreign(start) {
            match self.foreign_tag(tag)? {
                Some(t) => tag = t,
                None => return Ok(None),
            }
        }
        loop {
            let flow = if tag.kind == TagKind::StartTag {
                self.start_tag(&mut tag)?
            } else {
                self.end_tag(&tag)?
            };
            match flow {
                Flow::Done => return Ok(None),
                Flow::Raw(kind) => return Ok(Some(kind)),
                Flow::Again => {}
            }
        }
    }
}
