use clap::Parser;
use webfold_core::tokens::{self, Encoding};

use crate::input::Input;

/// Count the exact tokens of a file, URL or standard input.
#[derive(Parser)]
#[command(after_help = "Example:\n  webfold tokens page.html --encoding cl100k_base")]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    /// Tokenizer vocabulary
    #[arg(long, default_value = "o200k_base")]
    encoding: Encoding,
    /// Print {"tokens", "encoding", "bytes"} as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load(&args.input)?;
    let text = input.text();
    let count = tokens::count(&text, args.encoding);
    if args.json {
        let out = serde_json::json!({
            "tokens": count,
            "encoding": args.encoding.name(),
            "bytes": text.len(),
        });
        println!("{out}");
    } else {
        println!("{count}");
    }
    Ok(())
}
