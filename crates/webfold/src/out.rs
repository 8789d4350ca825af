//! Everything the binary prints goes through here. A reader that goes away
//! (`webfold pair | head -1`) ends the output quietly: a closed pipe is not
//! an error, and nothing here can panic on it as `println!` does (the crate
//! denies `println!` and `eprintln!` so no command bypasses this).

use std::io::Write;

/// Writes a view's text and a final line break when it has none, unless
/// the break could push it past its token budget.
pub fn view(envelope: &webfold_core::view::Envelope) -> anyhow::Result<()> {
    let text = &envelope.text;
    // A line break is at most one more token.
    let room = envelope.max_tokens.is_none_or(|b| {
        webfold_core::tokens::fits_by_bytes(text.len() + 1, b) || envelope.tokens() < b
    });
    let newline = !text.ends_with('\n') && room;
    write(&mut std::io::stdout().lock(), text, newline)
}

/// Writes `text` as one line (or several, each ending in a line break).
pub fn line(text: &str) -> anyhow::Result<()> {
    write(&mut std::io::stdout().lock(), text, !text.ends_with('\n'))
}

/// Writes a diagnostic line to standard error. Failing to write it is
/// ignored: with standard error gone there is nowhere left to say so.
pub fn note(text: &str) {
    let _ = write(&mut std::io::stderr().lock(), text, !text.ends_with('\n'));
}

/// Writes `text` to standard error with no line break: a prompt the user
/// answers on the same line.
pub fn prompt(text: &str) {
    let _ = write(&mut std::io::stderr().lock(), text, false);
}

fn write(out: &mut impl Write, text: &str, newline: bool) -> anyhow::Result<()> {
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

/// Lines written one after another to standard output or a file, buffered
/// (a batch writes millions). A closed pipe ends them quietly.
pub struct Lines {
    to: std::io::BufWriter<Box<dyn Write>>,
}

impl Lines {
    /// Lines to `path`, or to standard output when none.
    pub fn to(path: Option<&std::path::Path>) -> anyhow::Result<Lines> {
        let to: Box<dyn Write> = match path {
            Some(p) => Box::new(
                std::fs::File::create(p)
                    .map_err(|e| anyhow::anyhow!("cannot write '{}': {e}", p.display()))?,
            ),
            None => Box::new(std::io::stdout()),
        };
        Ok(Lines {
            to: std::io::BufWriter::with_capacity(1 << 16, to),
        })
    }

    /// Writes `text` and a line break; false once the reader has gone.
    pub fn line(&mut self, text: &str) -> anyhow::Result<bool> {
        let r = self
            .to
            .write_all(text.as_bytes())
            .and_then(|()| self.to.write_all(b"\n"));
        gone(r)
    }

    /// Writes out what is buffered; false once the reader has gone.
    pub fn flush(&mut self) -> anyhow::Result<bool> {
        let r = self.to.flush();
        gone(r)
    }
}

fn gone(r: std::io::Result<()>) -> anyhow::Result<bool> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(anyhow::anyhow!("cannot write the output: {e}")),
    }
}
