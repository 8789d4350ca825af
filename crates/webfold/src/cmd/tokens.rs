use clap::Parser;
use webfold_core::tokens::{self, CountRequest};

use crate::flags::Flags;
use crate::input::Input;

/// Count the exact tokens of a file, URL or standard input, as given.
#[derive(Parser)]
#[command(after_help = "Example:\n  webfold tokens page.html --encoding cl100k_base")]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    #[command(flatten)]
    count: Flags<CountRequest>,
    /// Print {"tokens", "encoding", "bytes"} as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load(&args.input)?;
    let text = input.text();
    let encoding = args.count.request.encoding;
    let count = tokens::count(&text, encoding);
    if args.json {
        let out = serde_json::json!({
            "tokens": count,
            "encoding": encoding.name(),
            "bytes": text.len(),
        });
        crate::out::line(&out.to_string())
    } else {
        crate::out::line(&count.to_string())
    }
}
