//! Helpers shared by the CLI tests: run the real binary, read its output,
//! write a page file under the target directory.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn webfold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(args)
        .output()
        .expect("run webfold")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A page file for test binary `group`, in the target directory.
pub fn page_file(group: &str, name: &str, html: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(name);
    std::fs::write(&path, html).expect("write page");
    path
}
