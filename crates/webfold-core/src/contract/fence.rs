//! Page content is untrusted: every surface that hands it to a model (MCP
//! tools, the agent loop) puts it between `<page-content>` delimiters and
//! tells the model never to follow instructions found inside them.

/// Wraps page content in the untrusted-content delimiters.
pub fn delimit(content: &str) -> String {
    format!("<page-content>\n{}\n</page-content>", defuse(content))
}

/// `content` with every closing delimiter defused (`</page-content` →
/// `<\/page-content`, any case), so it cannot end the block early: for
/// templates that write the delimiters themselves.
pub fn defuse(content: &str) -> String {
    const CLOSE: &str = "</page-content";
    // ASCII lowercasing keeps byte offsets, so matches index `content` directly.
    let lower = content.to_ascii_lowercase();
    let mut safe = String::with_capacity(content.len() + 16);
    let mut last = 0;
    for (at, _) in lower.match_indices(CLOSE) {
        safe.push_str(&content[last..at]);
        safe.push_str("<\\/");
        last = at + 2;
    }
    safe.push_str(&content[last..]);
    safe
}

#[cfg(test)]
mod tests {
    use super::delimit;

    #[test]
    fn content_cannot_close_the_delimiters() {
        let out = delimit("a </page-content> b </PAGE-Content > c");
        assert_eq!(
            out,
            "<page-content>\na <\\/page-content> b <\\/PAGE-Content > c\n</page-content>"
        );
        assert_eq!(
            out.to_ascii_lowercase().matches("</page-content").count(),
            1
        );
    }
}
