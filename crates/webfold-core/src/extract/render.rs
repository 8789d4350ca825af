//! The main-content Markdown view: a short header (title, byline, date, and
//! a fallback note when there is no article) over the article's Markdown.

use super::Extraction;
use crate::markdown::{MarkdownOptions, to_markdown_filtered};
use crate::page::Page;

impl Extraction {
    /// The article body as Markdown, without the header.
    pub fn body_markdown(&self, page: &Page, opts: &MarkdownOptions) -> String {
        to_markdown_filtered(page, self.root, opts, &|id| self.is_dropped(id))
    }

    /// The header: `# Title`, then `byline · date`, then a note when the
    /// extraction fell back to the whole page. Empty when there is nothing to say.
    pub fn header_markdown(&self) -> String {
        let mut out = String::new();
        if let Some(t) = &self.metadata.title {
            out.push_str("# ");
            out.push_str(&t.replace('\n', " "));
            out.push('\n');
        }
        let by: Vec<&str> = [
            self.metadata.byline.as_deref(),
            self.metadata.date.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !by.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&by.join(" · "));
            out.push('\n');
        }
        if let Some(f) = &self.fallback {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("> Note: {f}.\n"));
        }
        out
    }

    /// Header and body, a blank line apart.
    pub fn to_markdown(&self, page: &Page, opts: &MarkdownOptions) -> String {
        let header = self.header_markdown();
        let body = self.body_markdown(page, opts);
        match (header.is_empty(), body.trim().is_empty()) {
            (true, _) => body,
            (false, true) => header,
            (false, false) => format!("{header}\n{body}"),
        }
    }
}
