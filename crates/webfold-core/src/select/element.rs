//! `selectors::Element` for a node of our arena.

use selectors::OpaqueElement;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::context::MatchingContext;
use selectors::matching::ElementSelectorFlags;

use super::{CssLocalName, CssString, PseudoClass, PseudoElement, Simple};
use crate::page::{ElementData, LocalName, Namespace, NodeData, NodeId, Page, ns};

#[derive(Clone, Copy)]
pub(crate) struct ElementRef<'a> {
    page: &'a Page,
    id: NodeId,
}

impl std::fmt::Debug for ElementRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}#{}>", self.data().local_name(), self.id)
    }
}

impl<'a> ElementRef<'a> {
    pub(crate) fn new(page: &'a Page, id: NodeId) -> Self {
        ElementRef { page, id }
    }

    fn data(&self) -> &'a ElementData {
        match &self.page.node(self.id).data {
            NodeData::Element(e) => e,
            // Only ever constructed for elements.
            _ => unreachable!("ElementRef on a non-element"),
        }
    }

    fn wrap(&self, id: Option<NodeId>) -> Option<Self> {
        id.map(|id| ElementRef {
            page: self.page,
            id,
        })
    }

    fn sibling_element(&self, forward: bool) -> Option<Self> {
        let mut cur = self.page.node(self.id);
        loop {
            let next = if forward {
                cur.next_sibling
            } else {
                cur.prev_sibling
            }?;
            if self.page.is_element(next) {
                return self.wrap(Some(next));
            }
            cur = self.page.node(next);
        }
    }

    fn is_form_control(&self) -> bool {
        let e = self.data();
        e.is_html()
            && matches!(
                e.local_name(),
                "button" | "input" | "select" | "textarea" | "optgroup" | "option" | "fieldset"
            )
    }

    fn is_disabled(&self) -> bool {
        let e = self.data();
        if !self.is_form_control() {
            return false;
        }
        if e.has_attr("disabled") {
            return true;
        }
        // A disabled <fieldset> disables its descendants (outside its first legend),
        // and a disabled <optgroup> its options.
        self.page.ancestors(self.id).any(|a| {
            self.page.element(a).is_some_and(|ae| {
                ae.is_html()
                    && ae.has_attr("disabled")
                    && (ae.local_name() == "fieldset"
                        || (ae.local_name() == "optgroup" && e.local_name() == "option"))
            })
        })
    }

    fn is_text_input(&self) -> bool {
        let e = self.data();
        e.is_html()
            && match e.local_name() {
                "textarea" => true,
                "input" => matches!(
                    e.attr("type").map(|t| t.to_ascii_lowercase()).as_deref(),
                    None | Some(
                        "" | "text"
                            | "search"
                            | "url"
                            | "tel"
                            | "email"
                            | "password"
                            | "number"
                            | "date"
                            | "month"
                            | "week"
                            | "time"
                            | "datetime-local"
                    )
                ),
                _ => false,
            }
    }
}

impl selectors::Element for ElementRef<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.page.node(self.id))
    }

    fn parent_element(&self) -> Option<Self> {
        let p = self.page.parent(self.id)?;
        self.page.is_element(p).then_some(ElementRef {
            page: self.page,
            id: p,
        })
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.sibling_element(false)
    }

    fn next_sibling_element(&self) -> Option<Self> {
        self.sibling_element(true)
    }

    fn first_element_child(&self) -> Option<Self> {
        self.wrap(self.page.element_children(self.id).next())
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.data().is_html()
    }

    fn has_local_name(&self, local_name: &LocalName) -> bool {
        self.data().name.local == *local_name
    }

    fn has_namespace(&self, ns: &Namespace) -> bool {
        self.data().name.ns == *ns
    }

    fn is_same_type(&self, other: &Self) -> bool {
        let (a, b) = (&self.data().name, &other.data().name);
        a.local == b.local && a.ns == b.ns
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&Namespace>,
        local_name: &CssLocalName,
        operation: &AttrSelectorOperation<&CssString>,
    ) -> bool {
        self.data().attrs.iter().any(|a| {
            a.name.local == local_name.0
                && match ns {
                    NamespaceConstraint::Any => true,
                    NamespaceConstraint::Specific(url) => a.name.ns == **url,
                }
                && operation.eval_str(&a.value)
        })
    }

    fn match_non_ts_pseudo_class(
        &self,
        pc: &PseudoClass,
        _context: &mut MatchingContext<Self::Impl>,
    ) -> bool {
        let e = self.data();
        let tag = e.local_name();
        match pc {
            PseudoClass::AnyLink | PseudoClass::Link => self.is_link(),
            PseudoClass::Checked => {
                e.is_html()
                    && match tag {
                        "input" => {
                            e.has_attr("checked")
                                && matches!(
                                    e.attr("type").map(|t| t.to_ascii_lowercase()).as_deref(),
                                    Some("checkbox" | "radio")
                                )
                        }
                        "option" => e.has_attr("selected"),
                        _ => false,
                    }
            }
            PseudoClass::Disabled => self.is_disabled(),
            PseudoClass::Enabled => self.is_form_control() && !self.is_disabled(),
            PseudoClass::Required => {
                e.is_html()
                    && matches!(tag, "input" | "select" | "textarea")
                    && e.has_attr("required")
            }
            PseudoClass::Optional => {
                e.is_html()
                    && matches!(tag, "input" | "select" | "textarea")
                    && !e.has_attr("required")
            }
            PseudoClass::ReadWrite => {
                (self.is_text_input() && !e.has_attr("readonly") && !self.is_disabled())
                    || e.attr("contenteditable").is_some_and(|v| {
                        v.is_empty()
                            || v.eq_ignore_ascii_case("true")
                            || v.eq_ignore_ascii_case("plaintext-only")
                    })
            }
            PseudoClass::ReadOnly => {
                !self.match_non_ts_pseudo_class(&PseudoClass::ReadWrite, _context)
            }
            PseudoClass::PlaceholderShown => {
                self.is_text_input()
                    && e.has_attr("placeholder")
                    && (tag == "textarea" && self.page.text_content(self.id).is_empty()
                        || tag == "input" && e.attr("value").is_none_or(str::is_empty))
            }
            PseudoClass::Visited
            | PseudoClass::Hover
            | PseudoClass::Active
            | PseudoClass::Focus
            | PseudoClass::FocusWithin
            | PseudoClass::FocusVisible
            | PseudoClass::Target => false,
        }
    }

    fn match_pseudo_element(
        &self,
        pe: &PseudoElement,
        _context: &mut MatchingContext<Self::Impl>,
    ) -> bool {
        match *pe {}
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        let e = self.data();
        e.name.ns == ns!(html)
            && matches!(e.local_name(), "a" | "area" | "link")
            && e.has_attr("href")
    }

    fn is_html_slot_element(&self) -> bool {
        false
    }

    fn has_id(&self, id: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.data()
            .id()
            .is_some_and(|v| case_sensitivity.eq(v.as_bytes(), id.0.as_bytes()))
    }

    fn has_class(&self, name: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.data()
            .classes()
            .any(|c| case_sensitivity.eq(c.as_bytes(), name.0.as_bytes()))
    }

    fn has_custom_state(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn imported_part(&self, _name: &CssLocalName) -> Option<CssLocalName> {
        None
    }

    fn is_part(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        self.page
            .children(self.id)
            .all(|c| match &self.page.node(c).data {
                NodeData::Element(_) => false,
                NodeData::Text(t) => t.is_empty(),
                _ => true,
            })
    }

    fn is_root(&self) -> bool {
        self.page.parent(self.id) == Some(NodeId::DOCUMENT)
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}
