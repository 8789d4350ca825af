//! The server answers whole-element chunks without the core's folding
//! indexes; on real pages that answer must be exactly the core's.

use webfold_core::Page;
use webfold_core::chunk::{ChunkOptions, ChunkTarget};
use webfold_server::views::{self, Target};

#[test]
fn whole_element_answers_equal_the_core_chunk_view() {
    let mut compared = 0;
    for p in webfold_corpus::sample(10).into_iter().take(12) {
        let page = Page::parse(&p.html());
        for sel in [
            "h1",
            "p",
            "main",
            "a[href]",
            "table",
            "li:nth-child(2)",
            "body > div",
            "footer",
        ] {
            for max_tokens in [None, Some(50_000), Some(200)] {
                let opts = ChunkOptions {
                    max_tokens,
                    ..Default::default()
                };
                let core =
                    webfold_core::chunk::chunk(&page, &ChunkTarget::Selector(sel.into()), &opts);
                let ours = views::chunk(&page, &Target::Selector(sel.into()), &opts, "", None);
                match (core, ours) {
                    (Ok(c), Ok(o)) => {
                        assert_eq!(o.html, c.text, "{} {sel} {max_tokens:?}", p.id);
                        assert_eq!(o.tokens, c.tokens, "{} {sel}", p.id);
                        assert_eq!(o.id, c.chunks[0].node_id.0, "{} {sel}", p.id);
                        assert_eq!(o.folded.len(), c.chunks[0].folded.len(), "{} {sel}", p.id);
                        compared += 1;
                    }
                    (Err(c), Err(o)) => assert_eq!(c, o, "{} {sel}", p.id),
                    (c, o) => panic!("{} {sel} {max_tokens:?}: core {c:?} vs server {o:?}", p.id),
                }
                // By id too, through the unique-selector path.
                if let Ok(n) = page.query(sel) {
                    let core = webfold_core::chunk::chunk(&page, &ChunkTarget::Id(n), &opts);
                    let ours = views::chunk(&page, &Target::Id(n.0), &opts, "", None);
                    if let (Ok(c), Ok(o)) = (core, ours) {
                        assert_eq!(o.html, c.text);
                        assert_eq!(o.selector, c.chunks[0].selector, "{} {sel}", p.id);
                    }
                }
            }
        }
    }
    assert!(compared > 100, "compared {compared} answers");
}
