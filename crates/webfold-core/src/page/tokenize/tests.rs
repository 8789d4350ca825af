//! The tokens read here must build the tree html5ever's own tokenizer
//! builds: on tricky pieces, on random joins of them, and on every page of
//! the corpus.

use crate::page::Page;
use crate::page::build::parse_with_html5ever_tokenizer;

fn tree(page: &Page) -> String {
    format!("{:?} quirks={}", page.nodes(), page.quirks_mode())
}

fn assert_same(html: &str) {
    let ours = tree(&Page::parse(html));
    let theirs = tree(&parse_with_html5ever_tokenizer(html));
    assert!(
        ours == theirs,
        "on {html:?}\nours:   {ours}\ntheirs: {theirs}"
    );
}

#[test]
fn tags_and_attributes() {
    for html in [
        "",
        "x",
        "<",
        "<p",
        "<p ",
        "<p a",
        "<p a=",
        "<p a='x",
        "<p a=x",
        "<p/",
        "<p>x</p",
        "</",
        "</>x",
        "</ x>y",
        "<1>",
        "<é>",
        "a < b",
        "<P CLASS=A Id='b' data-X=\"c\">x</P >",
        "<p a=1 a=2 A=3>x",
        "<p a = 'x' b= \"y\" c =z d>x",
        "<p a='x'b='y'>x",
        "<p a=x/>y<br/><br / ><img/src=a>",
        "<p =a>x<p ==b>y<p \"a=1 'b <c>z",
        "<p a=\"x\0y\" b\0c=1>x\0y</p>",
        "<div a=`b` c=d'e f=g\"h>x",
        "<a href=/x?a=1&b=2&amp;c=3&copy=4&copy;&notit;&notin;>x</a>",
        "<a title='&#x26;&#38;&#0;&#xD800;&#x110000;&#128;&#x9F;&#99999999999;&#;&#x;'>x",
        "<input value=&lt;&gt >",
        "<p>\u{feff}x",
        "\u{feff}<p>x",
        "<p>a\r\nb\rc\n\r</p><p a='x\r\ny'>",
        "<table><tr><td>x</td>y<b>z</table>",
        "<select><option>a<option>b</select>",
        "<b><i>x</b>y</i>",
    ] {
        assert_same(html);
    }
}

#[test]
fn character_references_in_text() {
    for html in [
        "&amp;&lt;&gt;&quot;&apos;&nbsp;",
        "&amp &lt &notit; &notin; &not &noti",
        "&copy;&COPY;&Copy;&copy",
        "&#65;&#x41;&#X41;&#065&#x41g &# &#x &#a &#xg",
        "&#0;&#13;&#128;&#150;&#x80;&#x81;&#xFFFE;&#x1F600;",
        "&#1114112;&#99999999999999999999;",
        "& &; &x; &xyz &&amp;",
        "&acE;&NotEqualTilde;&ThickSpace;",
        "a&b",
        "&",
        "&am",
        "&#",
        "&#x",
        "&#12",
        "<title>&amp;&lt;b&gt;</title><textarea>\n&copy x</textarea>",
        "<p>\0x\0</p>",
    ] {
        assert_same(html);
    }
}

#[test]
fn comments_doctypes_and_cdata() {
    for html in [
        "<!---->",
        "<!-->x",
        "<!--->x",
        "<!-- a -- b --->x",
        "<!-- a --!>x",
        "<!-- a --!x -->y",
        "<!-- a --! -- b -->y",
        "<!-- <!-- a --> x",
        "<!-- a -",
        "<!-- a --",
        "<!--",
        "<!-",
        "<!",
        "<!x>y",
        "<?xml version='1.0'?>x",
        "<!--a\0b-->",
        "<!DOCTYPE html>x",
        "<!doctype HTML>x",
        "<!DOCTYPE>x",
        "<!DOCTYPE",
        "<!DOCTYPE html",
        "<!DOCTYPEhtml>x",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">x",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">x",
        "<!DOCTYPE html PUBLIC '-//W3C//DTD XHTML 1.0 Transitional//EN'>x",
        "<!DOCTYPE html SYSTEM \"about:legacy-compat\">x",
        "<!DOCTYPE html PUBLIC\"x\"'y'>x",
        "<!DOCTYPE html SYSTEM>x",
        "<!DOCTYPE html SYSTEM \"a\" junk>x",
        "<!DOCTYPE html junk>x",
        "<!DOCTYPE html PUBLIC \"a>x",
        "<!DOCTYPE html PUBLIC \"a\"",
        "<!DOCTYPE ht\0ml>x",
        "<svg><![CDATA[a<b>\0c]]>d</svg>",
        "<svg><![CDATA[a",
        "<![CDATA[x]]>y",
        "<math><mi><![CDATA[x]]></mi></math>",
    ] {
        assert_same(html);
    }
}

#[test]
fn raw_text_scripts_and_plaintext() {
    for html in [
        "<script>a</script>b",
        "<script></script>",
        "<script>",
        "<script>a</scrip",
        "<script>a</script",
        "<script>a</SCRIPT >b",
        "<script>a</script/>b",
        "<script>a</script x=1>b",
        "<script>a</scriptx></script>",
        "<script>if (a<b) x='</div>'</script>",
        "<script><!-- a </script> b",
        "<script><!-- <script> </script> --></script>after",
        "<script><!-- <script> </script> </script>after",
        "<script><!-- <SCRIPT\t> --> </script>after</script>",
        "<script><!--> </script>x",
        "<script><!-- <script></> -- > </script>x",
        "<script>\r\na\rb\0c</script>",
        "<style>a{}</style>b<style>c</styl</style >",
        "<style></STYLE\n>x",
        "<xmp><b>x</b></xmp>",
        "<noscript><p>x</noscript>",
        "<iframe><!-- </iframe> --></iframe>",
        "<title>a<b>c</title>",
        "<title>a</title",
        "<title>a</titl</title>",
        "<textarea>\nx</textarea>",
        "<textarea>a\0b</textarea>",
        "<plaintext>a</plaintext><b>\0",
        "<svg><script>a<b>c</b></script></svg>",
        "<svg><style>a<b>c</b></style></svg>",
        "<table><script>a</script><style>b</style></table>",
        "<head><noscript><link></noscript></head>",
        "<script></script>\u{feff}x",
    ] {
        assert_same(html);
    }
}

/// Pieces that steer the tokenizer, joined at random (a fixed seed).
#[test]
fn random_joins_of_the_pieces_that_matter() {
    const PIECES: [&str; 48] = [
        "<",
        "/",
        "!",
        "-",
        "--",
        "<!--",
        "-->",
        "<script",
        "</script",
        "script",
        ">",
        " ",
        "\r",
        "\r\n",
        "\0",
        "a",
        "é",
        "</style",
        "<style>",
        "</",
        "<!",
        "/>",
        "\t",
        "=",
        "'",
        "\"",
        "&",
        "&amp",
        ";",
        "#",
        "x",
        "1",
        "<p",
        "<b",
        "</b>",
        "<table>",
        "<td>",
        "<svg>",
        "<![CDATA[",
        "]]>",
        "<!DOCTYPE",
        " PUBLIC",
        "<title>",
        "</title>",
        "<textarea>",
        "?",
        "A",
        "\u{feff}",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let mut html = String::new();
        for _ in 0..(next() % 24) {
            html.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        assert_same(&html);
    }
}

#[test]
fn every_page_of_the_corpus() {
    let mut pages = 0;
    for page in webfold_corpus::sample(1) {
        let html = page.html();
        let ours = tree(&Page::parse(&html));
        let theirs = tree(&parse_with_html5ever_tokenizer(&html));
        assert!(ours == theirs, "{} parses differently", page.id);
        pages += 1;
    }
    assert!(pages > 800, "only {pages} pages read");
}
