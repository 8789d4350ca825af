//! CSS selectors with `querySelector` semantics over a [`Page`].
//!
//! We plug our arena into Servo's `selectors` crate (the engine Firefox uses),
//! so matching is the real thing: `:has()`, `:is()`, `:not()`, `:nth-child(An+B
//! of S)`, attribute operators with `i`/`s` flags. State pseudo-classes that
//! markup can answer (`:checked`, `:disabled`, `:required`, …) are answered from
//! attributes; user-action states (`:hover`, `:focus`) never match a static page.

mod element;
mod keys;
mod suggest;
mod syntax;
mod unique;

pub use suggest::suggest_selectors;
pub use unique::UniqueSelectors;

use cssparser::{ParseError, ToCss};
use precomputed_hash::PrecomputedHash;
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::parser::{ParseRelative, SelectorList, SelectorParseErrorKind};

use crate::error::Error;
use crate::page::{LocalName, Namespace, NodeId, Page};

pub(crate) use element::ElementRef;

/// Our `SelectorImpl`: plain HTML, no pseudo-elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simple;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CssString(pub String);

impl<'a> From<&'a str> for CssString {
    fn from(s: &'a str) -> Self {
        CssString(s.to_string())
    }
}

impl AsRef<str> for CssString {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl ToCss for CssString {
    fn to_css<W: std::fmt::Write>(&self, dest: &mut W) -> std::fmt::Result {
        cssparser::serialize_string(&self.0, dest)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CssLocalName(pub LocalName);

impl<'a> From<&'a str> for CssLocalName {
    fn from(s: &'a str) -> Self {
        CssLocalName(LocalName::from(s))
    }
}

impl ToCss for CssLocalName {
    fn to_css<W: std::fmt::Write>(&self, dest: &mut W) -> std::fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl PrecomputedHash for CssLocalName {
    fn precomputed_hash(&self) -> u32 {
        self.0.precomputed_hash()
    }
}

impl std::borrow::Borrow<LocalName> for CssLocalName {
    fn borrow(&self) -> &LocalName {
        &self.0
    }
}

/// Pseudo-classes beyond the tree-structural ones the engine handles itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PseudoClass {
    AnyLink,
    Link,
    Visited,
    Checked,
    Disabled,
    Enabled,
    Required,
    Optional,
    ReadOnly,
    ReadWrite,
    PlaceholderShown,
    Hover,
    Active,
    Focus,
    FocusWithin,
    FocusVisible,
    Target,
}

impl PseudoClass {
    fn name(self) -> &'static str {
        match self {
            PseudoClass::AnyLink => "any-link",
            PseudoClass::Link => "link",
            PseudoClass::Visited => "visited",
            PseudoClass::Checked => "checked",
            PseudoClass::Disabled => "disabled",
            PseudoClass::Enabled => "enabled",
            PseudoClass::Required => "required",
            PseudoClass::Optional => "optional",
            PseudoClass::ReadOnly => "read-only",
            PseudoClass::ReadWrite => "read-write",
            PseudoClass::PlaceholderShown => "placeholder-shown",
            PseudoClass::Hover => "hover",
            PseudoClass::Active => "active",
            PseudoClass::Focus => "focus",
            PseudoClass::FocusWithin => "focus-within",
            PseudoClass::FocusVisible => "focus-visible",
            PseudoClass::Target => "target",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        let all = [
            PseudoClass::AnyLink,
            PseudoClass::Link,
            PseudoClass::Visited,
            PseudoClass::Checked,
            PseudoClass::Disabled,
            PseudoClass::Enabled,
            PseudoClass::Required,
            PseudoClass::Optional,
            PseudoClass::ReadOnly,
            PseudoClass::ReadWrite,
            PseudoClass::PlaceholderShown,
            PseudoClass::Hover,
            PseudoClass::Active,
            PseudoClass::Focus,
            PseudoClass::FocusWithin,
            PseudoClass::FocusVisible,
            PseudoClass::Target,
        ];
        all.into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }
}

impl ToCss for PseudoClass {
    fn to_css<W: std::fmt::Write>(&self, dest: &mut W) -> std::fmt::Result {
        dest.write_char(':')?;
        dest.write_str(self.name())
    }
}

impl selectors::parser::NonTSPseudoClass for PseudoClass {
    fn is_active_or_hover(&self) -> bool {
        matches!(self, PseudoClass::Active | PseudoClass::Hover)
    }
    fn is_user_action_state(&self) -> bool {
        matches!(
            self,
            PseudoClass::Active
                | PseudoClass::Hover
                | PseudoClass::Focus
                | PseudoClass::FocusWithin
        )
    }
}

/// No pseudo-element is supported: querySelector never matches one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PseudoElement {}

impl ToCss for PseudoElement {
    fn to_css<W: std::fmt::Write>(&self, _dest: &mut W) -> std::fmt::Result {
        match *self {}
    }
}

impl selectors::parser::PseudoElement for PseudoElement {}

impl selectors::parser::SelectorImpl for Simple {
    type ExtraMatchingData<'a> = ();
    type AttrValue = CssString;
    type Identifier = CssLocalName;
    type LocalName = CssLocalName;
    type NamespaceUrl = Namespace;
    type NamespacePrefix = CssLocalName;
    type BorrowedNamespaceUrl = Namespace;
    type BorrowedLocalName = LocalName;
    type NonTSPseudoClass = PseudoClass;
    type PseudoElement = PseudoElement;
}

struct SelectorParser;

impl<'i> selectors::parser::Parser<'i> for SelectorParser {
    type Impl = Simple;
    type Error = SelectorParseErrorKind;

    fn parse_non_ts_pseudo_class(
        &self,
        name: &str,
    ) -> Result<PseudoClass, ParseError<Self::Error>> {
        PseudoClass::from_name(name).ok_or_else(|| {
            ParseError::custom(SelectorParseErrorKind::UnsupportedPseudoClassOrElement)
        })
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_has(&self) -> bool {
        true
    }
}

/// A parsed selector list, ready to match many times.
#[derive(Clone, Debug)]
pub struct Selector {
    list: SelectorList<Simple>,
    keys: keys::Keys,
    source: String,
}

impl Selector {
    /// Parse a selector list, or say where and why it is invalid.
    pub fn parse(source: &str) -> Result<Selector, Error> {
        let mut parser = cssparser::Parser::new(source);
        SelectorList::parse(&SelectorParser, &mut parser, ParseRelative::No)
            .map(|list| Selector {
                keys: keys::Keys::of(&list),
                list,
                source: source.to_string(),
            })
            .map_err(|e| {
                let position = syntax::error_column(source, parses);
                Error::InvalidSelector {
                    selector: source.to_string(),
                    position,
                    reason: syntax::describe(&e, source, position, parses),
                }
            })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether element `id` matches.
    pub fn matches(&self, page: &Page, id: NodeId) -> bool {
        let mut caches = SelectorCaches::default();
        let mut ctx = new_context(page, &mut caches);
        self.matches_with(page, id, &mut ctx)
    }

    fn matches_with(&self, page: &Page, id: NodeId, ctx: &mut MatchingContext<'_, Simple>) -> bool {
        page.element(id).is_some_and(|e| self.keys.may_match(e))
            && self.engine_matches(page, id, ctx)
    }

    fn engine_matches(
        &self,
        page: &Page,
        id: NodeId,
        ctx: &mut MatchingContext<'_, Simple>,
    ) -> bool {
        page.is_element(id)
            && !page.node(id).inert
            && selectors::matching::matches_selector_list(
                &self.list,
                ElementRef::new(page, id),
                ctx,
            )
    }

    /// [`Self::matches`] by the engine alone, without the keys' first pass:
    /// what the tests and fuzzers hold the keys to. Not behind a feature, as
    /// [`Page::parse_with_html5ever_tokenizer`].
    #[doc(hidden)]
    pub fn matches_by_engine_alone(&self, page: &Page, id: NodeId) -> bool {
        let mut caches = SelectorCaches::default();
        let mut ctx = new_context(page, &mut caches);
        self.engine_matches(page, id, &mut ctx)
    }
}

fn new_context<'a>(page: &Page, caches: &'a mut SelectorCaches) -> MatchingContext<'a, Simple> {
    let quirks = if page.quirks_mode() {
        QuirksMode::Quirks
    } else {
        QuirksMode::NoQuirks
    };
    MatchingContext::new(
        MatchingMode::Normal,
        None,
        caches,
        quirks,
        NeedsSelectorFlags::No,
        MatchingForInvalidation::No,
    )
}

fn parses(text: &str) -> bool {
    let mut parser = cssparser::Parser::new(text);
    SelectorList::parse(&SelectorParser, &mut parser, ParseRelative::No).is_ok()
}

impl Page {
    /// Every element matching `sel` under `scope` (the whole document for
    /// `NodeId::DOCUMENT`), in document order, as `querySelectorAll`.
    pub fn select_within(&self, scope: NodeId, sel: &Selector) -> Vec<NodeId> {
        let mut caches = SelectorCaches::default();
        let mut ctx = new_context(self, &mut caches);
        self.descendants(scope)
            .filter(|&n| sel.matches_with(self, n, &mut ctx))
            .collect()
    }

    /// `querySelectorAll` over the document.
    pub fn select(&self, sel: &Selector) -> Vec<NodeId> {
        self.select_within(NodeId::DOCUMENT, sel)
    }

    /// `querySelector`: the first match in document order.
    pub fn select_first(&self, sel: &Selector) -> Option<NodeId> {
        let mut caches = SelectorCaches::default();
        let mut ctx = new_context(self, &mut caches);
        self.descendants(NodeId::DOCUMENT)
            .find(|&n| sel.matches_with(self, n, &mut ctx))
    }

    /// Parse and run `querySelectorAll`.
    pub fn query_all(&self, selector: &str) -> Result<Vec<NodeId>, Error> {
        Ok(self.select(&Selector::parse(selector)?))
    }

    /// Parse and run `querySelector`; a miss is an error with suggestions.
    pub fn query(&self, selector: &str) -> Result<NodeId, Error> {
        let sel = Selector::parse(selector)?;
        self.select_first(&sel)
            .ok_or_else(|| Error::ElementNotFound {
                selector: selector.to_string(),
                suggestions: suggest_selectors(self, selector, 3),
            })
    }
}

#[cfg(test)]
mod tests;
