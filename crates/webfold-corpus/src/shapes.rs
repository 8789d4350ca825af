//! Generated page shapes that have made views super-linear or memory-hungry:
//! siblings alike but not all the same (striped rows, cycling classes), wide
//! flat lists, deep nesting, dense product grids, and real pages run
//! together into one very large page. `webfold-bench scaling` builds each
//! at `n` and `2n` rows, the scaling test at `n` and `4n`.

use webfold_core::Page;
use webfold_core::contract::Ctx;
use webfold_core::view::{AnyView, Call, Input};

/// One page shape: `page(rows)` is its HTML.
pub struct Shape {
    pub name: &'static str,
    /// Rows a quick test builds (the bench scales them up). Nesting stops
    /// at the parser's depth limit; rows past it are siblings.
    pub rows: usize,
    pub page: fn(usize) -> String,
}

pub const SHAPES: &[Shape] = &[
    Shape {
        name: "striped table",
        rows: 3_000,
        page: striped_table,
    },
    Shape {
        name: "classes cycling through seven",
        rows: 3_000,
        page: cycling_classes,
    },
    Shape {
        name: "wide flat list",
        rows: 6_000,
        page: flat_list,
    },
    Shape {
        name: "deep nesting",
        // Past where the CNT's one text overflows its default budget at
        // both sizes: a view that cuts does more than one that fits whole.
        rows: 3_000,
        page: deep_nesting,
    },
    Shape {
        name: "product grid",
        rows: 1_500,
        page: product_grid,
    },
    Shape {
        name: "real pages run together (rows = KB)",
        rows: 400,
        page: real_pages,
    },
];

/// The call each view gets on a shape: its defaults, plus what it cannot
/// run without (chunk's target, find's query).
pub fn default_call(view: &dyn AnyView) -> Call {
    let pairs = match view.name().as_str() {
        "chunk" => vec![("selector".to_string(), "main".to_string())],
        "find" => vec![("query".to_string(), "a".to_string())],
        _ => vec![],
    };
    view.call_from_pairs(pairs, Ctx::default())
        .expect("a view's default call reads")
}

/// `call` on `page` as a surface runs it; a refusal (no `main` on the
/// page) is an answer too, and costs what it costs.
pub fn run(call: &Call, page: &Page) {
    let mut input = Input::page(page, "https://example.com/");
    let _ = call.run(&mut input);
}

fn wrap(body: String) -> String {
    format!(
        "<!doctype html><html><head><title>t</title></head><body><main>{body}</main></body></html>"
    )
}

fn striped_table(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| {
            let class = if i % 2 == 0 { "even" } else { "odd" };
            format!(
                "<tr class=\"{class}\"><td>Row {i}</td><td><a href=\"/r/{i}\">item {i}</a></td><td>{} EUR</td></tr>\n",
                i * 3
            )
        })
        .collect();
    wrap(format!("<table><tbody>{rows}</tbody></table>"))
}

fn cycling_classes(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| {
            format!(
                "<div class=\"c{}\"><span>Entry {i}</span> <a href=\"/e/{i}\">link {i}</a></div>\n",
                i % 7
            )
        })
        .collect();
    wrap(format!("<div class=\"list\">{rows}</div>"))
}

fn flat_list(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| format!("<li><a href=\"/x/{i}\">x {i}</a></li>\n"))
        .collect();
    wrap(format!("<ul>{rows}</ul>"))
}

fn deep_nesting(n: usize) -> String {
    let open: String = (0..n)
        .map(|i| format!("<div class=\"d{}\"><span>level {i}</span>", i % 3))
        .collect();
    wrap(format!("{open}{}", "</div>".repeat(n)))
}

fn product_grid(n: usize) -> String {
    let cards: String = (0..n)
        .map(|i| {
            format!(
                "<article class=\"card{}\"><a href=\"/p/{i}\"><img src=\"/img/{i}.jpg\" alt=\"Product {i}\"></a>\
                 <h3><a href=\"/p/{i}\">Product {i} in size {}</a></h3><p class=\"price\">{}.99 EUR</p>\
                 <ul class=\"specs\"><li>Colour: shade {}</li><li>Weight: {} g</li></ul>\
                 <button type=\"button\">Add product {i} to cart</button></article>\n",
                i % 4,
                i % 9,
                10 + i % 90,
                i % 13,
                100 + i % 400
            )
        })
        .collect();
    wrap(format!(
        "<section class=\"grid\"><h2>Products</h2>{cards}</section>"
    ))
}

/// About `kb` kilobytes: a unit of 400 KB of real pages
/// ([`crate::pages_run_together`]) repeated, so that twice the kilobytes is
/// twice the same content.
fn real_pages(kb: usize) -> String {
    const UNIT: usize = 400_000;
    let target = kb * 1000;
    let unit = crate::pages_run_together(target.min(UNIT));
    let body = unit.repeat(target.div_ceil(UNIT).max(1));
    format!("<!doctype html><html><head><title>big</title></head>{body}</html>")
}
