//! webfold-core: the page model and every view computed from it.
//!
//! Invariant: this crate does no I/O. Inputs arrive as bytes or strings; views
//! are pure functions of `(Page, options, session state)`.

pub mod decode;
pub mod error;
pub mod page;
pub mod select;
pub mod tokens;
pub mod fetch_view;

pub use error::Error;
pub use page::{NodeId, Page};
