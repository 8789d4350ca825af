//! Cold start: what one CLI call costs an agent, which runs `webfold` once per
//! step. Wall time of whole processes, ours beside another `webfold` binary
//! (a build of an earlier commit) on the same pages, alternating runs.
//!
//! `webfold-bench cold --binary target/release/webfold --baseline OLD [--runs N]`

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small real page cut to about 1 KB, and a ~1 MB page of real bodies.
fn pages(dir: &Path) -> anyhow::Result<[(String, PathBuf); 2]> {
    let small = "<!doctype html><html><head><title>Order</title></head><body>\
        <header><nav><a href=/>Home</a> <a href=/shop>Shop</a> <a href=/cart>Cart</a></nav></header>\
        <main><h1>Your order</h1><p>Check the items and place the order.</p>\
        <ul class=items><li>Tea, 2 × 4.50</li><li>Cups, 1 × 12.00</li></ul>\
        <form><label>Name <input name=name></label><label>Card <input name=card></label>\
        <select name=ship><option>Standard</option><option>Express</option></select>\
        <button>Place order</button></form><div role=status></div></main>\
        <footer><p>© Shop</p><a href=/terms>Terms</a> <a href=/privacy>Privacy</a></footer>\
        </body></html>";
    let big = crate::rss::big_page(1 << 20);
    let small_path = dir.join("cold-1k.html");
    let big_path = dir.join("cold-1m.html");
    std::fs::write(&small_path, small)?;
    std::fs::write(&big_path, big)?;
    Ok([
        ("outline, 1 KB page".into(), small_path),
        ("chunk body, 1 MB page".into(), big_path),
    ])
}

fn args_for(case: usize, page: &Path) -> Vec<String> {
    let page = page.display().to_string();
    match case {
        0 => vec!["outline".into(), page],
        _ => vec!["chunk".into(), page, "--selector".into(), "body".into()],
    }
}

fn run_once(binary: &Path, args: &[String]) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let status = Command::new(binary)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let elapsed = t.elapsed();
    anyhow::ensure!(
        status.success(),
        "{} {} failed ({status})",
        binary.display(),
        args.join(" ")
    );
    Ok(elapsed)
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let binary = PathBuf::from(value("--binary").unwrap_or("target/release/webfold".into()));
    let baseline = value("--baseline").map(PathBuf::from);
    let runs: usize = value("--runs").map_or(Ok(21), |r| r.parse())?;
    anyhow::ensure!(runs > 0, "--runs takes a positive number");
    let dir = std::env::temp_dir().join(format!("webfold-cold-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let cases = pages(&dir)?;
    for (case, (label, page)) in cases.iter().enumerate() {
        let args = args_for(case, page);
        // One warm-up each (page cache), then alternate so drift hits both.
        run_once(&binary, &args)?;
        if let Some(b) = &baseline {
            run_once(b, &args)?;
        }
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            ours.push(run_once(&binary, &args)?);
            if let Some(b) = &baseline {
                theirs.push(run_once(b, &args)?);
            }
        }
        let ours = median_ms(ours);
        match baseline {
            Some(_) => {
                let theirs = median_ms(theirs);
                println!(
                    "{label}: {ours:.1} ms median of {runs}, baseline {theirs:.1} ms ({:.1}× faster)",
                    theirs / ours
                );
            }
            None => println!("{label}: {ours:.1} ms median of {runs}"),
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
