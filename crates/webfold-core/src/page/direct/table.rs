//! The table's insertion modes: in table, caption, column group, table
//! body, row and cell. Text or an element the table does not hold would be
//! fostered out in front of it: html5ever builds those pages.

use html5ever::{local_name, ns};

use super::names::{
    table_body_context, table_context, table_part, table_row_context, table_scope, td_th,
};
use super::{Entry, Flow, Leave, Mode, State, Step, html_name, take_tag};
use crate::page::tokenize::RawTag;
use html5ever::LocalName;

impl State {
    pub(super) fn table_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("caption") => {
                self.pop_until_current(table_context)?;
                self.formatting.push(Entry::Marker);
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InCaption;
            }
            local_name!("colgroup") => {
                self.pop_until_current(table_context)?;
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InColumnGroup;
            }
            local_name!("col") => {
                self.pop_until_current(table_context)?;
                self.insert_phantom(local_name!("colgroup"))?;
                self.mode = Mode::InColumnGroup;
                return Ok(Flow::Again);
            }
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                self.pop_until_current(table_context)?;
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InTableBody;
            }
            local_name!("td") | local_name!("th") | local_name!("tr") => {
                self.pop_until_current(table_context)?;
                self.insert_phantom(local_name!("tbody"))?;
                self.mode = Mode::InTableBody;
                return Ok(Flow::Again);
            }
            local_name!("table") => {
                if self.in_scope_named(table_scope, &local_name!("table")) {
                    self.pop_until_named(&local_name!("table"))?;
                    self.mode = self.reset_mode()?;
                    return Ok(Flow::Again);
                }
            }
            local_name!("style") | local_name!("script") => return self.head_start(take_tag(tag)),
            local_name!("input") => {
                let hidden = tag.attrs.iter().any(|a| {
                    a.name.ns == ns!()
                        && a.name.local == local_name!("type")
                        && a.value.eq_ignore_ascii_case("hidden")
                });
                if !hidden {
                    return Err(Leave);
                }
                self.insert_void(take_tag(tag))?;
            }
            local_name!("form") => {
                if self.form.is_none() {
                    let id = self.insert(
                        html_name(local_name!("form")),
                        std::mem::take(&mut tag.attrs),
                        false,
                    )?;
                    self.form = Some(id);
                }
            }
            _ => return Err(Leave),
        }
        Ok(Flow::Done)
    }

    pub(super) fn table_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("table") => {
                if self.in_scope_named(table_scope, &local_name!("table")) {
                    self.pop_until_named(&local_name!("table"))?;
                    self.mode = self.reset_mode()?;
                }
                Ok(Flow::Done)
            }
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => Ok(Flow::Done),
            // Fostered: only these insert anything.
            local_name!("p") | local_name!("br") | local_name!("template") => Err(Leave),
            _ => self.body_end(name),
        }
    }

    pub(super) fn close_caption(&mut self, again: bool) -> Step<Flow> {
        if !self.in_scope_named(table_scope, &local_name!("caption")) {
            return Ok(Flow::Done);
        }
        self.generate_implied_end_tags(None)?;
        self.pop_until_named(&local_name!("caption"))?;
        self.clear_formatting_to_marker();
        self.mode = Mode::InTable;
        Ok(if again { Flow::Again } else { Flow::Done })
    }

    pub(super) fn leave_column_group(&mut self) -> Step<Flow> {
        if !self.current_is(&local_name!("colgroup")) {
            return Ok(Flow::Done);
        }
        self.pop()?;
        self.mode = Mode::InTable;
        Ok(Flow::Again)
    }

    pub(super) fn leave_table_body(&mut self) -> Step<Flow> {
        let outer = |n: &LocalName| {
            matches!(
                *n,
                local_name!("table") | local_name!("tbody") | local_name!("tfoot")
            )
        };
        if !self.in_scope(table_scope, outer) {
            return Ok(Flow::Done);
        }
        self.pop_until_current(table_body_context)?;
        self.pop()?;
        self.mode = Mode::InTable;
        Ok(Flow::Again)
    }

    pub(super) fn leave_row(&mut self) -> Step<Flow> {
        if !self.in_scope_named(table_scope, &local_name!("tr")) {
            return Ok(Flow::Done);
        }
        self.pop_until_current(table_row_context)?;
        self.pop()?;
        self.mode = Mode::InTableBody;
        Ok(Flow::Again)
    }

    pub(super) fn close_cell(&mut self) -> Step {
        self.generate_implied_end_tags(None)?;
        self.pop_until(td_th)?;
        self.clear_formatting_to_marker();
        self.mode = Mode::InRow;
        Ok(())
    }

    pub(super) fn reset_mode(&self) -> Step<Mode> {
        for (i, o) in self.open.iter().enumerate().rev() {
            if o.svg {
                continue;
            }
            let last = i == 0;
            let mode = match o.name {
                local_name!("td") | local_name!("th") if !last => Mode::InCell,
                local_name!("tr") => Mode::InRow,
                local_name!("tbody") | local_name!("thead") | local_name!("tfoot") => {
                    Mode::InTableBody
                }
                local_name!("caption") => Mode::InCaption,
                local_name!("colgroup") => Mode::InColumnGroup,
                local_name!("table") => Mode::InTable,
                local_name!("template") | local_name!("frameset") => return Err(Leave),
                local_name!("head") if !last => Mode::InHead,
                local_name!("body") => Mode::InBody,
                local_name!("html") => {
                    if self.head.is_none() {
                        Mode::BeforeHead
                    } else {
                        Mode::AfterHead
                    }
                }
                _ => continue,
            };
            return Ok(mode);
        }
        Ok(Mode::InBody)
    }

    pub(super) fn caption_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        if table_part(&tag.name) {
            return self.close_caption(true);
        }
        self.body_start(take_tag(tag))
    }

    pub(super) fn column_group_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("html") => self.body_start(take_tag(tag)),
            local_name!("col") => {
                self.insert_void(take_tag(tag))?;
                Ok(Flow::Done)
            }
            local_name!("template") => Err(Leave),
            _ => self.leave_column_group(),
        }
    }

    pub(super) fn table_body_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("tr") => {
                self.pop_until_current(table_body_context)?;
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InRow;
                Ok(Flow::Done)
            }
            local_name!("th") | local_name!("td") => {
                self.pop_until_current(table_body_context)?;
                self.insert_phantom(local_name!("tr"))?;
                self.mode = Mode::InRow;
                Ok(Flow::Again)
            }
            _ if table_part(&tag.name) => self.leave_table_body(),
            _ => self.table_start(tag),
        }
    }

    pub(super) fn row_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("th") | local_name!("td") => {
                self.pop_until_current(table_row_context)?;
                self.insert_html(take_tag(tag))?;
                self.mode = Mode::InCell;
                self.formatting.push(Entry::Marker);
                Ok(Flow::Done)
            }
            _ if table_part(&tag.name) => self.leave_row(),
            _ => self.table_start(tag),
        }
    }

    pub(super) fn cell_start(&mut self, tag: &mut RawTag) -> Step<Flow> {
        if !table_part(&tag.name) {
            return self.body_start(take_tag(tag));
        }
        if !self.in_scope(table_scope, td_th) {
            return Ok(Flow::Done);
        }
        self.close_cell()?;
        Ok(Flow::Again)
    }

    pub(super) fn caption_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("table") => self.close_caption(true),
            local_name!("caption") => self.close_caption(false),
            local_name!("body") | local_name!("html") => Ok(Flow::Done),
            _ if table_part(name) => Ok(Flow::Done),
            _ => self.body_end(name),
        }
    }

    pub(super) fn column_group_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("colgroup") => {
                if self.current_is(&local_name!("colgroup")) {
                    self.pop()?;
                    self.mode = Mode::InTable;
                }
                Ok(Flow::Done)
            }
            local_name!("col") => Ok(Flow::Done),
            local_name!("template") => Err(Leave),
            _ => self.leave_column_group(),
        }
    }

    pub(super) fn table_body_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                if self.in_scope_named(table_scope, name) {
                    self.pop_until_current(table_body_context)?;
                    self.pop()?;
                    self.mode = Mode::InTable;
                }
                Ok(Flow::Done)
            }
            local_name!("table") => self.leave_table_body(),
            local_name!("body") | local_name!("html") => Ok(Flow::Done),
            _ if table_part(name) => Ok(Flow::Done),
            _ => self.table_end(name),
        }
    }

    pub(super) fn row_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("tr") => {
                if self.in_scope_named(table_scope, &local_name!("tr")) {
                    self.pop_until_current(table_row_context)?;
                    self.pop()?;
                    self.mode = Mode::InTableBody;
                }
                Ok(Flow::Done)
            }
            local_name!("table") => self.leave_row(),
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                if !self.in_scope_named(table_scope, name)
                    || !self.in_scope_named(table_scope, &local_name!("tr"))
                {
                    return Ok(Flow::Done);
                }
                self.pop_until_current(table_row_context)?;
                self.pop()?;
                self.mode = Mode::InTableBody;
                Ok(Flow::Again)
            }
            local_name!("body") | local_name!("html") => Ok(Flow::Done),
            _ if table_part(name) => Ok(Flow::Done),
            _ => self.table_end(name),
        }
    }

    pub(super) fn cell_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("td") | local_name!("th") => {
                if self.in_scope_named(table_scope, name) {
                    self.generate_implied_end_tags(None)?;
                    self.pop_until_named(name)?;
                    self.clear_formatting_to_marker();
                    self.mode = Mode::InRow;
                }
                Ok(Flow::Done)
            }
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html") => Ok(Flow::Done),
            local_name!("table")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("tr") => {
                if !self.in_scope_named(table_scope, name) {
                    return Ok(Flow::Done);
                }
                self.close_cell()?;
                Ok(Flow::Again)
            }
            _ => self.body_end(name),
        }
    }
}
