//! The head's elements and the "in body" insertion mode: where most of a
//! page's tags are read.

use html5ever::tokenizer::states::RawKind;
use html5ever::{LocalName, QualName, local_name, ns};

use super::names::{
    block_closing_p, block_end, button_scope, default_scope, formatting, heading, ignored_in_body,
    in_head_start, leaves_in_body, list_item_scope, special,
};
use super::svg::{adjust_foreign_attributes, adjust_svg_attributes};
use super::{Entry, Flow, Leave, Mode, State, Step, html_name};
use crate::page::tokenize::RawTag;

impl State {
    /// The head's own elements, wherever they are read by the head's rules.
    pub(super) fn head_start(&mut self, tag: RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta") => {
                self.insert_void(tag)?;
                Ok(Flow::Done)
            }
            local_name!("title") => self.raw(tag, RawKind::Rcdata),
            local_name!("noframes") | local_name!("style") | local_name!("noscript") => {
                self.raw(tag, RawKind::Rawtext)
            }
            local_name!("script") => self.raw(tag, RawKind::ScriptData),
            _ => Err(Leave),
        }
    }

    /// An element whose text the tokenizer reads raw, up to its end tag.
    fn raw(&mut self, tag: RawTag, kind: RawKind) -> Step<Flow> {
        self.insert_html(tag)?;
        self.original_mode = self.mode;
        self.mode = Mode::Text;
        Ok(Flow::Raw(kind))
    }

    pub(super) fn body_start(&mut self, tag: RawTag) -> Step<Flow> {
        let name = &tag.name;
        if leaves_in_body(name) {
            return Err(Leave);
        }
        // `<noscript>` too: scripting is on, so its text is raw here as well.
        if in_head_start(name) {
            return self.head_start(tag);
        }
        match *name {
            local_name!("html") => {
                let html = self.open.first().ok_or(Leave)?.id;
                self.add_missing_attrs(html, tag.attrs);
            }
            local_name!("body") => {
                if let Some(body) = self.open.get(1)
                    && !body.svg
                    && body.name == local_name!("body")
                {
                    let body = body.id;
                    self.add_missing_attrs(body, tag.attrs);
                }
            }
            _ if block_closing_p(name) => {
                self.close_p_in_button_scope()?;
                self.insert_html(tag)?;
            }
            _ if heading(name) => {
                self.close_p_in_button_scope()?;
                if self.open.last().is_some_and(|o| !o.svg && heading(&o.name)) {
                    self.pop()?;
                }
                self.insert_html(tag)?;
            }
            local_name!("pre") | local_name!("listing") => {
                self.close_p_in_button_scope()?;
                self.insert_html(tag)?;
                self.ignore_lf = true;
            }
            local_name!("form") => {
                if self.form.is_none() {
                    self.close_p_in_button_scope()?;
                    self.form = Some(self.insert_html(tag)?);
                }
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => self.list_item(tag)?,
            local_name!("a") => self.link(tag)?,
            _ if formatting(name) => {
                self.reconstruct_formatting()?;
                self.insert_formatting(tag)?;
            }
            local_name!("svg") => self.svg(tag)?,
            _ if ignored_in_body(name) => {}
            _ => return self.body_start_element(tag),
        }
        Ok(Flow::Done)
    }

    /// The rest of the body's start tags.
    fn body_start_element(&mut self, tag: RawTag) -> Step<Flow> {
        match tag.name {
            local_name!("button") => {
                if self.in_scope_named(default_scope, &local_name!("button")) {
                    self.generate_implied_end_tags(None)?;
                    self.pop_until_named(&local_name!("button"))?;
                }
                self.reconstruct_formatting()?;
                self.insert_html(tag)?;
            }
            local_name!("table") => {
                if !self.quirks {
                    self.close_p_in_button_scope()?;
                }
                self.insert_html(tag)?;
                self.mode = Mode::InTable;
            }
            local_name!("textarea") => {
                self.ignore_lf = true;
                return self.raw(tag, RawKind::Rcdata);
            }
            local_name!("xmp") => {
                self.close_p_in_button_scope()?;
                self.reconstruct_formatting()?;
                return self.raw(tag, RawKind::Rawtext);
            }
            local_name!("iframe") | local_name!("noembed") => {
                return self.raw(tag, RawKind::Rawtext);
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                self.reconstruct_formatting()?;
                self.insert_html(tag)?;
                self.formatting.push(Entry::Marker);
            }
            local_name!("area")
            | local_name!("br")
            | local_name!("embed")
            | local_name!("img")
            | local_name!("keygen")
            | local_name!("wbr") => {
                self.reconstruct_formatting()?;
                self.insert_void(tag)?;
            }
            local_name!("input") => {
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    self.pop_until_named(&local_name!("select"))?;
                }
                self.reconstruct_formatting()?;
                self.insert_void(tag)?;
            }
            local_name!("param") | local_name!("source") | local_name!("track") => {
                self.insert_void(tag)?;
            }
            local_name!("hr") => {
                self.close_p_in_button_scope()?;
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    self.generate_implied_end_tags(None)?;
                }
                self.insert_void(tag)?;
            }
            local_name!("select") | local_name!("option") | local_name!("optgroup") => {
                self.select_part(tag)?;
            }
            _ => {
                self.reconstruct_formatting()?;
                self.insert_html(tag)?;
            }
        }
        Ok(Flow::Done)
    }

    /// `<select>`, `<option>`, `<optgroup>`: a select closes the one open,
    /// an option what an option or group left open.
    fn select_part(&mut self, tag: RawTag) -> Step {
        match tag.name {
            local_name!("select") => {
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    self.pop_until_named(&local_name!("select"))?;
                } else {
                    self.reconstruct_formatting()?;
                    self.insert_html(tag)?;
                }
            }
            local_name!("option") | local_name!("optgroup") => {
                if self.in_scope_named(default_scope, &local_name!("select")) {
                    let except =
                        (tag.name == local_name!("option")).then_some(local_name!("optgroup"));
                    self.generate_implied_end_tags(except.as_ref())?;
                } else if self.current_is(&local_name!("option")) {
                    self.pop()?;
                }
                self.reconstruct_formatting()?;
                self.insert_html(tag)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `<a>`: a link left open before it is closed by the adoption agency
    /// and taken out of both lists if that did not.
    fn link(&mut self, tag: RawTag) -> Step {
        let open_a = self.formatting_to_marker().map(|(_, id)| id).find(|&id| {
            self.element(id)
                .is_ok_and(|e| e.name.local == local_name!("a"))
        });
        if let Some(a) = open_a {
            self.adoption_agency(&local_name!("a"))?;
            self.formatting.retain(|e| *e != Entry::Element(a));
            if let Some(at) = self.open.iter().rposition(|o| o.id == a) {
                if at == 0 {
                    return Err(Leave);
                }
                self.open.remove(at);
            }
        }
        self.reconstruct_formatting()?;
        self.insert_formatting(tag)
    }

    fn svg(&mut self, mut tag: RawTag) -> Step {
        self.reconstruct_formatting()?;
        adjust_svg_attributes(&mut tag);
        adjust_foreign_attributes(&mut tag);
        let push = !tag.self_closing;
        self.insert(QualName::new(None, ns!(svg), tag.name), tag.attrs, push)?;
        Ok(())
    }

    fn list_item(&mut self, tag: RawTag) -> Step {
        let list = tag.name == local_name!("li");
        let mut to_close = None;
        for o in self.open.iter().rev() {
            let closes = !o.svg
                && if list {
                    o.name == local_name!("li")
                } else {
                    matches!(o.name, local_name!("dd") | local_name!("dt"))
                };
            if closes {
                to_close = Some(o.name.clone());
                break;
            }
            if !o.svg
                && special(&o.name)
                && !matches!(
                    o.name,
                    local_name!("address") | local_name!("div") | local_name!("p")
                )
            {
                break;
            }
        }
        if let Some(name) = to_close {
            self.generate_implied_end_tags(Some(&name))?;
            self.pop_until_named(&name)?;
        }
        self.close_p_in_button_scope()?;
        self.insert_html(tag)?;
        Ok(())
    }

    pub(super) fn body_end(&mut self, name: &LocalName) -> Step<Flow> {
        match *name {
            local_name!("body") | local_name!("html") => {
                if !self.in_scope_named(default_scope, &local_name!("body")) {
                    return Ok(Flow::Done);
                }
                self.mode = Mode::AfterBody;
                return Ok(if *name == local_name!("html") {
                    Flow::Again
                } else {
                    Flow::Done
                });
            }
            _ if block_end(name) => {
                if self.in_scope_named(default_scope, name) {
                    self.generate_implied_end_tags(None)?;
                    self.pop_until_named(name)?;
                }
            }
            local_name!("form") => self.form_end()?,
            local_name!("p") => {
                if !self.in_scope_named(button_scope, &local_name!("p")) {
                    self.insert_phantom(local_name!("p"))?;
                }
                self.close_p()?;
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let scope = if *name == local_name!("li") {
                    list_item_scope
                } else {
                    default_scope
                };
                if self.in_scope_named(scope, name) {
                    self.generate_implied_end_tags(Some(name))?;
                    self.pop_until_named(name)?;
                }
            }
            _ if heading(name) => {
                if self.in_scope(default_scope, heading) {
                    self.generate_implied_end_tags(None)?;
                    self.pop_until(heading)?;
                }
            }
            _ if formatting(name) || matches!(*name, local_name!("a") | local_name!("nobr")) => {
                self.adoption_agency(name)?;
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                if self.in_scope_named(default_scope, name) {
                    self.generate_implied_end_tags(None)?;
                    self.pop_until_named(name)?;
                    self.clear_formatting_to_marker();
                }
            }
            local_name!("br") => {
                self.reconstruct_formatting()?;
                self.insert(html_name(local_name!("br")), Vec::new(), false)?;
            }
            local_name!("template") => return Err(Leave),
            _ => self.end_tag_in_body_generic(name)?,
        }
        Ok(Flow::Done)
    }

    /// `</form>`: the form the pointer names, wherever it is on the stack.
    fn form_end(&mut self) -> Step {
        let Some(form) = self.form.take() else {
            return Ok(());
        };
        if !self.in_scope_by_id(form) {
            return Ok(());
        }
        self.generate_implied_end_tags(None)?;
        if let Some(at) = self.open.iter().rposition(|o| o.id == form) {
            if at == 0 {
                return Err(Leave);
            }
            self.open.remove(at);
        }
        Ok(())
    }

    /// "Any other end tag" in the body.
    pub(super) fn end_tag_in_body_generic(&mut self, name: &LocalName) -> Step {
        let mut at = None;
        for (i, o) in self.open.iter().enumerate().rev() {
            if !o.svg && o.name == *name {
                at = Some(i);
                break;
            }
            if !o.svg && special(&o.name) {
                return Ok(());
            }
        }
        let Some(at) = at.filter(|&i| i > 0) else {
            return Err(Leave);
        };
        self.generate_implied_end_tags(Some(name))?;
        self.open.truncate(at);
        Ok(())
    }
}
