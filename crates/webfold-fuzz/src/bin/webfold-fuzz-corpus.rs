//! Writes every target's starting inputs, drawn from the shared corpus, to
//! `DIR/<target>/`, and its mutation tokens to `DIR/<target>.dict`, for
//! `cargo fuzz run <target> … DIR/<target> -- -dict=DIR/<target>.dict`.

use std::path::PathBuf;

use webfold_fuzz::Target;
use webfold_fuzz::inputs::{self, Amount};

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: webfold-fuzz-corpus DIR [TARGET]...");
        std::process::exit(2);
    };
    let wanted: Vec<String> = std::env::args().skip(2).collect();
    for target in Target::ALL {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == target.name()) {
            continue;
        }
        let out = dir.join(target.name());
        std::fs::create_dir_all(&out)?;
        let all = inputs::for_target(target, Amount::Full);
        for (i, input) in all.iter().enumerate() {
            let bytes = &input[..input.len().min(target.max_len())];
            std::fs::write(out.join(format!("start-{i:05}")), bytes)?;
        }
        std::fs::write(
            dir.join(format!("{}.dict", target.name())),
            dictionary(target.dictionary()),
        )?;
        println!(
            "{}: {} inputs in {}",
            target.name(),
            all.len(),
            out.display()
        );
    }
    Ok(())
}

/// libFuzzer's dictionary format: one quoted token a line, `\xNN` escapes.
fn dictionary(tokens: &[&[u8]]) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push('"');
        for &b in *token {
            match b {
                b'"' | b'\\' => {
                    out.push('\\');
                    out.push(b as char);
                }
                0x20..=0x7e => out.push(b as char),
                _ => out.push_str(&format!("\\x{b:02X}")),
            }
        }
        out.push_str("\"\n");
    }
    out
}
