//! `tilekit trace FILE.wgsl`: the course's tracer on any compute kernel, its buffers from `.npy`
//! files or made up, and the SVG pictures the exercise check also writes.

use super::args::TraceArgs;
use super::output::Output;
use super::{print_json, Fail};
use crate::run::CliError;
use std::path::{Path, PathBuf};
use tilekit_course::trace::{self, Binding, Report, Setup};

/// The most a shader given to the tracer may have (a lesson's kernel is a few KiB).
const SHADER_CAP: u64 = 1 << 20;
/// The most words one buffer may bring: what the tracer takes in all.
const NPY_WORDS: u64 = trace::MAX_WORDS;
/// Marks the SVG files tilekit writes: only such a file is ever replaced.
const SVG_MARK: &str = "<!-- written by tilekit trace -->";

fn usage(m: impl Into<String>) -> Fail {
    Fail::Input(CliError::Usage(m.into()))
}

fn pair<'a>(s: &'a str, what: &str) -> Result<(&'a str, &'a str), Fail> {
    s.split_once('=')
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| usage(format!("{what} `{s}`: expected NAME=VALUE")))
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, Fail> {
    s.trim()
        .parse()
        .map_err(|_| usage(format!("{what}: `{s}` is not a number it takes")))
}

/// `--workgroups X[,Y[,Z]]`.
fn workgroups(s: &str) -> Result<[u32; 3], Fail> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(usage(format!(
            "--workgroups `{s}`: expected X, X,Y or X,Y,Z"
        )));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = number(p, "--workgroups")?;
        if out[i] == 0 {
            return Err(usage("--workgroups: each count is at least 1"));
        }
    }
    Ok(out)
}

/// `BINDING` as `B` or `G:B`.
fn binding(s: &str) -> Result<(u32, u32), Fail> {
    match s.split_once(':') {
        Some((g, b)) => Ok((number(g, "--buffer group")?, number(b, "--buffer binding")?)),
        None => Ok((0, number(s, "--buffer binding")?)),
    }
}

/// `--buffer`'s DATA: a .npy file (4-byte dtypes), `zeros:N` or `range:N`.
fn data(spec: &str) -> Result<Vec<u32>, Fail> {
    let count = |n: &str| -> Result<usize, Fail> {
        let n: u64 = number(n, "--buffer length")?;
        if n > NPY_WORDS {
            return Err(usage(format!(
                "--buffer: {n} elements, over the {NPY_WORDS} a trace takes"
            )));
        }
        Ok(n as usize)
    };
    if let Some(n) = spec.strip_prefix("zeros:") {
        return Ok(vec![0; count(n)?]);
    }
    if let Some(n) = spec.strip_prefix("range:") {
        return Ok((0..count(n)? as u32).collect());
    }
    let path = Path::new(spec);
    let a = crate::npy::read(path, Some(NPY_WORDS * 4))?;
    use crate::npy::Data;
    Ok(match a.data {
        Data::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        Data::I32(v) => v.iter().map(|x| *x as u32).collect(),
        Data::U32(v) => v,
        other => {
            return Err(Fail::Input(CliError::Npy {
                path: spec.into(),
                message: format!(
                    "dtype {}: the tracer takes float32, int32 or uint32",
                    other.dtype()
                ),
            }))
        }
    })
}

/// The setup `a` describes for `source`.
fn setup(a: &TraceArgs, source: &str, path: &str) -> Result<Setup, Fail> {
    let (entry, resources) =
        trace::resources(source, path, a.entry.as_deref()).map_err(|e| usage(e.to_string()))?;
    let mut given: Vec<Binding> = Vec::new();
    for b in &a.buffers {
        let (at, spec) = pair(b, "--buffer")?;
        let (group, binding) = binding(at)?;
        if !resources
            .iter()
            .any(|r| r.group == group && r.binding == binding)
        {
            return Err(usage(format!(
                "--buffer {at}: {entry} uses no @group({group}) @binding({binding}) (it uses {})",
                resources
                    .iter()
                    .map(|r| format!("{}:{} {}", r.group, r.binding, r.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        given.push(Binding {
            group,
            binding,
            words: data(spec)?,
        });
    }
    let mut fields = Vec::new();
    for s in &a.set {
        let (name, v) = pair(s, "--set")?;
        if !resources
            .iter()
            .any(|r| r.fields.iter().any(|(f, _)| f == name))
        {
            return Err(usage(format!(
                "--set {name}: no uniform of {entry} has a field `{name}`"
            )));
        }
        fields.push((name.to_string(), number::<u32>(v, "--set")?));
    }
    let mut bindings = Vec::new();
    for r in &resources {
        match given
            .iter()
            .find(|g| g.group == r.group && g.binding == r.binding)
        {
            Some(g) => bindings.push(g.clone()),
            None => bindings.push(trace::generated(r, a.len, &fields)),
        }
    }
    let mut overrides = Vec::new();
    for o in &a.overrides {
        let (name, v) = pair(o, "--override")?;
        let v = match v {
            "true" => 1.0,
            "false" => 0.0,
            v => number::<f64>(v, "--override")?,
        };
        overrides.push((name.to_string(), v));
    }
    Ok(Setup {
        entry,
        overrides,
        workgroups: workgroups(&a.workgroups)?,
        bindings,
    })
}

/// Writes the report's pictures into `dir`: one SVG per workgroup variable, and the banks.
pub fn write_svgs(report: &Report, dir: &Path, path: &str) -> Result<Vec<PathBuf>, Fail> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Fail::Input(CliError::Io {
            path: dir.display().to_string(),
            source: e,
        })
    })?;
    let invocations = report.workgroup_size.iter().product();
    let mut files: Vec<(PathBuf, String)> = report
        .pictures
        .iter()
        .map(|p| {
            (
                dir.join(format!("{}-{}.svg", report.entry, p.variable)),
                trace::epochs_svg(p, invocations),
            )
        })
        .collect();
    if !report.banks.is_empty() {
        files.push((
            dir.join(format!("{}-banks.svg", report.entry)),
            trace::banks_svg(&report.banks, path),
        ));
    }
    // Every target checked before any is written: a file tilekit did not write is kept.
    let mut outputs = Vec::new();
    for (file, _) in &files {
        if let Ok(old) = std::fs::read_to_string(file) {
            if !old.contains(SVG_MARK) {
                return Err(usage(format!(
                    "{} exists and tilekit did not write it: not replaced (name another --svg folder)",
                    file.display()
                )));
            }
        }
        outputs.push(Output::prepare(file)?);
    }
    for ((file, svg), out) in files.iter().zip(outputs) {
        let svg = svg.replacen('\n', &format!("\n{SVG_MARK}\n"), 1);
        out.write(svg.as_bytes())?;
        let _ = file;
    }
    Ok(files.into_iter().map(|(f, _)| f).collect())
}

/// What `--run` found: the adapter, and the GPU's buffers against the trace's (`None`: not run,
/// because the trace found a mistake and the GPU's answer would be one schedule's).
struct Ran {
    adapter: String,
    agreement: Option<trace::Agreement>,
}

impl Ran {
    fn render(&self) -> String {
        match &self.agreement {
            None => format!(
                "not run on {}: the trace found mistakes, and what a racy kernel leaves depends on the GPU's schedule",
                self.adapter
            ),
            Some(a) => match &a.difference {
                None => format!(
                    "ran on {}: the same {} words as the trace (f32 within a relative {:e}; the largest difference {:.1e})",
                    self.adapter,
                    a.compared,
                    trace::F32_TOLERANCE,
                    a.largest_f32_difference
                ),
                Some(d) => format!(
                    "ran on {}: {}[{}] is {}, where the trace left {}",
                    self.adapter, d.variable, d.index, d.ran, d.traced
                ),
            },
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "adapter": self.adapter,
            "ran": self.agreement.is_some(),
            "same": self.agreement.as_ref().map(|a| a.difference.is_none()),
            "agreement": self.agreement,
        })
    }
}

/// `--run`: the traced kernel on the adapter the global options pick, with the setup's buffers
/// (runtime checks on).
fn run_on_gpu(
    options: tilekit::GpuOptions,
    source: &str,
    path: &str,
    setup: &Setup,
    report: &Report,
) -> Result<Ran, Fail> {
    let gpu = tilekit::Gpu::with_options(options).wait()?;
    let adapter = format!("{} ({})", gpu.summary.name, gpu.summary.backend);
    if !report.clean() {
        return Ok(Ran {
            adapter,
            agreement: None,
        });
    }
    let (_, resources) = trace::resources(source, path, Some(&setup.entry))
        .map_err(|e| usage(format!("{path}: {e}")))?;
    let shader = tilekit::Shader {
        checked: true,
        ..tilekit::Shader::owned(format!("tilekit trace {path}"), source.to_string())
    };
    let ran = pollster::block_on(trace::run_on_gpu(&gpu, &shader, &resources, setup))?;
    Ok(Ran {
        adapter,
        agreement: Some(trace::compare(&resources, &report.buffers, &ran)),
    })
}

/// `tilekit trace`: exit 0 when the trace found nothing (and, with `--run`, the GPU left the
/// same), 1 when it found a mistake (or the GPU differed), 2 on bad input (or a kernel the
/// tracer does not run).
pub fn trace(options: tilekit::GpuOptions, a: TraceArgs) -> Result<(), Fail> {
    let source = super::read::read_capped(&a.file, SHADER_CAP, "a shader")?;
    let path = a.file.display().to_string();
    let setup = setup(&a, &source, &path)?;
    let report = match trace::trace(&source, &path, &setup) {
        Ok(r) => r,
        Err(e @ trace::TraceError::LoopStopped { .. }) | Err(e @ trace::TraceError::TooLong(_)) => {
            return Err(Fail::Wrong(e.to_string()))
        }
        Err(e) => return Err(usage(format!("{path}: {e}"))),
    };
    let svgs = match &a.svg {
        Some(dir) => write_svgs(&report, dir, &path)?,
        None => Vec::new(),
    };
    let ran = match a.run {
        true => Some(run_on_gpu(options, &source, &path, &setup, &report)?),
        false => None,
    };
    let differs = ran
        .as_ref()
        .and_then(|r| r.agreement.as_ref())
        .and_then(|a| a.difference.as_ref())
        .is_some();
    if a.json {
        let mut m = serde_json::Map::new();
        m.insert("file".into(), path.clone().into());
        m.insert("clean".into(), report.clean().into());
        m.insert(
            "report".into(),
            serde_json::to_value(&report).expect("a report serialises"),
        );
        m.insert(
            "svg".into(),
            svgs.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .into(),
        );
        if let Some(r) = &ran {
            m.insert("run".into(), r.json());
        }
        print_json(m);
    } else {
        print!("{}", report.render(&path));
        for s in &svgs {
            println!("wrote {}", s.display());
        }
        if let Some(r) = &ran {
            println!("{}", r.render());
        }
    }
    if report.clean() && differs {
        let m = format!("{path}: the GPU left other words than the trace");
        if a.json {
            Err(Fail::Reported(Box::new(Fail::Wrong(m))))
        } else {
            Err(Fail::Wrong(m))
        }
    } else if report.clean() {
        Ok(())
    } else if a.json {
        Err(Fail::Reported(Box::new(Fail::Wrong(format!(
            "{path}: the trace found {} mistakes",
            report.findings.len()
        )))))
    } else {
        Err(Fail::Wrong(format!(
            "{path}: the trace found {} mistakes",
            report.findings.len()
        )))
    }
}
