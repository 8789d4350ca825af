//! Writing to standard output. A reader that goes away (`webfold chunk … |
//! head -1`) ends the output quietly: a closed pipe is not an error, and
//! nothing here can panic on it as `println!` does.

use std::io::Write;

/// Writes `text` and a final line break when it has none, unless the break
/// could push a view past its token budget (`tokens` of `budget`).
pub fn view(text: &str, tokens: usize, budget: Option<usize>) -> anyhow::Result<()> {
    // A line break is at most one more token.
    let room = budget.is_none_or(|b| tokens < b);
    let newline = !text.ends_with('\n') && room;
    write(text, newline)
}

/// Writes `text` as one line.
pub fn line(text: &str) -> anyhow::Result<()> {
    write(text, !text.ends_with('\n'))
}

fn write(text: &str, newline: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let r = out
        .write_all(text.as_bytes())
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
