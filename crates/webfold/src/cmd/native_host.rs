//! The browser's native messaging host: Chromium runs this binary as
//! `webfold chrome-extension://ID/` (the manifest `webfold install-host`
//! writes names it), sends one request and reads one answer, each a
//! native-endian `u32` length then JSON. The answer is the pairing, after
//! starting the daemon if it was down.

use std::ffi::OsStr;
use std::io::{Read, Write};

use webfold_daemon::auth::{Token, allowed_extensions};
use webfold_daemon::home::Home;
use webfold_protocol::native::{
    HostError, HostReply, HostRequest, MAX_HOST_MESSAGE_BYTES, Pairing,
};

/// The calling extension's origin, when Chromium started this process as
/// its native messaging host.
pub fn caller(first_arg: Option<&OsStr>) -> Option<String> {
    let arg = first_arg?.to_str()?;
    arg.starts_with("chrome-extension://")
        .then(|| arg.to_string())
}

/// Answers one request on stdin; a broken frame gets no answer (the
/// extension reads that as a host that failed, and falls back to pasting).
pub fn serve(origin: &str) -> anyhow::Result<()> {
    let request = read_frame(&mut std::io::stdin().lock())?;
    let reply = match serde_json::from_slice::<HostRequest>(&request) {
        Ok(HostRequest::Pair) => match pair(origin) {
            Ok(p) => HostReply::Paired(p),
            Err(e) => HostReply::Error(HostError {
                message: format!("{e:#}"),
            }),
        },
        Err(e) => HostReply::Error(HostError {
            message: format!(
                "not a request this webfold understands ({e}): update webfold and the extension together"
            ),
        }),
    };
    let bytes = serde_json::to_vec(&reply)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&(bytes.len() as u32).to_ne_bytes())?;
    out.write_all(&bytes)?;
    out.flush()?;
    Ok(())
}

fn read_frame(input: &mut impl Read) -> anyhow::Result<Vec<u8>> {
    let cut = |e: std::io::Error| {
        anyhow::anyhow!(
            "the browser's request ended early ({e}): webfold runs this way only when the browser starts it for its extension"
        )
    };
    let mut len = [0u8; 4];
    input.read_exact(&mut len).map_err(cut)?;
    let len = u32::from_ne_bytes(len);
    anyhow::ensure!(
        len <= MAX_HOST_MESSAGE_BYTES,
        "a request of {len} bytes is more than a host request can be"
    );
    let mut body = vec![0u8; len as usize];
    input.read_exact(&mut body).map_err(cut)?;
    Ok(body)
}

/// The daemon running (started when down), and how to reach it; only for
/// an extension the daemon admits.
fn pair(origin: &str) -> anyhow::Result<Pairing> {
    let home = Home::from_env()?;
    let id = origin
        .trim_start_matches("chrome-extension://")
        .trim_end_matches('/');
    anyhow::ensure!(
        allowed_extensions(&home).iter().any(|a| a == id),
        "the extension {id} is not one the daemon admits: run `webfold pair --allow-extension {id}`, then `webfold install-host`"
    );
    let token = Token::load_or_create(&home)?;
    let exe = crate::self_exe()?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(webfold_chatter_client::client::connect_or_start(
            &home, &exe,
        ))?;
    super::pair::pairing(&home, &token)
}
