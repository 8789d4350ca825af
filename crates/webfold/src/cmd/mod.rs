//! One module per subcommand: `Args` (clap) and `run`.

pub mod chunk;
pub mod cnt;
pub mod fetch;
pub mod find;
pub mod get_chunk;
pub mod markdown;
pub mod mcp;
pub mod outline;
pub mod serve;
pub mod snapshot;
pub mod tokens;
