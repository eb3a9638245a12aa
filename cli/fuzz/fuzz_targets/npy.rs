//! The `.npy` reader on arbitrary bytes: a typed error or an array whose length matches its
//! shape, never a panic, an abort or an allocation the file does not back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tilekit_cli::fuzzing::npy(data));
