//! One module per subcommand: `Args` (clap) and `run`.

pub mod agent;
pub mod batch;
pub mod daemon;
pub mod doctor;
pub mod extension;
pub mod fetch;
pub mod get_chunk;
pub mod install_host;
pub mod mcp;
pub mod native_host;
pub mod pair;
pub mod serve;
pub mod tokens;
pub mod ui;
pub mod view;
