//! What an element must have to match a selector list at all, read once from
//! the list so that most elements are passed over before the engine runs.
//!
//! A selector matches an element only if its rightmost compound does, so an
//! id, class, attribute or tag named there is a necessary condition. Browsers
//! bucket their rules the same way. The check here is looser than the engine's
//! (names compare without regard to ASCII case, which quirks mode and foreign
//! elements may need), so it never rejects an element the engine would match;
//! the engine still decides every element it lets through.

use selectors::parser::{Component, SelectorList};

use crate::page::{ElementData, LocalName};

use super::Simple;

/// One necessary condition of one selector of the list.
#[derive(Clone, Debug)]
enum Key {
    Id(LocalName),
    Class(LocalName),
    /// An attribute by name, as written and lowercased.
    Attr(LocalName, LocalName),
    /// A tag by name, as written and lowercased.
    Tag(LocalName, LocalName),
}

/// The keys of a selector list: an element can match only if it has one of
/// them. `None` when some selector of the list names nothing to key on.
#[derive(Clone, Debug)]
pub(super) struct Keys(Option<Box<[Key]>>);

impl Keys {
    pub(super) fn of(list: &SelectorList<Simple>) -> Keys {
        let keys: Option<Vec<Key>> = list.slice().iter().map(|s| key_of(s.iter())).collect();
        Keys(keys.map(Vec::into_boxed_slice))
    }

    /// False only when `e` cannot match any selector of the list.
    pub(super) fn may_match(&self, e: &ElementData) -> bool {
        let Some(keys) = &self.0 else {
            return true;
        };
        keys.iter().any(|k| match k {
            Key::Id(id) => e.id().is_some_and(|v| v.eq_ignore_ascii_case(id)),
            Key::Class(c) => e.classes().any(|v| v.eq_ignore_ascii_case(c)),
            Key::Attr(name, lower) => e
                .attrs
                .iter()
                .any(|a| a.name.local == *name || a.name.local == *lower),
            Key::Tag(name, lower) => e.name.local == *name || e.name.local == *lower,
        })
    }
}

/// The most selective key of a rightmost compound: an id, then a class, then
/// an attribute, then a tag.
fn key_of<'a>(compound: impl Iterator<Item = &'a Component<Simple>>) -> Option<Key> {
    let rank = |k: &Key| match k {
        Key::Id(_) => 0,
        Key::Class(_) => 1,
        Key::Attr(..) => 2,
        Key::Tag(..) => 3,
    };
    compound
        .filter_map(|c| match c {
            Component::ID(id) => Some(Key::Id(id.0.clone())),
            Component::Class(c) => Some(Key::Class(c.0.clone())),
            Component::AttributeInNoNamespaceExists {
                local_name,
                local_name_lower,
            } => Some(Key::Attr(local_name.0.clone(), local_name_lower.0.clone())),
            Component::AttributeInNoNamespace { local_name, .. } => {
                Some(Key::Attr(local_name.0.clone(), local_name.0.clone()))
            }
            Component::LocalName(l) => Some(Key::Tag(l.name.0.clone(), l.lower_name.0.clone())),
            _ => None,
        })
        .min_by_key(rank)
}

#[cfg(test)]
mod tests {
    use crate::page::Page;
    use crate::select::Selector;

    /// Every selector here matches through the keys exactly as it does
    /// without them, on a page that tries their looseness: case, foreign
    /// elements, quirks mode, lists where one selector has no key.
    #[test]
    fn keys_never_change_what_matches() {
        let pages = [
            "<!doctype html><div id=Main class='a B'><p data-x=1 class=b>t</p>\
             <svg viewBox='0 0 1 1'><foreignObject><span>x</span></foreignObject></svg></div>",
            "<div ID=main CLASS=A><P Data-X>t</P><a rel=author href=/x>me</a></div>",
        ];
        let selectors = [
            "#main",
            "#Main",
            ".a",
            ".b",
            ".B",
            "[data-x]",
            "[DATA-X]",
            "[data-x='1']",
            "p",
            "P",
            "svg",
            "foreignObject",
            "foreignobject",
            "[viewBox]",
            "[viewbox]",
            "svg[viewBox]",
            ":not(p)",
            "p, :first-child",
            "div > p.b, [rel~=author]",
            "*",
            ":is(p, a)",
            "div :is(span)",
            "#main.a > p",
        ];
        for html in pages {
            let page = Page::parse(html);
            for s in selectors {
                let sel = Selector::parse(s).unwrap();
                let with: Vec<_> = page.select(&sel);
                let without: Vec<_> = page
                    .descendants(crate::NodeId::DOCUMENT)
                    .filter(|&n| sel.matches_by_engine_alone(&page, n))
                    .collect();
                assert_eq!(with, without, "{s} on {html}");
            }
        }
    }
}
