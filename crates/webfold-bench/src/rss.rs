//! Peak memory of parse + views on one large page, in a process of its own so
//! the high-water mark is the page's alone.

use std::process::Command;

use webfold_core::Page;

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A page of about `target` bytes: real corpus pages' bodies concatenated.
pub(crate) fn big_page(target: usize) -> String {
    let body = webfold_corpus::pages_run_together(target);
    format!("<!doctype html><html><head><title>big</title></head>{body}</html>")
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    if args.first().map(String::as_str) == Some("--child") {
        let html = big_page(10 * 1024 * 1024);
        let before = peak_rss_kb().unwrap_or(0);
        let t = std::time::Instant::now();
        let page = Page::parse(&html);
        let views = crate::run::all_views(&page, None);
        let elapsed = t.elapsed();
        let after = peak_rss_kb().unwrap_or(0);
        println!(
            "{{\"page_bytes\":{},\"nodes\":{},\"peak_rss_mb\":{:.1},\"rss_before_mb\":{:.1},\"seconds\":{:.3},\"views\":{}}}",
            html.len(),
            page.len(),
            after as f64 / 1024.0,
            before as f64 / 1024.0,
            elapsed.as_secs_f64(),
            views.len()
        );
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    let out = Command::new(exe).args(["rss", "--child"]).output()?;
    anyhow::ensure!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    println!(
        "10 MB page ({} bytes, {} nodes): parse + all views peak RSS {} MB (input text alone {} MB before parse), {} s",
        v["page_bytes"], v["nodes"], v["peak_rss_mb"], v["rss_before_mb"], v["seconds"]
    );
    Ok(())
}
