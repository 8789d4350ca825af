//! One small page per rule: the role table, accessible names, states, props
//! and YAML quoting, each with the plain (`aria` mode) snapshot Playwright
//! prints for it. The corpus conformance test covers the same rules at scale;
//! these name the rule that broke.

use webfold_core::Page;
use webfold_core::aria::{Mode, snapshot};

fn check(rules: &[(&str, &str, &str)]) {
    let mut failures = Vec::new();
    for (rule, html, expected) in rules {
        let got = snapshot(&Page::parse(html), Mode::Aria);
        if got != *expected {
            failures.push(format!(
                "{rule}\n  html:     {html}\n  expected: {expected:?}\n  got:      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rule(s) broke:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn role_table() {
    check(&[
        ("nav is navigation", "<nav>x</nav>", "- navigation: x"),
        (
            "aside is complementary",
            "<aside>x</aside>",
            "- complementary: x",
        ),
        (
            "header at top level is banner",
            "<header>x</header>",
            "- banner: x",
        ),
        (
            "header inside article has no role",
            "<article><header>x</header></article>",
            "- article: x",
        ),
        (
            "section needs a label to be a region",
            "<section>a</section><section aria-label=L>b</section>",
            "- text: a\n- region \"L\": b",
        ),
        (
            "form needs a label",
            "<form>a</form><form aria-label=F>b</form>",
            "- text: a\n- form \"F\": b",
        ),
        (
            "a without href has no role",
            "<a>x</a><a href=/y>y</a>",
            "- text: x\n- link \"y\":\n  - /url: /y",
        ),
        (
            "input types",
            "<input type=checkbox><input type=range><input type=number><input type=search><input type=password>",
            "- checkbox\n- slider: \"50\"\n- spinbutton\n- searchbox\n- textbox",
        ),
        (
            "input list=datalist is a combobox",
            "<input list=d><datalist id=d><option>a</option></datalist>",
            "- combobox",
        ),
        (
            "select size>1 is a listbox",
            "<select size=2><option>a</option></select>",
            "- listbox:\n  - option \"a\"",
        ),
        (
            "img alt=\"\" is presentation",
            "<img alt=\"\"><img alt=\"\" tabindex=0>",
            "- img",
        ),
        (
            "th scope=row is rowheader",
            "<table><tr><th scope=row>h</th><td>d</td></tr></table>",
            "- table:\n  - rowgroup:\n    - row \"h d\":\n      - rowheader \"h\"\n      - cell \"d\"",
        ),
        (
            "first valid role token, lower-cased",
            "<div role=\"foo BUTTON link\">x</div>",
            "- button \"x\"",
        ),
        (
            "presentation is ignored on focusable elements",
            "<button role=presentation>x</button>",
            "- button \"x\"",
        ),
        (
            "presentation passes to required children",
            "<ul role=none><li>a</li></ul>",
            "- text: a",
        ),
    ]);
}

#[test]
fn accessible_names() {
    check(&[
        (
            "aria-labelledby wins, hidden targets count",
            "<span id=l hidden>Hidden</span><button aria-labelledby=l aria-label=no>x</button>",
            "- button \"Hidden\": x",
        ),
        (
            "aria-label",
            "<button aria-label=\" Close \">x</button>",
            "- button \"Close\": x",
        ),
        (
            "label[for]",
            "<label for=i>Email</label><input id=i>",
            "- text: Email\n- textbox \"Email\"",
        ),
        (
            "a label embeds its controls' values",
            "<label for=t>Qty <select><option>2</option></select> kg</label><input id=t>",
            "- text: Qty\n- combobox:\n  - option \"2\" [selected]\n- text: kg\n- textbox \"Qty 2 kg\"",
        ),
        (
            "a wrapping label names its first control only",
            "<label>Qty <input> <input></label>",
            "- text: Qty\n- textbox \"Qty\"\n- textbox",
        ),
        (
            "title then placeholder",
            "<input title=T placeholder=P><input placeholder=P>",
            "- textbox \"T\":\n  - /placeholder: P\n- textbox \"P\"",
        ),
        (
            "input buttons",
            "<input type=submit><input type=reset><input type=button value=Go><input type=image alt=Find>",
            "- button \"Submit\"\n- button \"Reset\"\n- button \"Go\"\n- button \"Find\"",
        ),
        (
            "fieldset legend, figure figcaption, table caption",
            "<fieldset><legend>L</legend></fieldset><figure><figcaption>F</figcaption></figure><table><caption>C</caption></table>",
            "- group \"L\"\n- figure \"F\"\n- table \"C\":\n  - caption: C",
        ),
        (
            "name from content pads blocks; text equal to the name is dropped",
            "<a href=#>a<div>b</div>c</a>",
            "- link \"a b c\":\n  - /url: \"#\"",
        ),
        (
            "generic and paragraph prohibit names",
            "<p aria-label=x>t</p>",
            "- paragraph: t",
        ),
        (
            "svg title",
            "<svg><title>Logo</title></svg>",
            "- img \"Logo\"",
        ),
    ]);
}

#[test]
fn states_and_props() {
    check(&[
        (
            "checked, unchecked and aria-checked=mixed",
            "<input type=checkbox checked><input type=checkbox><div role=checkbox aria-checked=mixed>m</div>",
            "- checkbox [checked]\n- checkbox\n- checkbox \"m\" [checked=mixed]",
        ),
        (
            "the last checked radio of a group wins",
            "<input type=radio name=r checked><input type=radio name=r checked>",
            "- radio\n- radio [checked]",
        ),
        (
            "disabled fieldset, except its first legend",
            "<fieldset disabled><legend><button>in</button></legend><button>out</button></fieldset>",
            "- group \"in\":\n  - button \"in\"\n  - button \"out\" [disabled]",
        ),
        (
            "aria-disabled inherits",
            "<div aria-disabled=true><div role=button>b</div></div>",
            "- button \"b\" [disabled]",
        ),
        (
            "expanded only when true",
            "<button aria-expanded=true>a</button><button aria-expanded=false>b</button>",
            "- button \"a\" [expanded]\n- button \"b\"",
        ),
        (
            "level: native wins over aria-level",
            "<h2 aria-level=5>h</h2><div role=heading aria-level=3>d</div>",
            "- heading \"h\" [level=2]\n- heading \"d\" [level=3]",
        ),
        (
            "pressed and mixed",
            "<button aria-pressed=true>a</button><button aria-pressed=mixed>b</button>",
            "- button \"a\" [pressed]\n- button \"b\" [pressed=mixed]",
        ),
        (
            "selected: a drop-down selects its first option",
            "<select><option>a</option><option>b</option></select>",
            "- combobox:\n  - option \"a\" [selected]\n  - option \"b\"",
        ),
        (
            "invalid values",
            "<input aria-invalid=spelling><input aria-invalid=bogus>",
            "- textbox [invalid=spelling]\n- textbox [invalid]",
        ),
        (
            "data: urls are shortened",
            "<a href=\"data:text/plain,hello\">d</a>",
            "- link \"d\":\n  - /url: data:text/plain,\u{2026}",
        ),
    ]);
}

#[test]
fn yaml_quoting() {
    check(&[
        (
            "names are JSON strings",
            "<button aria-label='say \"hi\"'>x</button>",
            "- button \"say \\\"hi\\\"\": x",
        ),
        (
            "a key with ': ' is single-quoted",
            "<button aria-label='a: b'>x</button>",
            "- 'button \"a: b\"': x",
        ),
        (
            "numbers, keywords and leading dashes are quoted",
            "<p>42</p><p>yes</p><p>- x</p><p>a # b</p>",
            "- paragraph: \"42\"\n- paragraph: \"yes\"\n- paragraph: \"- x\"\n- paragraph: \"a # b\"",
        ),
        (
            "hidden content is dropped",
            "<div hidden>a</div><div style=display:none>b</div><div aria-hidden=true>c</div><p>d</p>",
            "- paragraph: d",
        ),
    ]);
}
