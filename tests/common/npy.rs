//! A `.npy` reader and writer for the tests, written apart from tilekit's (so that a bug in one
//! cannot hide behind the same bug in the other): NumPy's format 1.0, little-endian, C order.

use std::path::Path;

/// An element type the tests write and read.
pub trait Elem: Copy {
    /// NumPy's type string.
    const DESCR: &'static str;
    /// Little-endian bytes.
    fn le(self) -> Vec<u8>;
    /// From little-endian bytes.
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty => $d:literal),+) => {$(
        impl Elem for $t {
            const DESCR: &'static str = $d;
            fn le(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    )+};
}
elem!(f32 => "<f4", f64 => "<f8", i32 => "<i4", u32 => "<u4", u8 => "|u1");

/// The bytes of a file holding `values` with `shape` and type string `descr`.
pub fn bytes_of(descr: &str, shape: &[u64], data: &[u8]) -> Vec<u8> {
    let shape = match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend(((total - 10) as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out.extend(data);
    out
}

/// Write `values` with `shape`.
pub fn save<T: Elem>(path: &Path, values: &[T], shape: &[u64]) {
    let data: Vec<u8> = values.iter().flat_map(|v| v.le()).collect();
    std::fs::write(path, bytes_of(T::DESCR, shape, &data)).unwrap();
}

/// A file's type string, shape and data bytes.
pub fn read_raw(path: &Path) -> (String, Vec<u64>, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..6], b"\x93NUMPY", "{path:?}");
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    let header = std::str::from_utf8(&b[10..10 + len]).unwrap();
    let field = |key: &str| {
        let at = header.find(&format!("'{key}': ")).unwrap() + key.len() + 4;
        header[at..].to_string()
    };
    let descr = field("descr");
    let descr = descr[1..descr[1..].find('\'').unwrap() + 1].to_string();
    let shape = field("shape");
    let shape: Vec<u64> = shape[1..shape.find(')').unwrap()]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (descr, shape, b[10 + len..].to_vec())
}

/// A file's values as `T` (its type string must be `T`'s) and its shape.
pub fn read<T: Elem>(path: &Path) -> (Vec<T>, Vec<u64>) {
    let (descr, shape, data) = read_raw(path);
    assert_eq!(descr, T::DESCR, "{path:?}");
    let size = std::mem::size_of::<T>();
    (data.chunks_exact(size).map(T::from_le).collect(), shape)
}
