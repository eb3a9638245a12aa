//! NumPy `.npy` files in and out (through the `npyz` crate), keeping what the user gave: the
//! dtype, its byte order and the shape. C order; float16, float32, float64, int32, uint32 and
//! uint8, little- or big-endian. Anything else is an [`Error::Npy`] that names the file. Writes
//! are atomic: a temporary file in the same directory, then a rename, so a failed run never
//! leaves half a file or destroys an input that is also the output.

use crate::{Error, Result};
use half::f16;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

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

    /// No elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    pub fn from_words(&self, w: Vec<u32>) -> Data {
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

/// An element type a `.npy` file can hold.
pub trait Element: Copy {
    /// The values as [`Data`].
    fn data(values: Vec<Self>) -> Data;
}

macro_rules! element {
    ($($t:ty => $v:ident),+) => {$(
        impl Element for $t {
            fn data(values: Vec<Self>) -> Data {
                Data::$v(values)
            }
        }
    )+};
}
element!(f16 => F16, f32 => F32, f64 => F64, i32 => I32, u32 => U32, u8 => U8);

/// Write `values` with `shape` (little-endian) to `path`, atomically.
pub fn save<T: Element>(path: &Path, values: &[T], shape: &[u64]) -> Result<()> {
    write(path, &Array::new(T::data(values.to_vec()), shape.to_vec()))
}

fn npy_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Npy {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Read a `.npy` file from disk.
pub fn read(path: &Path) -> Result<Array> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(npy_err(path, "is a directory, not a .npy file"));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    read_from(std::io::BufReader::new(file), Some(meta.len()), path)
}

/// Read a `.npy` file from any reader (`len`: its size in bytes when known, to refuse a header
/// that claims more data than there is before allocating for it). `path` names it in errors.
pub fn read_from(mut reader: impl Read + Seek, len: Option<u64>, path: &Path) -> Result<Array> {
    check_preamble(&mut reader, len, path)?;
    let header = npyz::NpyHeader::from_reader(&mut reader)
        .map_err(|e| npy_err(path, format!("not a valid .npy file: {e}")))?;
    if header.order() != npyz::Order::C {
        return Err(npy_err(
            path,
            "Fortran-order arrays are not supported; save it with np.ascontiguousarray",
        ));
    }
    let shape = header.shape().to_vec();
    let descr = header.dtype().descr();
    let plain = match header.dtype() {
        npyz::DType::Plain(t) => t,
        _ => {
            return Err(npy_err(
                path,
                format!("unsupported dtype {descr}; tilekit reads {DTYPES}"),
            ))
        }
    };
    let size = plain.size_field();
    let key = format!("{}{}", plain.type_char().to_str(), size);
    let item = match key.as_str() {
        "f2" => 2u64,
        "f4" | "i4" | "u4" => 4,
        "f8" => 8,
        "u1" => 1,
        _ => {
            return Err(npy_err(
                path,
                format!("unsupported dtype {descr}; tilekit reads {DTYPES}"),
            ))
        }
    };
    let count = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| npy_err(path, format!("shape {shape:?} overflows")))?;
    let needed = count
        .checked_mul(item)
        .ok_or_else(|| npy_err(path, format!("shape {shape:?} overflows")))?;
    let at = reader
        .stream_position()
        .map_err(|e| npy_err(path, e.to_string()))?;
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
    let big_endian = plain.endianness() == npyz::Endianness::Big && item > 1;
    let file = npyz::NpyFile::with_header(header, reader);
    let body = |e: std::io::Error| npy_err(path, format!("data unreadable (truncated?): {e}"));
    let data = match key.as_str() {
        "f2" => Data::F16(file.into_vec::<f16>().map_err(body)?),
        "f4" => Data::F32(file.into_vec::<f32>().map_err(body)?),
        "f8" => Data::F64(file.into_vec::<f64>().map_err(body)?),
        "i4" => Data::I32(file.into_vec::<i32>().map_err(body)?),
        "u4" => Data::U32(file.into_vec::<u32>().map_err(body)?),
        _ => Data::U8(file.into_vec::<u8>().map_err(body)?),
    };
    if data.len() as u64 != count {
        return Err(npy_err(
            path,
            format!(
                "data unreadable (truncated?): {} of {count} values",
                data.len()
            ),
        ));
    }
    Ok(Array {
        data,
        shape,
        big_endian,
    })
}

fn encode(array: &Array, out: impl std::io::Write) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let dtype = npyz::DType::Plain(
        array
            .descr()
            .parse::<npyz::TypeStr>()
            .map_err(|e| std::io::Error::other(e.to_string()))?,
    );
    macro_rules! put {
        ($v:expr) => {{
            let mut w = npyz::WriteOptions::new()
                .dtype(dtype)
                .shape(&array.shape)
                .writer(out)
                .begin_nd()?;
            w.extend($v.iter().copied())?;
            w.finish()
        }};
    }
    each!(&array.data, v => put!(v))
}

/// The bytes of a `.npy` file holding `array`.
pub fn to_bytes(array: &Array) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode(array, std::io::Cursor::new(&mut out)).map_err(|e| Error::Io {
        path: "<memory>".into(),
        source: e,
    })?;
    Ok(out)
}

/// Write `array` to `path` atomically: a temporary file beside it, flushed to disk, then
/// renamed over `path`. On any failure the temporary file is removed and `path` is untouched.
pub fn write(path: &Path, array: &Array) -> Result<()> {
    let io = |p: &Path, e: std::io::Error| Error::Io {
        path: p.display().to_string(),
        source: e,
    };
    let bytes = to_bytes(array)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io(path, std::io::Error::other("not a file name")))?;
    if path.is_dir() {
        return Err(io(path, std::io::Error::other("is a directory")));
    }
    let tmp = dir.join(format!(
        ".{}.tilekit-{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path, e)
    })
}

/// The largest header tilekit reads (NumPy writes a few hundred bytes).
const MAX_HEADER: u64 = 1 << 20;

/// Check the magic string, version and header length before the header is read: a length field
/// of 4 GB in a 100-byte file (found by `fuzz/fuzz_targets/npy.rs`) made the reader allocate it.
fn check_preamble(reader: &mut (impl Read + Seek), len: Option<u64>, path: &Path) -> Result<()> {
    let start = reader
        .stream_position()
        .map_err(|e| npy_err(path, format!("cannot read: {e}")))?;
    let mut pre = [0u8; 12];
    let mut got = 0;
    while got < pre.len() {
        match reader.read(&mut pre[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(npy_err(path, format!("cannot read: {e}"))),
        }
    }
    if got < 10 || &pre[..6] != b"\x93NUMPY" {
        return Err(npy_err(
            path,
            "not a valid .npy file: no NumPy magic string",
        ));
    }
    let (header_len, offset) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as u64, 10),
        2 | 3 if got == 12 => (
            u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]) as u64,
            12,
        ),
        v => {
            return Err(npy_err(
                path,
                format!("not a valid .npy file: format version {v}.{}", pre[7]),
            ))
        }
    };
    let limit = len.map_or(MAX_HEADER, |l| l.saturating_sub(offset).min(MAX_HEADER));
    if header_len > limit {
        return Err(npy_err(
            path,
            format!(
                "not a valid .npy file: a header of {header_len} bytes (the file holds at most {limit} after the preamble)"
            ),
        ));
    }
    reader
        .seek(std::io::SeekFrom::Start(start))
        .map_err(|e| npy_err(path, format!("cannot read: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_length_past_the_file_is_an_error_not_an_allocation() {
        // fuzz/fuzz_targets/npy.rs found it: version 3.0, header length 0xff7b0076 in 153 bytes.
        let mut bytes = b"\x93NUMPY\x03\x00\x76\x00\x7b\xff".to_vec();
        bytes.extend_from_slice(b"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }");
        let len = bytes.len() as u64;
        let e = read_from(std::io::Cursor::new(bytes), Some(len), Path::new("x.npy")).unwrap_err();
        assert!(e.to_string().contains("header of 4286251126 bytes"), "{e}");
        let e = read_from(
            std::io::Cursor::new(b"\x93NUMPX".to_vec()),
            Some(6),
            Path::new("y.npy"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("magic"), "{e}");
    }

    #[test]
    fn every_dtype_and_byte_order_round_trips_bit_for_bit() {
        let arrays = [
            Array::new(Data::F16(vec![f16::from_f32(1.5), f16::NAN]), vec![2]),
            Array::new(
                Data::F32(vec![0.0, -0.0, f32::from_bits(0x7fc0_1234)]),
                vec![3, 1],
            ),
            Array::new(Data::F64(vec![1e300, -2.5]), vec![2]),
            Array::new(Data::I32(vec![i32::MIN, 7]), vec![1, 2]),
            Array::new(Data::U32(vec![u32::MAX]), vec![]),
            Array::new(Data::U8(vec![]), vec![0, 4]),
        ];
        for mut a in arrays {
            for big in [false, true] {
                a.big_endian = big && a.data.item_size() > 1;
                let bytes = to_bytes(&a).unwrap();
                let back = read_from(
                    std::io::Cursor::new(&bytes),
                    Some(bytes.len() as u64),
                    Path::new("m"),
                )
                .unwrap();
                assert_eq!(back.shape, a.shape);
                assert_eq!(back.descr(), a.descr());
                assert_eq!(back.data.bytes(), a.data.bytes(), "{}", a.descr());
            }
        }
    }

    #[test]
    fn a_header_claiming_more_than_the_file_is_refused_before_allocating() {
        let a = Array::new(Data::F32(vec![1.0; 4]), vec![4]);
        let mut bytes = to_bytes(&a).unwrap();
        let pos = bytes.windows(8).position(|w| w == b"(4, ), }").unwrap();
        let huge = "(1099511627776,), }";
        // Keep the header length: overwrite the shape, the dict's end and padding after it.
        bytes.splice(pos..pos + huge.len(), huge.bytes());
        let e = read_from(
            std::io::Cursor::new(&bytes),
            Some(bytes.len() as u64),
            Path::new("h"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
