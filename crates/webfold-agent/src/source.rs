//! Where `get_html_chunk` reads the page. A file or a fetched page does not
//! change, so the page the prompt was made from answers (`PageContext` is
//! its own source). A page open in a browser does: its source reads it again
//! before each chunk, and when it cannot, the prompt's page answers with a
//! note that says so.

use std::future::Future;

use serde_json::{Map, Value};

use crate::page::PageContext;

/// The page a chunk call reads.
pub enum Current {
    /// The page the prompt was made from is still the page.
    Same,
    /// The page as it is now, read again for this call.
    Fresh(PageContext),
    /// The page could not be read again, for this reason (words for the
    /// model): the prompt's page answers instead.
    Stale(String),
}

/// Where chunks come from: asked before every `get_html_chunk` call, with
/// the call's arguments (a live source may say what it is reading).
pub trait PageSource: Sync {
    fn current(&self, args: &Map<String, Value>) -> impl Future<Output = Current> + Send;
}

impl PageSource for PageContext {
    async fn current(&self, _args: &Map<String, Value>) -> Current {
        Current::Same
    }
}

/// Answers one chunk call: from the prompt's page, or from the page as it is
/// now. Node ids in the arguments name elements of the prompt's page (the
/// view showed them), so against a fresh page they become that element's
/// unique selector.
pub(crate) async fn chunk<S: PageSource>(
    prompt: &PageContext,
    source: &S,
    args: Map<String, Value>,
) -> Result<String, String> {
    match source.current(&args).await {
        Current::Same => prompt.chunk(args),
        Current::Fresh(now) => now.chunk(prompt.ids_as_selectors(args)),
        Current::Stale(why) => prompt.chunk(args).map(|chunk| format!("{why}\n{chunk}")),
    }
}
