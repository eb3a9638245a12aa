//! NumPy `.npy` files in and out, keeping what the user gave: the dtype, its byte order and the
//! shape. C order; float16, float32, float64, int32, uint32 and uint8, little- or big-endian.
//! Anything else is an [`CliError::Npy`] that names the file and says what is wrong. The header's
//! dictionary is read and written by the `header` module, in one pass over at most [`MAX_HEADER`] bytes.
//! Files are written through [`super::output`]: atomic for a regular file, through a symlink to
//! its target, straight into a device or a FIFO.

use crate::error::CliError;

type Result<T> = std::result::Result<T, CliError>;

mod header;
use half::f16;
use header::header_bytes;
pub use header::{parse_header, Header};
use std::io::Read;
use std::path::Path;

/// The values of a `.npy` file, in C order, native byte order.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// float16.
    F16(Vec<f16>),
    /// float32.
    F32(Vec<f32>),
    /// float64.
    F64(Vec<f64>),
    /// int32.
    I32(Vec<i32>),
    /// uint32.
    U32(Vec<u32>),
    /// uint8.
    U8(Vec<u8>),
}

/// An array read from a file or to be written to one.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// The values.
    pub data: Data,
    /// Its shape (empty for a 0-d array).
    pub shape: Vec<u64>,
    /// Whether the file stores it big-endian (`>f4`); written back the same way.
    pub big_endian: bool,
}

/// The dtypes tilekit reads, as NumPy names them.
pub const DTYPES: &str = "float16, float32, float64, int32, uint32, uint8 (either byte order)";

macro_rules! each {
    ($d:expr, $v:ident => $e:expr) => {
        match $d {
            Data::F16($v) => $e,
            Data::F32($v) => $e,
            Data::F64($v) => $e,
            Data::I32($v) => $e,
            Data::U32($v) => $e,
            Data::U8($v) => $e,
        }
    };
}

impl Data {
    /// NumPy's name for the element type.
    pub fn dtype(&self) -> &'static str {
        match self {
            Data::F16(_) => "float16",
            Data::F32(_) => "float32",
            Data::F64(_) => "float64",
            Data::I32(_) => "int32",
            Data::U32(_) => "uint32",
            Data::U8(_) => "uint8",
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    /// Bytes per element.
    pub fn item_size(&self) -> usize {
        match self {
            Data::F16(_) => 2,
            Data::F32(_) | Data::I32(_) | Data::U32(_) => 4,
            Data::F64(_) => 8,
            Data::U8(_) => 1,
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(&self) -> bool {
        matches!(self, Data::F16(_) | Data::F32(_) | Data::F64(_))
    }

    /// Every value as f64 (exact for every type here).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Data::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F64(v) => v.clone(),
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U8(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }

    /// The raw bytes of every element (native order), for bit-for-bit comparisons.
    pub fn bytes(&self) -> Vec<u8> {
        each!(self, v => bytemuck::cast_slice(v).to_vec())
    }

    /// Floating-point values as f32: float32 as is, float16 exactly, float64 rounded (the
    /// caller warns). `None` for integers.
    pub fn to_f32(&self) -> Option<Vec<f32>> {
        match self {
            Data::F16(v) => Some(v.iter().map(|x| x.to_f32()).collect()),
            Data::F32(v) => Some(v.clone()),
            Data::F64(v) => Some(v.iter().map(|&x| x as f32).collect()),
            _ => None,
        }
    }

    /// f32 results converted to this (floating-point) type: float16 and float64 round from
    /// f32, others are returned as float32.
    pub fn float_like(&self, values: Vec<f32>) -> Data {
        match self {
            Data::F16(_) => Data::F16(values.into_iter().map(f16::from_f32).collect()),
            Data::F64(_) => Data::F64(values.into_iter().map(|v| v as f64).collect()),
            _ => Data::F32(values),
        }
    }

    /// Elements of 1, 2 or 4 bytes as 32-bit words holding their bits (widened, so a kernel that
    /// moves words moves them); `None` for 8-byte float64.
    pub fn to_words(&self) -> Option<Vec<u32>> {
        Some(match self {
            Data::F32(x) => x.iter().map(|v| v.to_bits()).collect(),
            Data::I32(x) => x.iter().map(|&v| v as u32).collect(),
            Data::U32(x) => x.clone(),
            Data::U8(x) => x.iter().map(|&v| v as u32).collect(),
            Data::F16(x) => x.iter().map(|v| v.to_bits() as u32).collect(),
            Data::F64(_) => return None,
        })
    }

    /// The inverse of [`Data::to_words`]: words back to this type (narrowed), every bit kept.
    pub fn with_words(&self, w: Vec<u32>) -> Data {
        match self {
            Data::F32(_) => Data::F32(w.iter().map(|&b| f32::from_bits(b)).collect()),
            Data::I32(_) => Data::I32(w.iter().map(|&b| b as i32).collect()),
            Data::U8(_) => Data::U8(w.iter().map(|&b| b as u8).collect()),
            Data::F16(_) => Data::F16(w.iter().map(|&b| f16::from_bits(b as u16)).collect()),
            Data::F64(_) => Data::F64(
                w.chunks(2)
                    .map(|c| {
                        f64::from_bits(c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
                    })
                    .collect(),
            ),
            Data::U32(_) => Data::U32(w),
        }
    }

    /// The elements at `order` (a permutation or selection of indices), same type.
    pub fn gather(&self, order: &[usize]) -> Data {
        match self {
            Data::F16(v) => Data::F16(order.iter().map(|&i| v[i]).collect()),
            Data::F32(v) => Data::F32(order.iter().map(|&i| v[i]).collect()),
            Data::F64(v) => Data::F64(order.iter().map(|&i| v[i]).collect()),
            Data::I32(v) => Data::I32(order.iter().map(|&i| v[i]).collect()),
            Data::U32(v) => Data::U32(order.iter().map(|&i| v[i]).collect()),
            Data::U8(v) => Data::U8(order.iter().map(|&i| v[i]).collect()),
        }
    }
}

impl Array {
    /// A little-endian array.
    pub fn new(data: Data, shape: Vec<u64>) -> Array {
        Array {
            data,
            shape,
            big_endian: false,
        }
    }

    /// NumPy's type string for the file: `<f4`, `>f8`, `|u1`, ...
    pub fn descr(&self) -> String {
        let (kind, size) = match self.data {
            Data::F16(_) => ('f', 2),
            Data::F32(_) => ('f', 4),
            Data::F64(_) => ('f', 8),
            Data::I32(_) => ('i', 4),
            Data::U32(_) => ('u', 4),
            Data::U8(_) => ('u', 1),
        };
        let order = if size == 1 {
            '|'
        } else if self.big_endian {
            '>'
        } else {
            '<'
        };
        format!("{order}{kind}{size}")
    }

    /// The dtype as NumPy prints it, with the byte order when it is big-endian.
    pub fn dtype(&self) -> String {
        if self.big_endian && self.data.item_size() > 1 {
            format!("{} (big-endian)", self.data.dtype())
        } else {
            self.data.dtype().to_string()
        }
    }

    /// An array of `data` with this one's byte order.
    pub fn like(&self, data: Data, shape: Vec<u64>) -> Array {
        Array {
            data,
            shape,
            big_endian: self.big_endian,
        }
    }

    /// The shape as (rows, cols) if it is a matrix.
    pub fn matrix(&self, path: &Path) -> Result<(usize, usize)> {
        match self.shape[..] {
            [r, c] => Ok((r as usize, c as usize)),
            _ => Err(npy_err(
                path,
                format!("expected a 2-D array, found shape {:?}", self.shape),
            )),
        }
    }
}

fn npy_err(path: &Path, message: impl Into<String>) -> CliError {
    CliError::Npy {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Read a `.npy` file from disk, refusing one whose header declares more than `max_data` bytes
/// of data before reading any of it (a pipe would be read until memory runs out).
pub fn read(path: &Path, max_data: Option<u64>) -> Result<Array> {
    let io = |e: std::io::Error| CliError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(npy_err(path, "is a directory, not a .npy file"));
    }
    // Opening a FIFO waits for its writer: say so, rather than wait in silence.
    if crate::output::is_fifo(path) {
        eprintln!("waiting for a writer on the FIFO {}", path.display());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let len = meta.is_file().then_some(meta.len());
    read_from_capped(std::io::BufReader::new(file), len, max_data, path)
}

/// The largest header tilekit reads. NumPy writes a few hundred bytes and its own reader refuses
/// headers over 10,000 (`max_header_size`); a parser of arbitrary length would be a denial of
/// service (a 170-byte header of nested brackets once froze the reader tilekit used for hours).
pub const MAX_HEADER: usize = 10_000;

/// Read a `.npy` file from any reader (`len`: its size in bytes when known, to refuse a header
/// that claims more data than there is before allocating for it). `path` names it in errors.
pub fn read_from(reader: impl Read, len: Option<u64>, path: &Path) -> Result<Array> {
    read_from_capped(reader, len, None, path)
}

/// [`read_from`], refusing a header that declares more than `max_data` bytes of data.
pub fn read_from_capped(
    mut reader: impl Read,
    len: Option<u64>,
    max_data: Option<u64>,
    path: &Path,
) -> Result<Array> {
    let (header, at) = read_header(&mut reader, path)?;
    if header.fortran_order {
        return Err(npy_err(
            path,
            "Fortran-order arrays are not supported; save it with np.ascontiguousarray",
        ));
    }
    let shape = header.shape;
    // NumPy's dimensions are signed 64-bit: a larger one (even in an empty array) would be
    // written back into a file NumPy cannot load.
    if let Some(d) = shape.iter().find(|&&d| d > i64::MAX as u64) {
        return Err(npy_err(
            path,
            format!("dimension {d} of shape {shape:?} is over NumPy's largest, 2^63 - 1"),
        ));
    }
    let descr = header.descr;
    let bytes = descr.as_bytes();
    let (order, key) = match bytes.first() {
        Some(b'<' | b'>' | b'|' | b'=') => (bytes[0], &descr[1..]),
        _ => (b'=', descr.as_str()),
    };
    let item = match key {
        "f2" => 2u64,
        "f4" | "i4" | "u4" => 4,
        "f8" => 8,
        "u1" => 1,
        _ => {
            return Err(npy_err(
                path,
                format!("unsupported dtype {descr:?}; tilekit reads {DTYPES}"),
            ))
        }
    };
    let big_endian = order == b'>' && item > 1;
    let count = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| npy_err(path, format!("shape {shape:?} overflows")))?;
    let needed = count
        .checked_mul(item)
        .ok_or_else(|| npy_err(path, format!("shape {shape:?} overflows")))?;
    if let Some(max) = max_data.filter(|max| needed > *max) {
        return Err(npy_err(
            path,
            format!(
                "the header's shape {shape:?} needs {needed} bytes of data, over the {max} this adapter's buffers can take (max_storage_buffer_binding_size)"
            ),
        ));
    }
    if let Some(len) = len {
        if len.saturating_sub(at) < needed {
            return Err(npy_err(
                path,
                format!(
                    "data unreadable (truncated?): the header's shape {shape:?} needs {needed} bytes, the file has {}",
                    len.saturating_sub(at)
                ),
            ));
        }
    }
    // Without a known length (a pipe), read in pieces: a short stream ends in an error, not in
    // an allocation the stream does not back.
    let mut raw = Vec::with_capacity(needed.min(64 << 20) as usize);
    let got = reader
        .by_ref()
        .take(needed)
        .read_to_end(&mut raw)
        .map_err(|e| npy_err(path, format!("data unreadable: {e}")))?;
    if (got as u64) < needed {
        return Err(npy_err(
            path,
            format!("data unreadable (truncated?): {got} of {needed} bytes"),
        ));
    }
    let data = decode(key, &raw, big_endian);
    Ok(Array {
        data,
        shape,
        big_endian,
    })
}

fn decode(key: &str, raw: &[u8], big: bool) -> Data {
    macro_rules! words {
        ($n:literal, $from:expr) => {
            raw.chunks_exact($n)
                .map(|c| {
                    let a: [u8; $n] = c.try_into().expect("chunks of the item size");
                    $from(a)
                })
                .collect()
        };
    }
    match (key, big) {
        ("f2", false) => Data::F16(words!(2, |a| f16::from_bits(u16::from_le_bytes(a)))),
        ("f2", true) => Data::F16(words!(2, |a| f16::from_bits(u16::from_be_bytes(a)))),
        ("f4", false) => Data::F32(words!(4, f32::from_le_bytes)),
        ("f4", true) => Data::F32(words!(4, f32::from_be_bytes)),
        ("f8", false) => Data::F64(words!(8, f64::from_le_bytes)),
        ("f8", true) => Data::F64(words!(8, f64::from_be_bytes)),
        ("i4", false) => Data::I32(words!(4, i32::from_le_bytes)),
        ("i4", true) => Data::I32(words!(4, i32::from_be_bytes)),
        ("u4", false) => Data::U32(words!(4, u32::from_le_bytes)),
        ("u4", true) => Data::U32(words!(4, u32::from_be_bytes)),
        _ => Data::U8(raw.to_vec()),
    }
}

/// The preamble and header of a `.npy` file: the header, and the offset of the data.
fn read_header(reader: &mut impl Read, path: &Path) -> Result<(Header, u64)> {
    let mut pre = [0u8; 10];
    reader
        .read_exact(&mut pre)
        .map_err(|_| npy_err(path, "not a valid .npy file: no NumPy magic string"))?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err(npy_err(
            path,
            "not a valid .npy file: no NumPy magic string",
        ));
    }
    let (header_len, offset) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as u64, 10u64),
        2 | 3 => {
            let mut more = [0u8; 2];
            reader
                .read_exact(&mut more)
                .map_err(|_| npy_err(path, "not a valid .npy file: the preamble ends early"))?;
            (
                u32::from_le_bytes([pre[8], pre[9], more[0], more[1]]) as u64,
                12,
            )
        }
        v => {
            return Err(npy_err(
                path,
                format!("not a valid .npy file: format version {v}.{}", pre[7]),
            ))
        }
    };
    if header_len > MAX_HEADER as u64 {
        return Err(npy_err(
            path,
            format!(
                "not a valid .npy file: a header of {header_len} bytes (tilekit reads at most {MAX_HEADER}, as NumPy does)"
            ),
        ));
    }
    let mut text = vec![0u8; header_len as usize];
    reader.read_exact(&mut text).map_err(|_| {
        npy_err(
            path,
            format!("not a valid .npy file: the header of {header_len} bytes ends early"),
        )
    })?;
    // Version 3 headers are UTF-8, the others Latin-1; the dictionary itself is ASCII.
    let text = String::from_utf8_lossy(&text);
    let header = parse_header(&text).map_err(|e| npy_err(path, format!("bad header: {e}")))?;
    Ok((header, offset + header_len))
}

/// The bytes of a `.npy` file holding `array`.
pub fn to_bytes(array: &Array) -> Result<Vec<u8>> {
    let mut out = header_bytes(array);
    let big = array.big_endian;
    macro_rules! put {
        ($v:expr, $f:expr) => {
            for x in $v {
                out.extend($f(x));
            }
        };
    }
    // The number types that have their own byte order methods: in the file's order.
    macro_rules! put_ordered {
        ($v:expr, $t:ty) => {
            put!($v, |x: &$t| if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            })
        };
    }
    match &array.data {
        Data::F16(v) => put!(v, |x: &f16| if big {
            x.to_bits().to_be_bytes()
        } else {
            x.to_bits().to_le_bytes()
        }),
        Data::F32(v) => put_ordered!(v, f32),
        Data::F64(v) => put_ordered!(v, f64),
        Data::I32(v) => put_ordered!(v, i32),
        Data::U32(v) => put_ordered!(v, u32),
        Data::U8(v) => out.extend(v),
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
