//! The tuning cache (`tune.json` under the user's cache directory: winners by shape bucket and
//! the rates a tune measured, per adapter) and the measured defaults tilekit ships per device
//! profile; what `Selection::Auto` reads before the planner's rules.

use crate::kernels::matmul::{Precision, Shape, Variant};
use crate::plan::Rates;
use crate::{Error, Gpu, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The cache file's format version; a file with another is ignored (and rewritten by `tune`).
pub const VERSION: u32 = 1;

/// A shape bucket: the precision and each dimension rounded up to a power of two (M = 1 stays 1,
/// so matrix-vector products get their own buckets). The cache file writes it as
/// `f32 m4096 k4096 n4096`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TuneKey {
    /// f32 or f16.
    pub precision: Precision,
    /// M rounded up to a power of two.
    pub m: u32,
    /// K rounded up to a power of two.
    pub k: u32,
    /// N rounded up to a power of two.
    pub n: u32,
}

impl TuneKey {
    /// The bucket of `shape`.
    pub fn of(shape: Shape, precision: Precision) -> TuneKey {
        TuneKey {
            precision,
            m: shape.m.next_power_of_two(),
            k: shape.k.next_power_of_two(),
            n: shape.n.next_power_of_two(),
        }
    }
}

impl std::fmt::Display for TuneKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} m{} k{} n{}",
            self.precision.name(),
            self.m,
            self.k,
            self.n
        )
    }
}

impl std::str::FromStr for TuneKey {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<TuneKey, String> {
        let parts: Vec<&str> = s.split_whitespace().collect();
        let dim = |p: &str, tag: char| -> std::result::Result<u32, String> {
            p.strip_prefix(tag)
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| format!("bucket {s:?}: expected {tag}<size>, found {p:?}"))
        };
        match parts[..] {
            [p, m, k, n] => Ok(TuneKey {
                precision: Precision::parse(p).map_err(|e| e.to_string())?,
                m: dim(m, 'm')?,
                k: dim(k, 'k')?,
                n: dim(n, 'n')?,
            }),
            _ => Err(format!("bucket {s:?}: expected \"f32 mM kK nN\"")),
        }
    }
}

impl Serialize for TuneKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TuneKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<TuneKey, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// One bucket's winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Winner {
    /// The variant.
    pub variant: Variant,
    /// The planner candidate's label (`None` for a variant with no tile).
    pub tile: Option<String>,
    /// Its median time at the tuned shape, seconds.
    pub seconds: f64,
    /// The planner's own choice at that shape, seconds (what tuning gained).
    pub planner_seconds: f64,
    /// The shape it was measured at.
    pub shape: String,
}

impl Winner {
    /// Whether `shape` is within an eighth of the shape the winner was measured at in every
    /// dimension: where the shipped measured defaults apply. A bucket spans a factor of two in
    /// each dimension, and the fastest block at one end of it need not be at the other: a winner
    /// measured at one square ran a smaller square in the bucket behind the wave model's choice
    /// (BENCHMARKS.md, "Measured rates for the wave model").
    pub fn measured_near(&self, shape: Shape) -> bool {
        let at: Vec<u64> = self
            .shape
            .split('×')
            .filter_map(|d| d.trim().parse().ok())
            .collect();
        let near = |a: u64, b: u32| 8 * a.abs_diff(b as u64) <= a;
        at.len() == 3 && near(at[0], shape.m) && near(at[1], shape.k) && near(at[2], shape.n)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    /// Adapter key → bucket → winner.
    adapters: BTreeMap<String, BTreeMap<TuneKey, Winner>>,
    /// Adapter key → the rates its tune measured (absent from files written before them).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    rates: BTreeMap<String, VariantRates>,
}

/// Where the cache lives: `$TILEKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/tilekit`, else
/// `~/.cache/tilekit`; the file is `tune.json`.
pub fn cache_path() -> Option<PathBuf> {
    cache_path_in(|name| std::env::var_os(name))
}

/// [`cache_path`] with the environment `var` gives. An empty or relative directory counts as
/// unset, as the XDG base directory specification says of `XDG_CACHE_HOME`: the cache is never
/// written into whatever folder the command ran in.
fn cache_path_in(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let dir = absolute("TILEKIT_CACHE_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME").map(|d| d.join("tilekit")))
        .or_else(|| absolute("HOME").map(|h| h.join(".cache/tilekit")))?;
    Some(dir.join("tune.json"))
}

/// The adapter as the cache knows it: name, backend, driver and its version.
pub fn adapter_key(gpu: &Gpu) -> String {
    let s = &gpu.summary;
    format!(
        "{} | {} | {} {}",
        s.name, s.backend, s.driver, s.driver_info
    )
}

fn read(path: &std::path::Path) -> std::result::Result<CacheFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file: CacheFile = serde_json::from_str(&text).map_err(|e| format!("not a cache: {e}"))?;
    if file.version != VERSION {
        return Err(format!(
            "format version {} (this tilekit reads {VERSION}; `tilekit tune` rewrites it)",
            file.version
        ));
    }
    Ok(file)
}

/// One adapter's winners by bucket.
pub type Table = BTreeMap<TuneKey, Winner>;

/// Measured rates by variant name (`pipelined`), then candidate label: each tile's speed per FMA
/// relative to the variant's fastest, where the GPU was full ([`rates`]).
pub type VariantRates = BTreeMap<String, Rates>;

/// What `Selection::Auto` consults before the planner's rules: this adapter's own winners, then
/// the measured defaults of its device profile; and the rates the planner scores with.
pub(crate) struct Tuning {
    pub(crate) cache: Table,
    pub(crate) measured: Table,
    /// This adapter's own rates for a variant where its tune measured them, else its profile's.
    pub(crate) rates: VariantRates,
}

/// Whether `TILEKIT_MEASURED=0` leaves the measured defaults and their rates out (to see the
/// planner's own choice).
fn measured_off() -> bool {
    std::env::var("TILEKIT_MEASURED").is_ok_and(|v| v.trim() == "0")
}

pub(crate) fn load(gpu: &Gpu) -> Tuning {
    let (cache, own) = load_cache(gpu);
    let shipped = if measured_off() {
        None
    } else {
        measured_defaults(gpu.profile.name)
    };
    let (measured, mut rates) = shipped.map_or_else(Default::default, |m| (m.winners, m.rates));
    rates.extend(own);
    Tuning {
        cache,
        measured,
        rates,
    }
}

/// Winners `tilekit tune` measured on one GPU, shipped with tilekit for every adapter of its
/// device profile that has no tuning cache of its own (`chosen_by: measured`). The planner's
/// score is a model (reuse and residency, or the wave model's estimate); on a real GPU the
/// fastest tile for a bucket can differ (BENCHMARKS.md, "Measured rates for the
/// wave model"), and a user who never runs `tilekit tune` should still get it.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Measured {
    /// The device profile it applies to (`hopper`).
    pub profile: String,
    /// The adapter it was measured on (name, backend, driver).
    pub measured_on: String,
    /// When, and with which command.
    pub date: String,
    /// The winners by bucket.
    pub winners: Table,
    /// The rates of the same tune ([`rates`]).
    #[serde(default)]
    pub rates: VariantRates,
}

/// The measured tables shipped, by device profile (`src/kernels/matmul/measured/`; made by
/// `scripts/device/measured.py` from a `tilekit tune` cache).
const MEASURED: &[(&str, &str)] = &[("hopper", include_str!("../measured/hopper.json"))];

/// The measured defaults for device profile `profile`, if tilekit ships some.
pub fn measured_defaults(profile: &str) -> Option<Measured> {
    let (_, text) = MEASURED.iter().find(|(p, _)| *p == profile)?;
    match serde_json::from_str::<Measured>(text) {
        Ok(m) => Some(m),
        Err(e) => {
            log::error!("tilekit's measured defaults for {profile} do not parse: {e}");
            None
        }
    }
}

/// The rates shipped for `variant` on GPUs of device profile `profile` (none where tilekit ships
/// none, or with `TILEKIT_MEASURED=0`): what the planner scores with under a preset
/// (`tilekit plan --limits PRESET --profile PROFILE`), where no adapter is opened.
pub fn shipped_rates(profile: &str, variant: Variant) -> Rates {
    if measured_off() {
        return Rates::new();
    }
    measured_defaults(profile)
        .and_then(|mut m| m.rates.remove(variant.name()))
        .unwrap_or_default()
}

/// This adapter's winners and rates from the cache file, or none (with a `log` warning when a
/// file exists but cannot be used). Read once per [`Gpu`], on its first matmul plan.
fn load_cache(gpu: &Gpu) -> (Table, VariantRates) {
    if cfg!(target_arch = "wasm32") {
        return Default::default();
    }
    let Some(path) = cache_path() else {
        return Default::default();
    };
    if !path.exists() {
        return Default::default();
    }
    match read(&path) {
        Ok(mut f) => {
            let key = adapter_key(gpu);
            (
                f.adapters.remove(&key).unwrap_or_default(),
                f.rates.remove(&key).unwrap_or_default(),
            )
        }
        Err(e) => {
            // Once per process: every Gpu reads the cache, and the file is the same.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| log::warn!("ignoring the tuning cache {}: {e}", path.display()));
            Default::default()
        }
    }
}

/// The cache file's new text: `winners` and the `measured` rates added for this adapter (other
/// adapters' entries are kept; a corrupt or stale file is replaced). The tuner's
/// [`super::merged`] calls it; the caller writes it to [`cache_path`].
pub(crate) fn merge(
    gpu: &Gpu,
    winners: impl IntoIterator<Item = (TuneKey, Winner)>,
    measured: VariantRates,
) -> Result<String> {
    let path = cache_path().ok_or_else(|| Error::Cache {
        path: "(none)".into(),
        message: "no cache directory: set TILEKIT_CACHE_DIR, XDG_CACHE_HOME or HOME".into(),
    })?;
    let mut file = read(&path).unwrap_or(CacheFile {
        version: VERSION,
        ..Default::default()
    });
    let entry = file.adapters.entry(adapter_key(gpu)).or_default();
    entry.extend(winners);
    // A tune with no shape large enough for rates (`--quick`) keeps those measured before.
    if !measured.is_empty() {
        file.rates
            .entry(adapter_key(gpu))
            .or_default()
            .extend(measured);
    }
    serde_json::to_string_pretty(&file).map_err(|e| Error::Cache {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_empty_or_relative_cache_dir_counts_as_unset() {
        use std::ffi::OsString;
        let p = |pairs: &[(&str, &str)]| {
            super::cache_path_in(|name| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            })
            .map(|p| p.display().to_string())
        };
        assert_eq!(
            p(&[("TILEKIT_CACHE_DIR", "/c"), ("HOME", "/h")]).unwrap(),
            "/c/tune.json"
        );
        assert_eq!(
            p(&[("TILEKIT_CACHE_DIR", ""), ("HOME", "/h")]).unwrap(),
            "/h/.cache/tilekit/tune.json"
        );
        assert_eq!(
            p(&[("TILEKIT_CACHE_DIR", "here"), ("XDG_CACHE_HOME", "/x")]).unwrap(),
            "/x/tilekit/tune.json"
        );
        assert_eq!(p(&[("TILEKIT_CACHE_DIR", ""), ("HOME", "")]), None);
    }
}
