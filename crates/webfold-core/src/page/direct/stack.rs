//! The stack of open elements and the list of active formatting elements.

use html5ever::{LocalName, local_name};

use super::names::{button_scope, cursory_implied_end, default_scope, same_attrs, special};
use super::{Entry, Leave, Open, State, Step};
use crate::page::tokenize::RawTag;

impl State {
    pub(super) fn current_is(&self, name: &LocalName) -> bool {
        self.open.last().is_some_and(|o| !o.svg && o.name == *name)
    }

    pub(super) fn pop(&mut self) -> Step {
        // `<html>` stays: html5ever never pops it on the paths taken here.
        if self.open.len() <= 1 {
            return Err(Leave);
        }
        self.open.pop();
        Ok(())
    }

    /// Pop until an HTML element matching `is` has been popped.
    pub(super) fn pop_until(&mut self, is: impl Fn(&LocalName) -> bool) -> Step {
        let at = self
            .open
            .iter()
            .rposition(|o| !o.svg && is(&o.name))
            .filter(|&i| i > 0)
            .ok_or(Leave)?;
        self.open.truncate(at);
        Ok(())
    }

    pub(super) fn pop_until_named(&mut self, name: &LocalName) -> Step {
        self.pop_until(|n| n == name)
    }

    /// Pop until the current node is an HTML element in `set`.
    pub(super) fn pop_until_current(&mut self, set: fn(&LocalName) -> bool) -> Step {
        while !self.open.last().is_some_and(|o| !o.svg && set(&o.name)) {
            self.pop()?;
        }
        Ok(())
    }

    /// Whether an HTML element matching `is` is in the scope `scope`.
    pub(super) fn in_scope(
        &self,
        scope: fn(&Open) -> bool,
        is: impl Fn(&LocalName) -> bool,
    ) -> bool {
        for o in self.open.iter().rev() {
            if !o.svg && is(&o.name) {
                return true;
            }
            if scope(o) {
                return false;
            }
        }
        false
    }

    pub(super) fn in_scope_named(&self, scope: fn(&Open) -> bool, name: &LocalName) -> bool {
        self.in_scope(scope, |n| n == name)
    }

    pub(super) fn generate_implied_end_tags(&mut self, except: Option<&LocalName>) -> Step {
        while let Some(o) = self.open.last()
            && !o.svg
            && cursory_implied_end(&o.name)
            && Some(&o.name) != except
        {
            self.pop()?;
        }
        Ok(())
    }

    pub(super) fn close_p(&mut self) -> Step {
        self.generate_implied_end_tags(Some(&local_name!("p")))?;
        self.pop_until_named(&local_name!("p"))
    }

    pub(super) fn close_p_in_button_scope(&mut self) -> Step {
        if self.in_scope_named(button_scope, &local_name!("p")) {
            self.close_p()?;
        }
        Ok(())
    }

    pub(super) fn is_open(&self, id: u32) -> bool {
        self.open.iter().rev().any(|o| o.id == id)
    }

    pub(super) fn reconstruct_formatting(&mut self) -> Step {
        let Some(&last) = self.formatting.last() else {
            return Ok(());
        };
        let open = |s: &State, e: Entry| match e {
            Entry::Marker => true,
            Entry::Element(id) => s.is_open(id),
        };
        if open(self, last) {
            return Ok(());
        }
        let mut i = self.formatting.len() - 1;
        while i > 0 {
            if open(self, self.formatting[i - 1]) {
                break;
            }
            i -= 1;
        }
        for k in i..self.formatting.len() {
            let Entry::Element(old) = self.formatting[k] else {
                return Err(Leave);
            };
            let e = self.element(old)?;
            let (name, attrs) = (e.name.clone(), e.attrs.to_vec());
            self.formatting[k] = Entry::Element(self.insert(name, attrs, true)?);
        }
        Ok(())
    }

    /// The entries after the last marker, last first.
    pub(super) fn formatting_to_marker(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.formatting
            .iter()
            .enumerate()
            .rev()
            .map_while(|(i, e)| match *e {
                Entry::Marker => None,
                Entry::Element(id) => Some((i, id)),
            })
    }

    pub(super) fn insert_formatting(&mut self, tag: RawTag) -> Step {
        // Noah's Ark: at most three like entries after the last marker.
        let mut first = None;
        let mut count = 0;
        for (i, id) in self.formatting_to_marker() {
            let e = self.element(id)?;
            if e.name.local == tag.name && same_attrs(&e.attrs, &tag.attrs) {
                first = Some(i);
                count += 1;
            }
        }
        if count >= 3
            && let Some(i) = first
        {
            self.formatting.remove(i);
        }
        let id = self.insert_html(tag)?;
        self.formatting.push(Entry::Element(id));
        Ok(())
    }

    pub(super) fn clear_formatting_to_marker(&mut self) {
        while let Some(e) = self.formatting.pop() {
            if e == Entry::Marker {
                break;
            }
        }
    }

    /// The adoption agency, where no furthest block makes it move nodes.
    pub(super) fn adoption_agency(&mut self, subject: &LocalName) -> Step {
        if let Some(o) = self.open.last()
            && !o.svg
            && o.name == *subject
        {
            let id = o.id;
            if !self.formatting.contains(&Entry::Element(id)) {
                return self.pop();
            }
        }
        let mut found = None;
        for (i, id) in self.formatting_to_marker() {
            if self.element(id)?.name.local == *subject {
                found = Some((i, id));
                break;
            }
        }
        let Some((index, id)) = found else {
            return self.end_tag_in_body_generic(subject);
        };
        let Some(at) = self.open.iter().rposition(|o| o.id == id) else {
            self.formatting.remove(index);
            return Ok(());
        };
        if !self.in_scope_by_id(id) {
            return Ok(());
        }
        if self.open[at + 1..]
            .iter()
            .any(|o| !o.svg && special(&o.name))
        {
            return Err(Leave);
        }
        if at == 0 {
            return Err(Leave);
        }
        self.open.truncate(at);
        self.formatting.remove(index);
        Ok(())
    }

    pub(super) fn in_scope_by_id(&self, id: u32) -> bool {
        for o in self.open.iter().rev() {
            if o.id == id {
                return true;
            }
            if default_scope(o) {
                return false;
            }
        }
        false
    }
}
