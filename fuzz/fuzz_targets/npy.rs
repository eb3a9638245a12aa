//! The `.npy` reader on arbitrary bytes: a typed error or an array whose length matches its
//! shape, never a panic, an abort or an allocation the file does not back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    if let Ok(a) = tilekit::npy::read_from(Cursor::new(data), Some(len), Path::new("fuzz.npy")) {
        let elems: u64 = a.shape.iter().product();
        assert_eq!(a.data.len() as u64, elems);
        // What was read can be written back and read again to the same values.
        let bytes = tilekit::npy::to_bytes(&a).expect("a read array serialises");
        let b = tilekit::npy::read_from(Cursor::new(&bytes), Some(bytes.len() as u64), Path::new("again.npy"))
            .expect("tilekit reads what it writes");
        assert_eq!(a.shape, b.shape);
        assert_eq!(a.data.dtype(), b.data.dtype());
    }
});
