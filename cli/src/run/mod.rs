//! A `tilekit run` subcommand as its family writes it (`run/F.rs`): the [`RunCommand`] it
//! registers in [`commands`], and what every one shares, written once: reading an input or
//! making random data, the `--json` / `--verify` / `-o` arguments, verifying what is written
//! (the file's bytes) against the CPU reference, writing it so that nothing is lost
//! ([`super::output`]), text or JSON with a schema version, and exit codes (2 for bad input, 1
//! for a wrong result). A family's run parses its own arguments, runs its kernel and returns an
//! [`Outcome`]: its figures, the array to write, and how to check it.

mod blur;
mod carve;
mod histogram;
mod matmul;
mod reduce;
mod reverse;
mod transpose;
mod wide;

use super::npy::{self, Array, Data};
use super::output;
use tilekit::{Error, Gpu, GpuOptions};

pub use crate::error::CliError;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The version of every `--json` output's shape (`docs/json.md`). It changes when a field is
/// removed or changes meaning; new fields do not change it.
pub const SCHEMA: u32 = 1;

/// Arguments every `run` subcommand has.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Common {
    /// Print one JSON object on stdout (with "schema"); messages and warnings go to stderr.
    #[arg(long)]
    pub json: bool,
    /// Check the result against the CPU reference even when the problem is large (small ones
    /// always are).
    #[arg(long)]
    pub verify: bool,
}

/// The `-o` argument of the subcommands that produce an array.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutputArg {
    /// Write the result to this .npy file, with the input's dtype, byte order and shape: a
    /// regular file is replaced only by a complete, verified file; a symlink's target is
    /// written; a device or FIFO is written into; a wrong result is not written.
    #[arg(short, long, value_name = "FILE.npy")]
    pub output: Option<PathBuf>,
}

/// A `tilekit run` subcommand of a family.
pub struct RunCommand {
    /// Subcommand name (`matmul`).
    pub name: &'static str,
    /// Its help line.
    pub about: &'static str,
    /// Adds the family's own arguments (usually `<Args as clap::Args>::augment_args`).
    pub args: fn(clap::Command) -> clap::Command,
    /// Whether it produces an array (then it takes `-o`).
    pub writes: bool,
    /// Runs it.
    pub run: fn(&Ctx, &clap::ArgMatches) -> Result<Outcome, Fail>,
}

/// Why a command failed: bad input (exit 2) or a wrong result (exit 1).
#[derive(Debug)]
pub enum Fail {
    /// Bad input, an unsupported request, a GPU error: exit code 2.
    Input(CliError),
    /// The result did not match the CPU reference: exit code 1.
    Wrong(String),
    /// A failure whose `--json` object is already printed, with the error in it: `main` prints
    /// no second one.
    Reported(Box<Fail>),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        match e {
            Error::Verification { .. } => Fail::Wrong(e.to_string()),
            other => Fail::Input(CliError::Library(other)),
        }
    }
}

impl From<CliError> for Fail {
    fn from(e: CliError) -> Fail {
        match e {
            CliError::Library(e) => Fail::from(e),
            other => Fail::Input(other),
        }
    }
}

impl From<clap::Error> for Fail {
    /// clap's message without its `error: ` prefix, tips and usage block (the `--json` error
    /// object holds one line; `--help` has the rest).
    fn from(e: clap::Error) -> Fail {
        let text = e.render().to_string();
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("invalid arguments");
        let first = first.strip_prefix("error: ").unwrap_or(first);
        Fail::Input(CliError::Usage(format!("{first} (see --help)")))
    }
}

impl Fail {
    /// The process exit code.
    pub fn code(&self) -> u8 {
        match self {
            Fail::Input(_) => 2,
            Fail::Wrong(_) => 1,
            Fail::Reported(f) => f.code(),
        }
    }

    /// The one-line message.
    pub fn message(&self) -> String {
        match self {
            Fail::Input(e) => e.to_string(),
            Fail::Wrong(m) => m.clone(),
            Fail::Reported(f) => f.message(),
        }
    }
}

/// A size on the command line: a whole number of elements. A negative one is named as such
/// (clap would otherwise take `-1` for an option and suggest `-- -1`, which fails next).
pub fn size_arg(s: &str) -> Result<usize, String> {
    let t = s.trim();
    if t.starts_with('-') && t[1..].chars().all(|c| c.is_ascii_digit()) && t.len() > 1 {
        return Err(format!(
            "{t} is negative: a size is a whole number of elements"
        ));
    }
    t.parse::<usize>()
        .map_err(|_| format!("{t:?} is not a size: a whole number of elements, e.g. 1024"))
}

/// Whether the argument `id` was given on the command line, not taken from its default.
pub fn given(m: &clap::ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
}

/// A float in JSON: a number where it is finite; NumPy's `"nan"`, `"inf"` and `"-inf"` where it
/// is not (JSON has no such numbers, and `null` is kept for "no result").
pub fn json_float(x: f64) -> Value {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

/// A usage error (exit 2).
pub fn usage(msg: impl Into<String>) -> Fail {
    Fail::Input(CliError::Usage(msg.into()))
}

/// The context of one command: how to open the GPU (once, on first use), and the shared input
/// steps.
pub struct Ctx {
    /// How the GPU is opened.
    pub options: GpuOptions,
    gpu: OnceLock<Gpu>,
}

impl Ctx {
    /// A context that opens its GPU with `options` when first asked.
    pub fn new(options: GpuOptions) -> Ctx {
        Ctx {
            options,
            gpu: OnceLock::new(),
        }
    }

    /// The GPU, opened on first use (outputs poisoned: every run here is verified).
    pub fn gpu(&self) -> Result<&Gpu, Error> {
        if let Some(g) = self.gpu.get() {
            return Ok(g);
        }
        let mut opts = self.options.clone();
        opts.poison_outputs = true;
        let g = Gpu::with_options(opts).wait()?;
        Ok(self.gpu.get_or_init(|| g))
    }

    /// `f` called twice, the second call's answer kept: the first builds the pipelines (and a
    /// driver with a cold shader cache may finish compiling them at their first dispatch), so the
    /// time a `run` prints is a warm one.
    pub fn warm<R>(&self, mut f: impl FnMut() -> Result<R, Error>) -> Result<R, Error> {
        f()?;
        f()
    }

    /// Read a `.npy` input, its declared size checked against the adapter's limits before any
    /// data is read (float64 data is halved into float32 on its way to the GPU: twice the
    /// binding's bytes).
    pub fn input(&self, path: &Path) -> Result<Array, CliError> {
        let limit = self.gpu()?.limits().max_storage_buffer_binding_size;
        npy::read(path, Some(limit.saturating_mul(2)))
    }

    /// A warning on stderr (never on stdout, which `--json` keeps clean).
    pub fn warn(&self, msg: impl AsRef<str>) {
        eprintln!("warning: {}", msg.as_ref());
    }

    /// The values of a floating-point input as f32, warning when float64 is rounded; integer
    /// inputs are refused (exit 2) naming `kernel` and what it takes.
    pub fn floats(&self, a: &Array, path: &Path, kernel: &str) -> Result<Vec<f32>, CliError> {
        if let Data::F64(x) = &a.data {
            check_f32_range(x, path)?;
            self.warn(format!(
                "{}: float64 is computed in float32 and written back as float64",
                path.display()
            ));
        }
        a.data.to_f32().ok_or_else(|| CliError::Npy {
            path: path.display().to_string(),
            message: format!(
                "{kernel} takes float16, float32 or float64, found {}",
                a.dtype()
            ),
        })
    }

    /// The element count of `dims` (checked arithmetic) and the bytes of one buffer of them at
    /// `item_bytes` each, refused against the adapter's buffer limits before anything is
    /// allocated or generated: `run reduce 3000000000` is a typed error in milliseconds, not an
    /// abort after making 12 GB of data.
    pub fn sized(&self, what: &str, dims: &[usize], item_bytes: usize) -> Result<usize, Error> {
        let text = dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("×");
        let n = dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::SizeOverflow {
                what: what.to_string(),
                detail: format!("{text} elements overflow"),
            })?;
        if n == 0 {
            return Ok(0);
        }
        n.checked_mul(item_bytes.max(1))
            .ok_or_else(|| Error::SizeOverflow {
                what: what.to_string(),
                detail: format!("{text} elements of {item_bytes} bytes overflow"),
            })?;
        let gpu = self.gpu()?;
        match item_bytes {
            1 => gpu.limits().check_buffer::<u8>(what, n),
            2 => gpu.limits().check_buffer::<u16>(what, n),
            8 => gpu.limits().check_buffer::<u64>(what, n),
            _ => gpu.limits().check_buffer::<u32>(what, n),
        }?;
        Ok(n)
    }
}

/// float64 values that float32 cannot hold (finite but beyond ±3.4e38) are refused with the
/// first one's index: computed in float32 they would become infinities, and a result of
/// infinities can still match a reference that overflows the same way.
pub(crate) fn check_f32_range(x: &[f64], path: &Path) -> Result<(), Error> {
    if let Some(i) = x
        .iter()
        .position(|v| v.is_finite() && (*v as f32).is_infinite())
    {
        return Err(Error::OutOfRange {
            what: format!("{} element {i}", path.display()),
            value: x[i].to_string(),
            limit: "float32's range ±3.4028235e38 (tilekit computes float64 input in float32)"
                .into(),
        });
    }
    Ok(())
}

/// Uniform f32 in [-1, 1) from a fixed seed (random inputs of the `run` subcommands).
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    tilekit::random::uniform_f32(n, seed)
}

/// How to check the array a run produced (the file, when one is written).
#[derive(Clone, Debug)]
pub enum Check {
    /// Bit for bit equal to this array (kernels that move data; integer results).
    Exact(Array),
    /// Every value within `bound` of `exact`, with this dtype and shape.
    Close {
        /// The f64 reference.
        exact: Vec<f64>,
        /// The error bound of each element.
        bound: Vec<f64>,
        /// The expected array's dtype and byte order, as `Array::descr`.
        descr: String,
        /// The expected shape.
        shape: Vec<u64>,
    },
    /// The family checked it (a result with no array).
    Done(bool, String),
    /// Too large for the CPU reference without `--verify`.
    Skipped,
}

/// What a `run` subcommand did.
pub struct Outcome {
    /// The family or kernel (`matmul`).
    pub kernel: &'static str,
    /// Human-readable lines (figures in units that fit them).
    pub text: String,
    /// Its JSON fields (SI base units: seconds, bytes per second, FLOP per second).
    pub fields: Map<String, Value>,
    /// The array to write with `-o`.
    pub output: Option<Array>,
    /// How to verify it.
    pub check: Check,
}

fn check(a: &Array, c: &Check) -> Result<Option<bool>, String> {
    match c {
        Check::Skipped => Ok(None),
        Check::Done(ok, detail) => {
            if *ok {
                Ok(Some(true))
            } else {
                Err(detail.clone())
            }
        }
        Check::Exact(e) => {
            if a.descr() != e.descr() || a.shape != e.shape {
                return Err(format!(
                    "wrote {} {:?}, expected {} {:?}",
                    a.descr(),
                    a.shape,
                    e.descr(),
                    e.shape
                ));
            }
            let (x, y) = (a.data.bytes(), e.data.bytes());
            match x.iter().zip(&y).position(|(p, q)| p != q) {
                Some(byte) => {
                    let i = byte / a.data.item_size().max(1);
                    Err(format!(
                        "element {i} differs bit for bit from the CPU: {} vs {}",
                        a.data.to_f64()[i],
                        e.data.to_f64()[i]
                    ))
                }
                None if x.len() != y.len() => Err("length differs".into()),
                None => Ok(Some(true)),
            }
        }
        Check::Close {
            exact,
            bound,
            descr,
            shape,
        } => {
            if &a.descr() != descr || &a.shape != shape {
                return Err(format!(
                    "wrote {} {:?}, expected {descr} {shape:?}",
                    a.descr(),
                    a.shape
                ));
            }
            let got = a.data.to_f64();
            if got.len() != exact.len() {
                return Err(format!("{} values, expected {}", got.len(), exact.len()));
            }
            // The largest finite value of the result's type, and where rounding reaches
            // infinity: f16's 65504 and 2^16, f32's largest and 2^128.
            let range = match a.data {
                Data::F16(_) => Some((65504.0, 65536.0)),
                Data::F32(_) => Some((f32::MAX as f64, 2f64.powi(128))),
                _ => None,
            };
            for (i, ((g, &e), b)) in got.iter().zip(exact).zip(bound).enumerate() {
                // A result past its type's range is an infinity, as NumPy gives it (a float32
                // sum of large values overflows there too): the rounding takes a value at the
                // threshold or beyond to infinity (and one between the largest finite and the
                // threshold either way; WGSL leaves which to the implementation), so an element
                // whose reference lies that far out, bound included, must be an infinity, and
                // one whose bound reaches past the largest finite may be.
                let e = if range.is_some_and(|(largest, threshold)| {
                    e.abs() - b >= threshold || (e.abs() + b > largest && g.is_infinite())
                }) {
                    f64::INFINITY.copysign(e)
                } else {
                    e
                };
                let err = (g - e).abs();
                let same_special = (g.is_nan() && e.is_nan()) || (g.is_infinite() && *g == e);
                if !same_special && (err.is_nan() || err > *b) {
                    return Err(format!(
                        "element {i}: got {g}, expected {e} (error {err:e}, bound {b:e})"
                    ));
                }
            }
            Ok(Some(true))
        }
    }
}

/// Print a JSON object on stdout with the schema version first.
pub fn print_json(mut fields: Map<String, Value>) {
    let mut obj = Map::new();
    obj.insert("schema".into(), json!(SCHEMA));
    obj.append(&mut fields);
    println!(
        "{}",
        serde_json::to_string_pretty(&Value::Object(obj)).expect("JSON of plain data")
    );
}

/// The shared last steps of every `run` subcommand: encode the array, verify what the file will
/// hold (the encoded bytes read back as a `.npy` file), write it only if it is right (see
/// [`output::Output`]), print text or JSON.
pub fn finish(common: &Common, output: Option<&output::Output>, out: Outcome) -> Result<(), Fail> {
    let encoded = match (output, &out.output) {
        (Some(_), Some(a)) => {
            let bytes = npy::to_bytes(a)?;
            let back = npy::read_from(
                std::io::Cursor::new(&bytes),
                Some(bytes.len() as u64),
                Path::new("<the output>"),
            )?;
            Some((bytes, back))
        }
        (Some(_), None) => {
            return Err(usage(format!("run {} has no array to write", out.kernel)));
        }
        _ => None,
    };
    // Verify what a user gets: the file's contents when there is one, else the array.
    let target = encoded.as_ref().map(|e| &e.1).or(out.output.as_ref());
    let verified = match (target, &out.check) {
        (_, Check::Done(..)) | (_, Check::Skipped) | (None, _) => {
            check(&Array::new(Data::U8(vec![]), vec![0]), &out.check)
        }
        (Some(a), c) => check(a, c),
    };
    let (verified, wrong) = match verified {
        Ok(v) => (v, None),
        Err(detail) => (Some(false), Some(detail)),
    };
    // A wrong result is not written: the file the user had stays as it was.
    let path = match (output, &encoded, &wrong) {
        (Some(o), Some((bytes, _)), None) => {
            o.write(bytes)?;
            Some(o.path().display().to_string())
        }
        _ => None,
    };
    if common.json {
        let mut f = Map::new();
        f.insert("kernel".into(), json!(out.kernel));
        let mut fields = out.fields;
        f.append(&mut fields);
        f.insert("verified".into(), json!(verified));
        f.insert("output".into(), json!(path));
        if let Some(a) = target {
            f.insert("dtype".into(), json!(a.descr()));
            f.insert("shape".into(), json!(a.shape));
        }
        // A wrong result's error goes in this object: `--json` prints one object, always.
        let failed = wrong
            .as_ref()
            .map(|d| wrong_result(out.kernel, d, output.is_some()));
        if let Some(fail) = &failed {
            f.insert(
                "error".into(),
                json!({"exit_code": fail.code(), "message": fail.message()}),
            );
        }
        print_json(f);
        return match failed {
            Some(fail) => Err(Fail::Reported(Box::new(fail))),
            None => Ok(()),
        };
    } else {
        let v = match verified {
            Some(true) => "yes, against the CPU reference".to_string(),
            Some(false) => "NO".to_string(),
            None => "skipped (large; use --verify)".to_string(),
        };
        print!("{}", out.text);
        if !out.text.ends_with('\n') {
            println!();
        }
        println!("verified: {v}");
        if let (Some(p), Some(a)) = (&path, target) {
            println!("wrote {p} ({} {:?})", a.dtype(), a.shape);
        }
    }
    match wrong {
        Some(d) => Err(wrong_result(out.kernel, &d, output.is_some())),
        None => Ok(()),
    }
}

/// The failure of a result that did not match the reference.
fn wrong_result(kernel: &str, detail: &str, had_output: bool) -> Fail {
    Fail::Wrong(format!(
        "{kernel} result is wrong: {detail}{}",
        if had_output {
            " (nothing was written)"
        } else {
            ""
        }
    ))
}

/// Every family's `tilekit run` subcommand, in the lessons' order: one line registers a family.
pub fn commands() -> Vec<RunCommand> {
    vec![
        matmul::COMMAND,
        reverse::COMMAND,
        reduce::COMMAND,
        transpose::COMMAND,
        histogram::COMMAND,
        wide::COMMAND,
        blur::COMMAND,
        carve::COMMAND,
    ]
}

#[cfg(test)]
mod tests {
    use super::{finish, Check, Common, Fail, Outcome};

    /// With `--json`, a wrong result's error is in the one object `finish` prints, and the
    /// failure says so, so that `main` prints no second object.
    #[test]
    fn a_wrong_result_under_json_is_reported_in_its_one_object() {
        let out = Outcome {
            kernel: "reduce",
            text: String::new(),
            fields: Default::default(),
            output: None,
            check: Check::Done(false, "element 0: got 1, expected 2".into()),
        };
        let common = Common {
            json: true,
            verify: false,
        };
        match finish(&common, None, out) {
            Err(Fail::Reported(f)) => {
                assert_eq!(f.code(), 1);
                assert!(f.message().contains("expected 2"), "{}", f.message());
            }
            other => panic!("{other:?}"),
        }
    }
}
