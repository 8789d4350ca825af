//! Invalid selectors: where (a column, a caret) and why, in plain words, for
//! every kind of parse error, never the parser's own enum names.

use webfold_core::{Error, Page};

fn invalid(selector: &str) -> (usize, String, Error) {
    let page = Page::parse("<main><a href=x>x</a></main>");
    match page.query(selector) {
        Err(e @ Error::InvalidSelector { .. }) => {
            let Error::InvalidSelector {
                position, reason, ..
            } = &e
            else {
                unreachable!()
            };
            (*position, reason.clone(), e)
        }
        other => panic!("{selector:?} should be invalid: {other:?}"),
    }
}

/// Plain words: no CamelCase identifiers (`NoQualifiedNameInAttributeSelector`)
/// but the DOM's own `querySelector`.
fn assert_plain(reason: &str) {
    for word in reason.split(|c: char| !c.is_alphanumeric()) {
        if word == "querySelector" {
            continue;
        }
        let humps = word
            .chars()
            .skip(1)
            .filter(char::is_ascii_uppercase)
            .count();
        assert!(
            humps == 0 || word.chars().all(|c| c.is_ascii_uppercase()),
            "parser jargon {word:?} in: {reason}"
        );
    }
}

#[test]
fn each_kind_of_error_is_worded_and_placed() {
    let nth = "':nth-child()' takes An+B such as 2n+1, 3, odd or even, optionally followed by 'of' and a selector";
    let cases: &[(&str, usize, &str)] = &[
        ("a[]", 3, "expected an attribute name after '['"),
        (
            "section..hero",
            9,
            "expected a class name after '.', found '.'",
        ),
        (
            "div >> p",
            6,
            "expected a selector after combinator '>', found '>'",
        ),
        ("div >", 6, "expected a selector after combinator '>'"),
        (
            "a ~ ~ b",
            5,
            "expected a selector after combinator '~', found '~'",
        ),
        ("a:hovr", 3, "unknown or unsupported pseudo-class ':hovr'"),
        (
            "a::before",
            3,
            "'::before' is a pseudo-element: querySelector never matches one; select its element instead",
        ),
        (
            "a[href!=x]",
            7,
            "expected ']' or an operator (=, ~=, |=, ^=, $=, *=) after the attribute name, found '!'",
        ),
        (
            "a[href=1]",
            8,
            "the attribute value must be a name or a quoted string, found '1'; quote it: [name=\"value\"]",
        ),
        (
            "a[b=c d]",
            7,
            "unexpected 'd' after the attribute value; expected ']', or the flag i or s (a value with spaces needs quotes: [name=\"a b\"])",
        ),
        (
            "[*]",
            2,
            "expected '|' after '*' in the attribute name ([*|name])",
        ),
        ("a b[", 5, "expected an attribute name after '['"),
        ("li:nth-child(x)", 14, &format!("{nth}; found 'x'")),
        ("li:nth-child(2n+)", 17, &format!("{nth}; found ')'")),
        (
            "",
            1,
            "the selector is empty; pass a CSS selector such as 'main h1'",
        ),
        ("a,", 3, "expected a selector after ','"),
        ("a,,b", 3, "expected a selector before ','"),
        (",a", 1, "expected a selector before ','"),
        (
            "#1abc",
            2,
            "an id selector cannot start with a digit; use [id=\"…\"] instead",
        ),
        (
            "> a",
            1,
            "a selector cannot start with combinator '>': a combinator goes between two selectors",
        ),
        ("div)", 4, "unexpected ')' with no '(' open before it"),
        ("div]", 4, "unexpected ']' with no '[' open before it"),
        (
            "a!",
            2,
            "unexpected '!': CSS selectors have no '!' operator",
        ),
        (
            "a:",
            3,
            "the selector ends after ':'; expected a pseudo-class name",
        ),
        (
            "a.",
            3,
            "the selector ends after '.'; expected a class name",
        ),
        (
            "a: hover",
            3,
            "expected a pseudo-class name right after ':' (no space between them)",
        ),
        (
            ":has(:has(a))",
            7,
            "':has()' cannot be nested inside ':has()'",
        ),
        (
            ":not(::before)",
            7,
            "pseudo-elements are not allowed inside ':not()'",
        ),
        (
            "svg|rect",
            4,
            "namespace prefixes ('svg|rect') are not supported: drop the prefix and the '|'",
        ),
        (
            "|1",
            2,
            "expected an element name or '*' after '|', found '1'",
        ),
        (
            "div:first-child(2)",
            16,
            "':first-child' takes no argument; drop the parentheses after it",
        ),
    ];
    for &(selector, column, reason) in cases {
        let (got_column, got_reason, err) = invalid(selector);
        assert_eq!(
            (got_column, got_reason.as_str()),
            (column, reason),
            "{selector:?}"
        );
        assert_plain(&got_reason);
        assert_eq!(
            err.to_string(),
            format!("invalid selector '{selector}': {reason} (at column {column})")
        );
    }
}

#[test]
fn the_long_form_puts_a_caret_under_the_column() {
    let (_, _, err) = invalid("a[]");
    assert_eq!(
        format!("{err:#}"),
        "invalid selector 'a[]': expected an attribute name after '[' (at column 3)\n  a[]\n    ^"
    );
    // A pasted newline stays on its line; the caret stays under its character.
    let (_, _, err) = invalid("main\n> a[]");
    let long = format!("{err:#}");
    let lines: Vec<&str> = long.lines().collect();
    assert_eq!(lines.len(), 3, "{long}");
    assert_eq!(lines[1], "  main > a[]");
    assert_eq!(lines[2], "           ^");
    // A long selector shows a window around the column.
    let selector = format!("{}a[]", "main > ".repeat(40));
    let (column, _, err) = invalid(&selector);
    assert_eq!(column, selector.len());
    let one_line = err.to_string();
    assert!(
        !one_line.contains('\n') && one_line.len() < 250,
        "{one_line}"
    );
    let long = format!("{err:#}");
    let lines: Vec<&str> = long.lines().collect();
    let shown = lines[1].strip_prefix("  ").unwrap();
    let caret = lines[2].strip_prefix("  ").unwrap().chars().count() - 1;
    assert!(shown.starts_with('…'), "{shown}");
    assert_eq!(shown.chars().nth(caret), Some(']'), "{long}");
}

/// Whatever is typed, an invalid selector is an error with a column inside
/// (or just past) it and a one-line message: never a panic.
#[test]
fn any_input_gives_a_placed_error_or_a_selector() {
    let page = Page::parse("<main><a href=x>x</a></main>");
    let parts = [
        "a",
        "[",
        "]",
        "(",
        ")",
        ":",
        "::",
        ".",
        "#",
        ",",
        ">",
        "+",
        "~",
        " ",
        "*",
        "|",
        "=",
        "\"",
        "'",
        "1",
        "-",
        "\\",
        "é",
        "\n",
        ":is(",
        ":has(",
        ":nth-child(",
        "n",
        "of",
        "@",
        "!",
        "{",
        "}",
        "/",
        "$=",
        "^=",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let len = (next() % 7) as usize;
        let s: String = (0..len)
            .map(|_| parts[(next() % parts.len() as u64) as usize])
            .collect();
        match page.query(&s) {
            Err(Error::InvalidSelector {
                position, reason, ..
            }) => {
                assert!(
                    (1..=s.chars().count() + 1).contains(&position),
                    "{s:?}: {position}"
                );
                assert!(!reason.is_empty() && !reason.contains('\n'), "{s:?}");
                assert_plain(&reason);
            }
            Ok(_) | Err(Error::ElementNotFound { .. }) => {}
            Err(other) => panic!("{s:?}: {other}"),
        }
    }
}
