//! webfold at corpus scale: pages from WARC files, folders and HTML files,
//! each folded to its main content as Markdown (one JSON line per page).
//!
//! - [`fold`]: one page's bytes, address and media type to a [`Folded`]
//!   record. The command (`webfold batch`) and the Python package
//!   (`fold_batch`) both call it, so their records are the same.
//! - [`warc`]: a streaming WARC reader (1.0 and 1.1, plain, gzip per record
//!   or gzip over the whole file) that skips a broken record and stops
//!   cleanly at a truncated one.
//! - [`source`]: what a command-line input names (a WARC, a folder, a file)
//!   as a stream of pages and notices.
//! - [`run`]: the parallel runner, its output in input order.

pub mod fold;
mod http;
pub mod run;
pub mod source;
pub mod warc;

pub use fold::{FoldError, Folded, PageIn, fold};
