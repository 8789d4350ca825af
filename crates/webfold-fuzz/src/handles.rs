//! The handles a view prints, read back from its output: outline node ids,
//! CNT node and marker ids, snapshot refs.

/// Every `[ref=…]` a snapshot's items carry, in order, without repeats,
/// read as a client reads them: with the snapshot reader, so that page text
/// that happens to say `[ref=` is text. A snapshot the reader refuses is a
/// finding of its own.
pub fn snapshot_refs(text: &str) -> Vec<String> {
    let tree = webfold_core::snapshot::parse(text)
        .unwrap_or_else(|e| panic!("a printed snapshot does not read back: {e}\n{text}"));
    let mut refs: Vec<String> = Vec::new();
    for r in tree
        .lines
        .into_iter()
        .filter_map(|l| l.aria_ref.map(String::from))
    {
        if !refs.contains(&r) {
            refs.push(r);
        }
    }
    refs
}

/// The `@N` node ids an outline's text prints: after a label, before the
/// quoted preview (labels escape spaces as `\ `, so ` @` ends a label).
pub fn outline_at_ids(text: &str) -> Vec<u32> {
    let mut ids = Vec::new();
    for line in text.lines() {
        let labels = line.split('"').next().unwrap_or_default();
        let mut rest = labels;
        while let Some(at) = rest.find(" @") {
            let escaped = rest[..at].ends_with('\\');
            rest = &rest[at + 2..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if !escaped && let Ok(n) = digits.parse() {
                ids.push(n);
            }
        }
    }
    ids
}

/// What a CNT view's JSON names: element node ids (text nodes carry ids the
/// text view does not print) and marker ids such as `12.3-97`.
#[derive(Debug, Default)]
pub struct CntHandles {
    pub nodes: Vec<u32>,
    pub markers: Vec<String>,
}

/// Reads the handles out of `View::to_json`. Every object it writes starts
/// `{"id":`; inside a JSON string that sequence is impossible (the quote
/// would be escaped), so a scan finds exactly the objects.
pub fn cnt_handles(json: &str) -> CntHandles {
    let mut out = CntHandles::default();
    for part in json.split("{\"id\":").skip(1) {
        if let Some(rest) = part.strip_prefix('"') {
            if let Some((marker, _)) = rest.split_once('"') {
                out.markers.push(marker.to_string());
            }
            continue;
        }
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        let Ok(id) = digits.parse() else { continue };
        let tag = part[digits.len()..]
            .strip_prefix(",\"tag\":\"")
            .and_then(|t| t.split_once('"'))
            .map(|(t, _)| t);
        if tag != Some("#text") {
            out.nodes.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_ids_and_markers_are_read_back() {
        assert_eq!(
            snapshot_refs("- button \"a\" [ref=e2]\n- link [ref=f1e3]\n- x [ref=e2]"),
            ["e2", "f1e3"]
        );
        // Page text that says `[ref=` is text, quoted or not.
        assert_eq!(
            snapshot_refs(
                "- text: \"[ref=\"\n- heading \"x [ref=e9]\" [level=2] [ref=e3]\n- paragraph: a [ref=e7] b"
            ),
            ["e3"]
        );
        assert_eq!(
            outline_at_ids("├── li ×4 @28\n│   └── a @29 \"@3\""),
            [28, 29]
        );
        let h = cnt_handles(
            r##"{"nodes":[{"id":4,"tag":"p","text":"{\"id\":9","children":[{"id":5,"tag":"#text"}]}],"compressed":{"id":"4.1-7","hidden":7}}"##,
        );
        assert_eq!(h.nodes, [4]);
        assert_eq!(h.markers, ["4.1-7"]);
    }
}
