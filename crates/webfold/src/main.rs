//! The `webfold` binary: the command, as the library declares it.

fn main() {
    webfold::main_with(std::env::args_os().collect())
}
