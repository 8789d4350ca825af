//! A page a program holds and asks views of by name: what the Python and
//! Node packages wrap, so that both run views one way. Options are read in
//! the words of a library call (`max_tokens`), and the text is spelled as
//! the command line's, so what an agent reads does not depend on the
//! language that asked.

use serde_json::{Map, Value};

use super::{AnyView, Envelope, Input, SessionUse, VIEWS, by_name};
use crate::contract::{Ctx, Surface};
use crate::snapshot::SnapshotSession;
use crate::tokens::Encoding;
use crate::{Error, Page};

/// A parsed page with its snapshot session (history and stable refs across
/// calls, as the command line's `--session` keeps them).
pub struct HeldPage {
    page: Page,
    url: String,
    session: SnapshotSession,
}

impl HeldPage {
    /// `bytes` decoded as a browser would (with `content_type` when it came
    /// over HTTP) and parsed; empty or binary input is refused.
    pub fn parse(
        bytes: &[u8],
        content_type: Option<&str>,
        url: Option<String>,
    ) -> Result<Self, Error> {
        let text = crate::decode::decode_html(bytes, content_type).text;
        Self::checked(bytes, &text, url)
    }

    /// `text`, decoded already (a Python or JavaScript string), parsed as
    /// it is: a `<meta charset>` in it says how its bytes were once
    /// encoded, not how to read it now.
    pub fn from_text(text: &str, url: Option<String>) -> Result<Self, Error> {
        Self::checked(text.as_bytes(), text, url)
    }

    fn checked(bytes: &[u8], text: &str, url: Option<String>) -> Result<Self, Error> {
        crate::decode::check_page(bytes, text)?;
        Ok(HeldPage {
            page: Page::parse(text),
            url: url.unwrap_or_default(),
            session: SnapshotSession::new(),
        })
    }

    /// About how many bytes of heap the page holds ([`Page::heap_bytes`]).
    pub fn heap_bytes(&self) -> usize {
        self.page.heap_bytes() + self.url.capacity()
    }

    /// The page's address, as given ("" when none was).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The view `name` (its method name, `_` or `-`) with `options`.
    pub fn view(&mut self, name: &str, options: Map<String, Value>) -> Result<Envelope, Error> {
        let view = named(name)?;
        // Read in the library's words for a wrong option; run as the command line.
        view.call_from_json(
            options.clone(),
            Ctx::new(Surface::Http, Encoding::default()),
        )?;
        let call = view.call_from_json(options, Ctx::new(Surface::Cli, Encoding::default()))?;
        let mut input = Input::page(&self.page, &self.url);
        if view.session() != SessionUse::None {
            input.session = Some(&mut self.session);
        }
        call.run(&mut input)
    }
}

/// A view's method name: its command's name with `_` for `-`.
pub fn method_name(view: &dyn AnyView) -> String {
    view.name().on(Surface::Cli).replace('-', "_")
}

fn named(name: &str) -> Result<&'static dyn AnyView, Error> {
    by_name(&name.replace('_', "-"), Surface::Cli).ok_or_else(|| {
        let names: Vec<String> = VIEWS.iter().map(|v| method_name(*v)).collect();
        Error::InvalidOption(format!(
            "no view named '{name}': the views are {}",
            names.join(", ")
        ))
    })
}

/// Every view as a library lists it: method name, summary, options' JSON
/// Schema, and whether it keeps the snapshot session (`none`, `reads`,
/// `moves`).
pub fn catalog() -> Vec<(String, &'static str, Map<String, Value>, &'static str)> {
    VIEWS
        .iter()
        .map(|v| {
            let session = match v.session() {
                SessionUse::None => "none",
                SessionUse::Reads => "reads",
                SessionUse::Moves => "moves",
            };
            (method_name(*v), v.about(), v.schema(), session)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_run_by_name_with_the_session_kept() {
        let html = b"<html><body><button>Buy</button></body></html>";
        let mut page = HeldPage::parse(html, None, Some("https://shop.test/".into())).unwrap();
        let snap = page.view("snapshot", Map::new()).unwrap();
        let r = snap
            .text
            .split("[ref=")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap()
            .to_string();
        let mut args = Map::new();
        args.insert("ref".into(), Value::String(r));
        assert!(
            page.view("chunk", args)
                .unwrap()
                .text
                .contains("<button>Buy</button>")
        );
        let e = page.view("nope", Map::new()).unwrap_err().to_string();
        assert!(
            e.contains("no view named 'nope'") && e.contains("snapshot"),
            "{e}"
        );
        let mut bad = Map::new();
        bad.insert("max_tokens".into(), Value::from(0));
        let e = page.view("outline", bad).unwrap_err().to_string();
        assert!(e.starts_with("max_tokens "), "{e}");
        assert!(HeldPage::parse(b"  ", None, None).is_err());
    }

    #[test]
    fn tokens_left_uncounted_are_exact_when_read() {
        let html = "<h1>Prices</h1><p>Zwölf Äpfel kosten 3,50 €; 🍎🍎 each.</p>".repeat(40);
        let mut page = HeldPage::from_text(&html, None).unwrap();
        for budget in [1_000_000, 700] {
            let mut args = Map::new();
            args.insert("max_tokens".into(), Value::from(budget));
            let e = page.view("markdown", args).unwrap();
            let n = crate::tokens::count(&e.text, Encoding::default());
            assert!(n <= budget, "{n} tokens in a budget of {budget}");
            let json: Value = serde_json::from_str(&e.to_json()).unwrap();
            assert_eq!((e.tokens(), json["tokens"].as_u64()), (n, Some(n as u64)));
            let rest: Value = serde_json::from_str(&e.to_json_without_text()).unwrap();
            assert!(rest.get("text").is_none() && rest.get("tokens").is_none());
            assert_eq!(rest["view"], "markdown");
        }
    }
}
