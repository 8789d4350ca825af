//! One module per subcommand: `Args` (clap) and `run`.

pub mod agent;
pub mod chunk;
pub mod cnt;
pub mod daemon;
pub mod doctor;
pub mod fetch;
pub mod find;
pub mod get_chunk;
pub mod markdown;
pub mod mcp;
pub mod outline;
pub mod pair;
pub mod serve;
pub mod snapshot;
pub mod tokens;
pub mod ui;
