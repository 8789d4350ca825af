//! The text found here must be the text html5ever's tokenizer emits in its
//! script data and RAWTEXT states, on tricky pieces and on every script and
//! style of the corpus.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, CharacterTokens, EOFToken, EndTag, StartTag, Tag, TagToken, Token, TokenSink,
    TokenSinkResult, Tokenizer, TokenizerOpts,
};
use markup5ever::interface::TokenizerResult;

use super::{RawText, take_text};

fn raw_kind(name: &str) -> Option<RawText> {
    match name {
        "script" => Some(RawText::Script),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => Some(RawText::Rawtext),
        _ => None,
    }
}

/// Collects each raw-text element's text: read by the tokenizer itself, or
/// (`ours`) by [`take_text`] while the tokenizer waits, as the parse does.
struct Collect {
    ours: bool,
    open: RefCell<Option<(RawText, String)>>,
    current: RefCell<Option<String>>,
    texts: RefCell<Vec<String>>,
}

impl TokenSink for Collect {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            TagToken(Tag {
                kind: StartTag,
                name,
                ..
            }) => {
                if let Some(kind) = raw_kind(&name) {
                    if self.ours {
                        *self.open.borrow_mut() = Some((kind, name.to_string()));
                        return TokenSinkResult::Script(());
                    }
                    *self.current.borrow_mut() = Some(String::new());
                    return TokenSinkResult::RawData(match kind {
                        RawText::Script => RawKind::ScriptData,
                        RawText::Rawtext => RawKind::Rawtext,
                    });
                }
            }
            CharacterTokens(t) => {
                if let Some(c) = self.current.borrow_mut().as_mut() {
                    c.push_str(&t);
                }
            }
            TagToken(Tag { kind: EndTag, .. }) | EOFToken => {
                if let Some(c) = self.current.borrow_mut().take() {
                    self.texts.borrow_mut().push(c);
                }
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

fn texts(html: &str, ours: bool) -> Vec<String> {
    let sink = Collect {
        ours,
        open: RefCell::new(None),
        current: RefCell::new(None),
        texts: RefCell::new(Vec::new()),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {
        if let Some((kind, name)) = tokenizer.sink.open.borrow_mut().take() {
            let text = take_text(&input, kind, &name);
            tokenizer.sink.texts.borrow_mut().push(text);
        }
    }
    tokenizer.end();
    tokenizer.sink.texts.into_inner()
}

fn assert_same(html: &str) {
    assert_eq!(texts(html, true), texts(html, false), "on {html:?}");
}

#[test]
fn ends_and_escapes_as_the_tokenizer_reads_them() {
    for html in [
        "<script>a</script>b",
        "<script></script>",
        "<script>",
        "<script>a</scrip",
        "<script>a</script",
        "<script>a</SCRIPT >b",
        "<script>a</script/>b",
        "<script>a</scriptx></script>",
        "<script>a</script1></script>",
        "<script>if (a<b) x='</div>'</script>",
        "<script><!-- a </script> b",
        "<script><!-- <script> </script> --></script>after",
        "<script><!-- <script> </script> </script>after",
        "<script><!-- <SCRIPT\t> --> </script>after</script>",
        "<script><!-- <scripts> </script>x",
        "<script><!--> </script>x",
        "<script><!---> </script>x",
        "<script><!-- --!> </script>x",
        "<script><!-- <script> --> </script>x",
        "<script><!-- <script> </scrip> </script>x",
        "<script><!-- <script> </script ></script>x",
        "<script><!-- <script></> -- > </script>x",
        "<script><!-- <script> - -> </script> </script>x",
        "<script><!- </script>x",
        "<script>\r\na\rb\0c</script>",
        "<script>é</script>ü",
        "<style>a{}</style>b<style>c</styl</style >",
        "<style></STYLE\n>x",
        "<style>a</style",
        "<xmp><b>x</b></xmp>",
        "<noscript><p>x</noscript>",
        "<iframe><!-- </iframe> --></iframe>",
        "<script>a</script><style>b</style><script>c</script>",
    ] {
        assert_same(html);
    }
}

/// Pieces that steer the script data states, joined at random (a fixed
/// seed): every sequence of them must end where the tokenizer ends it.
#[test]
fn random_joins_of_the_pieces_that_matter() {
    const PIECES: [&str; 24] = [
        "<", "/", "!", "-", "--", "<!--", "-->", "<script", "</script", "script", "SCRIPT", ">",
        " ", "\r", "\r\n", "\0", "a", "é", "</style", "<s", "</", "<!", "/>", "\t",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let open = if next() % 4 == 0 {
            "<style>"
        } else {
            "<script>"
        };
        let mut html = String::from(open);
        for _ in 0..(next() % 24) {
            html.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        html.push_str("</script>tail</style>end");
        assert_same(&html);
    }
}

#[test]
fn every_script_and_style_of_the_corpus() {
    let mut elements = 0;
    for page in webfold_corpus::sample(1) {
        let html = page.html();
        let ours = texts(&html, true);
        assert_eq!(ours, texts(&html, false), "{}", page.id);
        elements += ours.len();
    }
    assert!(elements > 10_000, "only {elements} raw-text elements read");
}
