//! Which rules read a tag: the insertion mode's, a function a mode (the
//! table's modes are in `table`, the body's in `body`).

use html5ever::local_name;

use super::names::in_head_start;
use super::{Flow, Leave, Mode, State, Step, take_tag};
use crate::page::tokenize::RawTag;

impl State {
    pub(super) fn start_tag(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match self.mode {
            Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => self.before_head_start(tag),
            Mode::InHead => self.in_head_start(tag),
            Mode::AfterHead => self.after_head_start(tag),
            Mode::InBody => self.body_start(take_tag(tag)),
            Mode::Text => Err(Leave),
            Mode::InTable => self.table_start(tag),
            Mode::InCaption => self.caption_start(tag),
            Mode::InColumnGroup => self.column_group_start(tag),
            Mode::InTableBody => self.table_body_start(tag),
            Mode::InRow => self.row_start(tag),
            Mode::InCell => self.cell_start(tag),
            Mode::AfterBody | Mode::AfterAfterBody => {
                if tag.name == local_name!("html") {
                    return self.body_start(take_tag(tag));
                }
                self.mode = Mode::InBody;
                Ok(Flow::Again)
            }
        }
    }

    pub(super) fn end_tag(&mut self, tag: &RawTag) -> Step<Flow> {
        let name = &tag.name;
        match self.mode {
            Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => self.before_head_end(tag),
            Mode::InHead => self.in_head_end(tag),
            Mode::AfterHead => self.after_head_end(tag),
            Mode::InBody => self.body_end(name),
            Mode::Text => {
                self.pop()?;
                self.mode = self.original_mode;
                Ok(Flow::Done)
            }
            Mode::InTable => self.table_end(name),
            Mode::InCaption => self.caption_end(name),
            Mode::InColumnGroup => self.column_group_end(name),
            Mode::InTableBody => self.table_body_end(name),
            Mode::InRow => self.row_end(name),
            Mode::InCell => self.cell_end(name),
            Mode::AfterBody => {
                if *name == local_name!("html") {
                    self.mode = Mode::AfterAfterBody;
                    return Ok(Flow::Done);
                }
                self.mode = Mode::InBody;
                Ok(Flow::Again)
            }
            Mode::AfterAfterBody => {
                self.mode = Mode::InBody;
                Ok(Flow::Again)
            }
        }
    }

    /// Before the head: `<html>` and `<head>`, else what the page left out.
    fn before_head_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        if tag.name == local_name!("html") {
            if self.mode == Mode::BeforeHead {
                return self.body_start(take_tag(tag));
            }
            if self.mode == Mode::Initial {
                self.quirks = true;
            }
            self.create_root(std::mem::take(&mut tag.attrs));
            return Ok(Flow::Done);
        }
        if self.mode == Mode::BeforeHead && tag.name == local_name!("head") {
            self.head = Some(self.insert_html(take_tag(tag))?);
            self.mode = Mode::InHead;
            return Ok(Flow::Done);
        }
        self.anything_else_before_body()?;
        Ok(Flow::Again)
    }

    fn in_head_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("html") => self.body_start(take_tag(tag)),
            local_name!("head") => Ok(Flow::Done),
            local_name!("template") => Err(Leave),
            _ if in_head_start(&tag.name) => self.head_start(take_tag(tag)),
            _ => {
                self.anything_else_before_body()?;
                Ok(Flow::Again)
            }
        }
    }

    fn after_head_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("html") => self.body_start(take_tag(tag)),
            local_name!("body") => {
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InBody;
                Ok(Flow::Done)
            }
            local_name!("head") => Ok(Flow::Done),
            // Back into the head, behind what followed it: html5ever's.
            local_name!("frameset") | local_name!("template") => Err(Leave),
            _ if in_head_start(&tag.name) => Err(Leave),
            _ => {
                self.anything_else_before_body()?;
                Ok(Flow::Again)
            }
        }
    }

    /// End tags that stand for what the page left out before the body.
    fn implies_head_or_body(tag: &RawTag) -> bool {
        matches!(
            tag.name,
            local_name!("head") | local_name!("body") | local_name!("html") | local_name!("br")
        )
    }

    fn before_head_end(&mut self, tag: &RawTag) -> Step<Flow> {
        if Self::implies_head_or_body(tag) {
            self.anything_else_before_body()?;
            return Ok(Flow::Again);
        }
        if self.mode == Mode::Initial {
            // "Anything else": quirks mode, and the end tag is read again
            // (and dropped) before `<html>`.
            self.quirks = true;
            self.mode = Mode::BeforeHtml;
        }
        Ok(Flow::Done)
    }

    fn in_head_end(&mut self, tag: &RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("head") => {
                self.pop()?;
                self.mode = Mode::AfterHead;
                Ok(Flow::Done)
            }
            local_name!("template") => Err(Leave),
            _ if Self::implies_head_or_body(tag) => {
                self.anything_else_before_body()?;
                Ok(Flow::Again)
            }
            _ => Ok(Flow::Done),
        }
    }

    fn after_head_end(&mut self, tag: &RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("template") => Err(Leave),
            local_name!("body") | local_name!("html") | local_name!("br") => {
                self.anything_else_before_body()?;
                Ok(Flow::Again)
            }
            _ => Ok(Flow::Done),
        }
    }
}
