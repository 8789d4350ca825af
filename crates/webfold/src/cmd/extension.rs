//! `webfold extension DIR`: the browser extension, built and shipped inside
//! the binary, written out for Chrome to load; no Node.js on the user's
//! machine. The build in `extension/dist` is committed (`scripts/test`
//! checks it is current with its sources).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;

/// Write the browser extension to a folder, for Chrome or Chromium to load
/// unpacked, and a zip of it beside the folder for a store upload
#[derive(Parser)]
pub struct Args {
    /// The folder to write (created; an earlier copy of the extension in it is replaced)
    dir: PathBuf,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../extension/dist/", $name)))),*]
    };
}

/// The built extension, file by file.
const FILES: &[(&str, &[u8])] = files![
    "manifest.json",
    "background.js",
    "capture.js",
    "content.js",
    "markdown.js",
    "pairing.js",
    "panel.css",
    "panel.html",
    "panel.js",
    "source.js",
];

pub fn run(args: Args) -> anyhow::Result<()> {
    let dir = prepare(&args.dir)?;
    for (name, bytes) in FILES {
        let path = dir.join(name);
        std::fs::write(&path, bytes)
            .map_err(|e| anyhow::anyhow!("could not write {}: {e}", path.display()))?;
    }
    let zip = zip_path(&dir);
    std::fs::write(&zip, zip::stored(FILES))
        .map_err(|e| anyhow::anyhow!("could not write {}: {e}", zip.display()))?;
    if args.json {
        let out = serde_json::json!({
            "dir": dir,
            "files": FILES.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "zip": zip,
            "extension_id": webfold_daemon::auth::EXTENSION_ID,
        });
        return crate::out::line(&serde_json::to_string_pretty(&out)?);
    }
    crate::out::line(&format!(
        "Wrote the webfold extension to {dir}\n\
         (and {zip} for a store upload).\n\
         Load it in Chrome or Chromium:\n  \
         1. open chrome://extensions and turn on Developer mode (top right)\n  \
         2. click \"Load unpacked\" and choose {dir}\n\
         Then `webfold pair` prints what the side panel asks for. After upgrading\n\
         webfold, run this again and click the extension's reload arrow.",
        dir = dir.display(),
        zip = zip.display()
    ))
}

/// `dir`, created, absolute; refused when it holds something else.
fn prepare(dir: &Path) -> anyhow::Result<PathBuf> {
    anyhow::ensure!(
        !dir.exists() || dir.is_dir(),
        "{} is a file: name a folder to write the extension to",
        dir.display()
    );
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("could not create {}: {e}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .map_err(|e| anyhow::anyhow!("could not open {}: {e}", dir.display()))?;
    let ours = |name: &str| FILES.iter().any(|(n, _)| *n == name);
    let foreign: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !ours(n))
        .collect();
    let manifest = dir.join("manifest.json");
    let earlier_copy = manifest.is_file() && is_ours(&manifest);
    anyhow::ensure!(
        !manifest.is_file() || earlier_copy,
        "{} holds another extension's manifest.json: choose a new or empty folder",
        dir.display()
    );
    anyhow::ensure!(
        foreign.is_empty() || earlier_copy,
        "{} already holds other files ({}): choose a new or empty folder",
        dir.display(),
        foreign.join(", ")
    );
    Ok(dir)
}

/// Whether the manifest at `path` is webfold's (an earlier copy to replace).
fn is_ours(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|m| m["name"] == "webfold")
}

/// `DIR.zip` beside `DIR`.
fn zip_path(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".zip");
    dir.with_file_name(name)
}

/// A zip archive of stored (uncompressed) files: what a store upload takes,
/// with no compression library for a few hundred kilobytes.
mod zip {
    use super::Write;

    pub fn stored(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in files {
            let offset = out.len() as u32;
            let crc = crc32(data);
            let _ = out.write_all(&header(0x0403_4b50, name, data, crc, None));
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
            let _ = central.write_all(&header(0x0201_4b50, name, data, crc, Some(offset)));
            central.extend_from_slice(name.as_bytes());
        }
        let (at, size) = (out.len() as u32, central.len() as u32);
        out.extend_from_slice(&central);
        let count = files.len() as u16;
        let mut end = vec![];
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&[0; 4]);
        for v in [count, count] {
            end.extend_from_slice(&v.to_le_bytes());
        }
        end.extend_from_slice(&size.to_le_bytes());
        end.extend_from_slice(&at.to_le_bytes());
        end.extend_from_slice(&[0; 2]);
        out.extend_from_slice(&end);
        out
    }

    /// A local (no offset) or central directory (with the local header's
    /// offset) record, less the name that follows it.
    fn header(signature: u32, name: &str, data: &[u8], crc: u32, offset: Option<u32>) -> Vec<u8> {
        let mut h = Vec::with_capacity(46);
        h.extend_from_slice(&signature.to_le_bytes());
        if offset.is_some() {
            // made by: Unix (so the attributes below are a file mode), 2.0
            h.extend_from_slice(&0x0314u16.to_le_bytes());
        }
        // needed version, flags, method (stored), time, date (1980-01-01)
        for v in [10u16, 0, 0, 0, 0x21] {
            h.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, data.len() as u32, data.len() as u32] {
            h.extend_from_slice(&v.to_le_bytes());
        }
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes()); // extra
        if let Some(offset) = offset {
            // comment, disk, internal and external attributes
            h.extend_from_slice(&[0; 6]);
            h.extend_from_slice(&0o100644u32.wrapping_shl(16).to_le_bytes());
            h.extend_from_slice(&offset.to_le_bytes());
        }
        h
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (!(crc & 1)).wrapping_add(1));
            }
        }
        !crc
    }
}

#[cfg(test)]
mod tests {
    use super::{FILES, zip};

    fn u16_at(b: &[u8], at: usize) -> usize {
        u16::from_le_bytes([b[at], b[at + 1]]) as usize
    }

    fn u32_at(b: &[u8], at: usize) -> usize {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
    }

    /// The archive read back as an unzip tool reads it: from the end
    /// record, through the central directory, to each file's own header.
    #[test]
    fn the_zip_reads_back_file_for_file() {
        let z = zip::stored(FILES);
        let end = z.len() - 22;
        assert_eq!(u32_at(&z, end), 0x0605_4b50);
        assert_eq!(u16_at(&z, end + 10), FILES.len());
        let mut at = u32_at(&z, end + 16);
        for (name, data) in FILES {
            assert_eq!(u32_at(&z, at), 0x0201_4b50);
            let name_len = u16_at(&z, at + 28);
            assert_eq!(&z[at + 46..at + 46 + name_len], name.as_bytes());
            assert_eq!(u32_at(&z, at + 24), data.len());
            let local = u32_at(&z, at + 42);
            assert_eq!(u32_at(&z, local), 0x0403_4b50);
            assert_eq!(u32_at(&z, local + 14), u32_at(&z, at + 16), "{name}: CRC");
            let start = local + 30 + u16_at(&z, local + 26);
            assert_eq!(&z[start..start + data.len()], *data);
            at += 46 + name_len;
        }
        assert_eq!(at, end);
    }

    /// A file the build writes but the binary leaves out breaks the
    /// extension as users load it (a module it imports is missing).
    #[test]
    fn the_binary_carries_every_file_of_the_build() {
        let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../extension/dist");
        let mut built: Vec<String> = std::fs::read_dir(&dist)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        built.sort();
        let mut carried: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        carried.sort();
        assert_eq!(
            carried, built,
            "list every file of extension/dist/ in FILES"
        );
    }

    #[test]
    fn crc_is_the_zip_one() {
        // The check value of CRC-32/ISO-HDLC.
        let z = zip::stored(&[("a", b"123456789")]);
        assert_eq!(&z[14..18], &0xCBF4_3926u32.to_le_bytes());
    }
}
