//! webfold-core: the page model and every view computed from it.
//!
//! Invariant: this crate does no I/O. Inputs arrive as bytes or strings; views
//! are pure functions of `(Page, options, session state)`.

pub mod action;
pub mod aria;
pub mod chunk;
pub mod cnt;
pub mod contract;
pub mod decode;
pub mod error;
pub mod extract;
pub mod fetch_view;
pub mod fit;
mod grow;
pub mod layers;
pub mod links;
pub mod markdown;
pub mod outline;
pub mod page;
pub mod purpose;
pub mod select;
pub mod snapshot;
pub mod tokens;
pub mod view;

pub use error::Error;
pub use page::{NodeId, Page};
