#![no_main]

use libfuzzer_sys::fuzz_target;
use webfold_fuzz::Target;

fuzz_target!(|data: &[u8]| Target::WsFrame.check(data));
