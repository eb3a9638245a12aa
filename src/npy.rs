//! NumPy `.npy` files in and out (through the `npyz` crate): C order, f32 / f64 (converted, with
//! a warning) / i32 / u32 / u8. Anything else is an [`Error::Npy`] that names the file.

use crate::{Error, Result};
use std::path::Path;

/// The data of a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// float32 (or float64 converted).
    F32(Vec<f32>),
    /// int32.
    I32(Vec<i32>),
    /// uint32.
    U32(Vec<u32>),
    /// uint8.
    U8(Vec<u8>),
}

/// An array read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// The values in C order.
    pub data: Data,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Things the user should know (a float64 file converted to float32).
    pub warnings: Vec<String>,
}

impl Data {
    /// NumPy's name for the element type.
    pub fn dtype(&self) -> &'static str {
        match self {
            Data::F32(_) => "float32",
            Data::I32(_) => "int32",
            Data::U32(_) => "uint32",
            Data::U8(_) => "uint8",
        }
    }
}

fn npy_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Npy {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Read a `.npy` file.
pub fn read(path: &Path) -> Result<Array> {
    let file = std::fs::File::open(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| npy_err(path, format!("not a valid .npy file: {e}")))?;
    if npy.order() != npyz::Order::C {
        return Err(npy_err(
            path,
            "Fortran-order arrays are not supported; save it with np.ascontiguousarray",
        ));
    }
    let shape = npy.shape().to_vec();
    let descr = npy.dtype().descr();
    let body = |e: std::io::Error| npy_err(path, format!("data unreadable (truncated?): {e}"));
    let mut warnings = vec![];
    // The type string is byte order, kind, size: "<f4", "|u1", ...
    let kind = descr
        .trim_matches(['\'', '"'])
        .trim_start_matches(['<', '>', '|', '=']);
    let data = match kind {
        "f4" => Data::F32(npy.into_vec::<f32>().map_err(body)?),
        "f8" => {
            warnings.push(format!("{}: float64 converted to float32", path.display()));
            Data::F32(npy.into_vec::<f64>().map_err(body)?.into_iter().map(|v| v as f32).collect())
        }
        "i4" => Data::I32(npy.into_vec::<i32>().map_err(body)?),
        "u4" => Data::U32(npy.into_vec::<u32>().map_err(body)?),
        "u1" => Data::U8(npy.into_vec::<u8>().map_err(body)?),
        _ => {
            return Err(npy_err(
                path,
                format!("unsupported dtype {descr}; tilekit reads float32, float64, int32, uint32 and uint8"),
            ))
        }
    };
    Ok(Array {
        data,
        shape,
        warnings,
    })
}

/// Write a C-order `.npy` file.
pub fn write<T: npyz::AutoSerialize + Copy>(path: &Path, data: &[T], shape: &[u64]) -> Result<()> {
    use npyz::WriterBuilder;
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .map_err(io)?;
    w.extend(data.iter().copied()).map_err(io)?;
    w.finish().map_err(io)
}
