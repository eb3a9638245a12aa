//! The `tilekit` command: info, plan, run, bench, tour.

use clap::{Args, Parser, Subcommand};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use tilekit::kernels::{blur, histogram, matmul, reduce, transpose, wide};
use tilekit::npy::{self, Data};
use tilekit::{Error, Gpu, GpuOptions, Kernel, Limits, Planner};

#[derive(Parser)]
#[command(
    name = "tilekit",
    version,
    about = "CUDA's shared-memory lessons on any GPU: tiled kernels in WGSL, tile sizes planned from the adapter's limits"
)]
struct Cli {
    /// Part of the adapter's name (also TILEKIT_ADAPTER); WGPU_BACKEND picks the backend.
    #[arg(long, global = true)]
    adapter: Option<String>,
    /// Device profile for the residency analysis (device-d, hopper, ampere, turing, rdna, apple, intel-xe, cpu, default).
    #[arg(long, global = true)]
    profile: Option<String>,
    /// Keep wgpu's shader runtime checks (slower; also TILEKIT_CHECKED=1).
    #[arg(long, global = true)]
    checked: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The adapters and their compute limits (as cudaGetDeviceProperties).
    Info {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The planner's table for a kernel: candidates, residency, the choice and why.
    Plan {
        /// tiled-matmul, blocked-matmul, reduce, reverse, transpose, blur.
        kernel: String,
        /// Sizes: M K N for matmul, N for reduce/reverse, M N for transpose, W H R for blur.
        sizes: Vec<u64>,
        /// webgpu-default (no GPU needed) or adapter.
        #[arg(long, default_value = "adapter")]
        limits: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run one kernel on random or .npy data, verify it, print time and the plan.
    Run {
        #[command(subcommand)]
        kernel: RunKernel,
    },
    /// Every kernel against the ceilings measured in the same run.
    Bench {
        /// Small sizes (under a minute on lavapipe).
        #[arg(long)]
        quick: bool,
        /// Timed repeats per kernel.
        #[arg(long)]
        repeats: Option<usize>,
        /// Only kernels whose name contains this.
        #[arg(long)]
        filter: Option<String>,
        /// Write every repeat as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write a roofline chart (SVG).
        #[arg(long)]
        chart: Option<PathBuf>,
        /// Compare with an earlier --json file.
        #[arg(long)]
        compare: Option<PathBuf>,
    },
    /// Run every lesson in order, verified, with a summary.
    Tour {
        /// Small sizes (the default on a CPU adapter such as lavapipe).
        #[arg(long)]
        quick: bool,
        /// GPU-sized inputs even on a CPU adapter.
        #[arg(long, conflicts_with = "quick")]
        full: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct Common {
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Check the result against the CPU reference (always on for .npy-free runs that are small).
    #[arg(long)]
    verify: bool,
    /// Write the result to this .npy file.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Subcommand)]
enum RunKernel {
    /// C = A·B.
    Matmul {
        /// M K N (random data) unless --a and --b are given.
        sizes: Vec<usize>,
        #[arg(long)]
        a: Option<PathBuf>,
        #[arg(long)]
        b: Option<PathBuf>,
        /// naive, tiled, blocked (default: fastest that fits).
        #[arg(long)]
        variant: Option<String>,
        /// Force a planner candidate, e.g. TILE=8.
        #[arg(long)]
        tile: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Reduce to one value.
    Reduce {
        n: Option<usize>,
        #[arg(long)]
        input: Option<PathBuf>,
        #[arg(long, default_value = "sum")]
        op: String,
        /// f32, i32, u32 (random data).
        #[arg(long = "type", default_value = "f32")]
        ty: String,
        #[arg(long)]
        variant: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Transpose an M×N matrix.
    Transpose {
        sizes: Vec<usize>,
        #[arg(long)]
        input: Option<PathBuf>,
        #[arg(long, default_value = "padded")]
        variant: String,
        #[command(flatten)]
        common: Common,
    },
    /// Reverse an array (block reverse of any n; static needs 64, dynamic fits one workgroup).
    Reverse {
        n: Option<usize>,
        #[arg(long)]
        input: Option<PathBuf>,
        #[arg(long, default_value = "block")]
        variant: String,
        #[command(flatten)]
        common: Common,
    },
    /// 256-bin histogram of u8 (or u32, by low byte) values.
    Histogram {
        n: Option<usize>,
        #[arg(long)]
        input: Option<PathBuf>,
        #[arg(long, default_value = "workgroup")]
        variant: String,
        #[command(flatten)]
        common: Common,
    },
    /// Copy with scalar or vec4 loads.
    Copy {
        n: usize,
        #[arg(long, default_value = "vec4")]
        width: String,
        #[command(flatten)]
        common: Common,
    },
    /// Reverse N records through one workgroup pool carved into i32, f32 and byte parts.
    Carve {
        n: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Box blur of a W×H image.
    Blur {
        sizes: Vec<usize>,
        #[arg(long)]
        input: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        radius: u32,
        #[arg(long, default_value = "tiled")]
        variant: String,
        #[command(flatten)]
        common: Common,
    },
}

/// Failure kinds: bad input exits 2, a wrong result 1.
enum Fail {
    Input(Error),
    Wrong(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        match e {
            Error::Verification { .. } => Fail::Wrong(e.to_string()),
            other => Fail::Input(other),
        }
    }
}

type Out = Result<(), Fail>;

fn usage(msg: impl Into<String>) -> Fail {
    Fail::Input(Error::Usage(msg.into()))
}

fn open(cli: &Cli) -> Result<Gpu, Error> {
    Gpu::with_options(GpuOptions {
        adapter: cli.adapter.clone(),
        runtime_checks: cli.checked,
        profile: cli.profile.clone(),
    })
}

fn random(n: usize, seed: u64) -> Vec<f32> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| r.random_range(-1.0f32..1.0)).collect()
}

fn f32_of(arr: &npy::Array, path: &std::path::Path) -> Result<Vec<f32>, Error> {
    for w in &arr.warnings {
        eprintln!("warning: {w}");
    }
    match &arr.data {
        Data::F32(v) => Ok(v.clone()),
        other => Err(Error::Npy {
            path: path.display().to_string(),
            message: format!("expected float32 or float64, found {}", other.dtype()),
        }),
    }
}

fn matrix(path: &std::path::Path) -> Result<(Vec<f32>, usize, usize), Error> {
    let arr = npy::read(path)?;
    if arr.shape.len() != 2 {
        return Err(Error::Npy {
            path: path.display().to_string(),
            message: format!("expected a 2-D matrix, found shape {:?}", arr.shape),
        });
    }
    let (r, c) = (arr.shape[0] as usize, arr.shape[1] as usize);
    Ok((f32_of(&arr, path)?, r, c))
}

fn emit(json: bool, value: serde_json::Value, text: String) {
    if json {
        println!("{}", serde_json::to_string_pretty(&value).expect("json"));
    } else {
        println!("{text}");
    }
}

fn save<T: npyz::AutoSerialize + Copy>(
    path: &Option<PathBuf>,
    data: &[T],
    shape: &[u64],
) -> Result<Option<String>, Error> {
    match path {
        Some(p) => {
            npy::write(p, data, shape)?;
            Ok(Some(p.display().to_string()))
        }
        None => Ok(None),
    }
}

fn run_kernel(cli: &Cli, k: &RunKernel) -> Out {
    let gpu = open(cli)?;
    match k {
        RunKernel::Matmul {
            sizes,
            a,
            b,
            variant,
            tile,
            common,
        } => {
            let (av, bv, m, kk, n) = match (a, b) {
                (Some(pa), Some(pb)) => {
                    let (av, m, k1) = matrix(pa)?;
                    let (bv, k2, n) = matrix(pb)?;
                    if k1 != k2 {
                        return Err(Error::DimensionMismatch {
                            what: format!(
                                "inner dimensions of {} and {}",
                                pa.display(),
                                pb.display()
                            ),
                            expected: format!("B with {k1} rows (A is {m}×{k1})"),
                            got: format!("B is {k2}×{n}"),
                        }
                        .into());
                    }
                    (av, bv, m, k1, n)
                }
                (None, None) => {
                    let [m, k, n] = sizes[..] else {
                        return Err(usage("run matmul needs M K N, or --a A.npy --b B.npy"));
                    };
                    matmul::Shape::new(m, k, n)?;
                    gpu.check_buffer::<f32>("matrix A", m * k)?;
                    gpu.check_buffer::<f32>("matrix B", k * n)?;
                    (random(m * k, 1), random(k * n, 2), m, k, n)
                }
                _ => return Err(usage("give both --a and --b")),
            };
            let v = match variant {
                Some(s) => matmul::Variant::parse(s)?,
                None => gpu.default_matmul_variant(matmul::Shape::new(m, kk, n)?),
            };
            let (c, run) = gpu.matmul_with(&av, &bv, (m, kk, n), v, tile.as_deref())?;
            let verified = if common.verify || (m * kk * n) <= 1 << 27 {
                let (e, mag) = matmul::reference(&av, &bv, m, kk, n);
                matmul::verify(&c, &e, &mag, kk)?;
                Some(true)
            } else {
                None
            };
            let out = save(&common.output, &c, &[m as u64, n as u64])?;
            let plan = run
                .plan
                .as_ref()
                .map(|p| p.table())
                .unwrap_or_else(|| "naive: fixed 16×16 workgroups, no tile\n".into());
            emit(
                common.json,
                json!({"kernel": "matmul", "run": run, "gflops": run.gflops(), "verified": verified, "output": out}),
                format!(
                    "matmul {m}×{kk}×{n} {} ({}): {:.3} ms ({}), {:.2} GFLOP/s\nglobal loads {} floats, {} bytes moved, compute-to-global-memory-access ratio {:.2}\nverified: {}{}\n{plan}",
                    v.name(), run.tile, run.timing.seconds * 1e3, run.timing.clock, run.gflops(), run.global_loads, run.global_bytes, run.ratio,
                    verified.map_or("skipped (use --verify)".into(), |_| "yes, against the f64 CPU reference".to_string()),
                    out.map_or(String::new(), |p| format!("\nwrote {p}"))
                ),
            );
        }
        RunKernel::Reduce {
            n,
            input,
            op,
            ty,
            variant,
            common,
        } => {
            let op = reduce::Op::parse(op)?;
            let v = match variant {
                Some(s) => reduce::Variant::parse(s)?,
                None => gpu.default_reduce_variant(),
            };
            let data = match (input, n) {
                (Some(p), _) => {
                    let arr = npy::read(p)?;
                    arr.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
                    arr.data
                }
                (None, Some(n)) => match ty.as_str() {
                    "f32" => Data::F32(random(*n, 3)),
                    "i32" => Data::I32(random(*n, 3).iter().map(|x| (x * 1000.0) as i32).collect()),
                    "u32" => Data::U32(
                        random(*n, 3)
                            .iter()
                            .map(|x| (x.abs() * 1e6) as u32)
                            .collect(),
                    ),
                    other => return Err(usage(format!("--type {other}: choose f32, i32 or u32"))),
                },
                (None, None) => return Err(usage("run reduce needs N or --input X.npy")),
            };
            let (value, run, expected) = match &data {
                Data::F32(x) => {
                    let (s, r) = gpu.reduce_with(x, op, v)?;
                    let e = match op {
                        reduce::Op::Sum => x.iter().map(|&v| v as f64).sum::<f64>(),
                        reduce::Op::Min => x
                            .iter()
                            .cloned()
                            .fold(f64::INFINITY, |a, b| a.min(b as f64)),
                        reduce::Op::Max => x
                            .iter()
                            .cloned()
                            .fold(f64::NEG_INFINITY, |a, b| a.max(b as f64)),
                    };
                    (json!(s), r, json!(e))
                }
                Data::I32(x) => {
                    let (s, r) = gpu.reduce_with(x, op, v)?;
                    let e = match op {
                        reduce::Op::Sum => x.iter().fold(0i32, |a, b| a.wrapping_add(*b)),
                        reduce::Op::Min => *x.iter().min().expect("non-empty"),
                        reduce::Op::Max => *x.iter().max().expect("non-empty"),
                    };
                    if s != e {
                        return Err(Fail::Wrong(format!("reduce gave {s}, the CPU {e}")));
                    }
                    (json!(s), r, json!(e))
                }
                Data::U32(x) => {
                    let (s, r) = gpu.reduce_with(x, op, v)?;
                    let e = match op {
                        reduce::Op::Sum => x.iter().fold(0u32, |a, b| a.wrapping_add(*b)),
                        reduce::Op::Min => *x.iter().min().expect("non-empty"),
                        reduce::Op::Max => *x.iter().max().expect("non-empty"),
                    };
                    if s != e {
                        return Err(Fail::Wrong(format!("reduce gave {s}, the CPU {e}")));
                    }
                    (json!(s), r, json!(e))
                }
                Data::U8(_) => {
                    return Err(Error::Npy {
                        path: format!("{input:?}"),
                        message: "reduce takes float32, int32 or uint32".into(),
                    }
                    .into())
                }
            };
            emit(
                common.json,
                json!({"kernel": "reduce", "result": value, "cpu_reference": expected, "run": run, "gbps": run.gbps()}),
                format!(
                    "{} of {} {}: {value} (CPU reference {expected})\n{} : {:.3} ms ({}), {:.2} GB/s, {} launch(es), WG={}\n{}",
                    op.name(), run.n, data.dtype(), v.name(), run.timing.seconds * 1e3, run.timing.clock, run.gbps(), run.launches, run.workgroup, run.plan.table()
                ),
            );
        }
        RunKernel::Transpose {
            sizes,
            input,
            variant,
            common,
        } => {
            let (x, m, n) = match (input, &sizes[..]) {
                (Some(p), _) => matrix(p)?,
                (None, [m, n]) => (random(m * n, 4), *m, *n),
                _ => return Err(usage("run transpose needs M N or --input X.npy")),
            };
            let v = transpose::Variant::parse(variant)?;
            let (out, run) = gpu.transpose(&x, m, n, v, None)?;
            let ok =
                (0..m).all(|i| (0..n).all(|j| out[j * m + i].to_bits() == x[i * n + j].to_bits()));
            if !ok {
                return Err(Fail::Wrong("transpose differs from the CPU".into()));
            }
            let path = save(&common.output, &out, &[n as u64, m as u64])?;
            emit(
                common.json,
                json!({"kernel": "transpose", "run": run, "gbps": run.gbps(), "verified": true, "output": path}),
                format!(
                    "transpose {m}×{n} {}: {:.3} ms ({}), {:.2} GB/s, verified: yes{}",
                    run.tile,
                    run.timing.seconds * 1e3,
                    run.timing.clock,
                    run.gbps(),
                    path.map_or(String::new(), |p| format!("\nwrote {p}"))
                ),
            );
        }
        RunKernel::Reverse {
            n,
            input,
            variant,
            common,
        } => {
            let x: Vec<u32> = match (input, n) {
                (Some(p), _) => match npy::read(p)?.data {
                    Data::F32(v) => v.iter().map(|f| f.to_bits()).collect(),
                    Data::I32(v) => v.iter().map(|&i| i as u32).collect(),
                    Data::U32(v) => v,
                    Data::U8(v) => v.iter().map(|&b| b as u32).collect(),
                },
                (None, Some(n)) => (0..*n as u32).collect(),
                (None, None) => return Err(usage("run reverse needs N or --input X.npy")),
            };
            let (out, run) = match variant.as_str() {
                "static" => gpu.reverse_static(&x)?,
                "dynamic" => gpu.reverse_dynamic(&x)?,
                "block" => gpu.reverse(&x)?,
                other => {
                    return Err(usage(format!(
                        "--variant {other}: choose static, dynamic or block"
                    )))
                }
            };
            if !out.iter().eq(x.iter().rev()) {
                return Err(Fail::Wrong("reverse differs from the CPU".into()));
            }
            let path = save(&common.output, &out, &[out.len() as u64])?;
            emit(
                common.json,
                json!({"kernel": "reverse", "run": run, "gbps": run.gbps(), "verified": true, "output": path}),
                format!(
                    "reverse {} ({variant}, {}): {:.3} ms ({}), {:.2} GB/s, verified: yes",
                    x.len(),
                    run.tile,
                    run.timing.seconds * 1e3,
                    run.timing.clock,
                    run.gbps()
                ),
            );
        }
        RunKernel::Histogram {
            n,
            input,
            variant,
            common,
        } => {
            let v = histogram::Variant::parse(variant)?;
            let (h, run, expected) = match (input, n) {
                (Some(p), _) => match npy::read(p)?.data {
                    Data::U8(b) => {
                        let mut e = [0u32; 256];
                        b.iter().for_each(|&x| e[x as usize] += 1);
                        let (h, r) = gpu.histogram_u8(&b, v)?;
                        (h, r, e)
                    }
                    Data::U32(w) => {
                        let mut e = [0u32; 256];
                        w.iter().for_each(|&x| e[(x & 0xff) as usize] += 1);
                        let (h, r) = gpu.histogram_u32(&w, v)?;
                        (h, r, e)
                    }
                    other => {
                        return Err(Error::Npy {
                            path: p.display().to_string(),
                            message: format!(
                                "histogram takes uint8 or uint32, found {}",
                                other.dtype()
                            ),
                        }
                        .into())
                    }
                },
                (None, Some(n)) => {
                    let b: Vec<u8> = random(*n, 8)
                        .iter()
                        .map(|x| (x.abs() * 255.0) as u8)
                        .collect();
                    let mut e = [0u32; 256];
                    b.iter().for_each(|&x| e[x as usize] += 1);
                    let (h, r) = gpu.histogram_u8(&b, v)?;
                    (h, r, e)
                }
                (None, None) => return Err(usage("run histogram needs N or --input X.npy")),
            };
            if h != expected {
                return Err(Fail::Wrong("histogram differs from the CPU count".into()));
            }
            let path = save(&common.output, &h, &[256])?;
            emit(
                common.json,
                json!({"kernel": "histogram", "bins": h.to_vec(), "run": run, "verified": true, "output": path}),
                format!(
                    "histogram of {} values ({}): {:.3} ms ({}), {:.2} GB/s, verified: yes",
                    run.elements,
                    v.name(),
                    run.timing.seconds * 1e3,
                    run.timing.clock,
                    run.gbps()
                ),
            );
        }
        RunKernel::Copy { n, width, common } => {
            let w = wide::Width::parse(width)?;
            let x: Vec<u32> = (0..*n as u32).collect();
            let (out, run) = gpu.copy_words(&x, w)?;
            if out != x {
                return Err(Fail::Wrong("copy differs".into()));
            }
            emit(
                common.json,
                json!({"kernel": "copy", "run": run, "gbps": run.gbps(), "verified": true}),
                format!(
                    "copy {n} words ({}): {:.3} ms ({}), {:.2} GB/s, verified: yes",
                    w.name(),
                    run.timing.seconds * 1e3,
                    run.timing.clock,
                    run.gbps()
                ),
            );
        }
        RunKernel::Carve { n, common } => {
            let ints: Vec<i32> = (0..*n as i32).map(|i| i.wrapping_mul(-7919)).collect();
            let floats = random(*n, 10);
            let chars: Vec<u8> = (0..4 * n).map(|i| (i * 37) as u8).collect();
            let (out, run) = gpu.carved_reverse(&ints, &floats, &chars)?;
            let ok = out.ints.iter().eq(ints.iter().rev())
                && out.floats.iter().eq(floats.iter().rev())
                && out.chars.iter().eq(chars.iter().rev());
            if !ok {
                return Err(Fail::Wrong("a carved part differs from the CPU".into()));
            }
            emit(
                common.json,
                json!({"kernel": "carve", "run": run, "verified": true}),
                format!(
                    "carved reverse of {n} records ({}): {:.3} ms ({}), verified: yes (i32, f32 and byte parts)",
                    run.tile,
                    run.timing.seconds * 1e3,
                    run.timing.clock
                ),
            );
        }
        RunKernel::Blur {
            sizes,
            input,
            radius,
            variant,
            common,
        } => {
            let (img, w, h) = match (input, &sizes[..]) {
                (Some(p), _) => {
                    let (v, rows, cols) = matrix(p)?;
                    (v, cols, rows)
                }
                (None, [w, h]) => (random(w * h, 9), *w, *h),
                _ => return Err(usage("run blur needs W H or --input image.npy")),
            };
            let v = blur::Variant::parse(variant)?;
            let (out, run) = gpu.blur(&img, w, h, *radius, v)?;
            let exact = blur::reference(&img, w, h, *radius);
            blur::verify(&out, &exact, *radius)?;
            let path = save(&common.output, &out, &[h as u64, w as u64])?;
            emit(common.json, json!({"kernel": "blur", "run": run, "verified": true, "output": path}),
                format!("blur {w}×{h} r={radius} {} ({}): {:.3} ms ({}), ratio {:.2} adds per global load, verified: yes", v.name(), run.run.tile, run.run.timing.seconds * 1e3, run.run.timing.clock, run.ratio));
        }
    }
    Ok(())
}

fn plan_cmd(cli: &Cli, kernel: &str, sizes: &[u64], limits: &str, json: bool) -> Out {
    let s = |i: usize, d: u64| sizes.get(i).copied().unwrap_or(d);
    let u = |v: u64| {
        u32::try_from(v).map_err(|_| Error::SizeOverflow {
            what: "size".into(),
            detail: v.to_string(),
        })
    };
    let k = match kernel {
        "tiled-matmul" | "matmul" => Kernel::TiledMatmul {
            m: u(s(0, 1024))?,
            k: u(s(1, 1024))?,
            n: u(s(2, 1024))?,
        },
        "blocked-matmul" => Kernel::BlockedMatmul {
            m: u(s(0, 1024))?,
            k: u(s(1, 1024))?,
            n: u(s(2, 1024))?,
        },
        "reduce" => Kernel::Reduce { n: s(0, 1 << 24) },
        "reverse" => Kernel::Reverse { n: s(0, 1 << 24) },
        "transpose" => Kernel::Transpose {
            m: u(s(0, 4096))?,
            n: u(s(1, 4096))?,
        },
        "blur" => Kernel::Blur {
            width: u(s(0, 1024))?,
            height: u(s(1, 1024))?,
            radius: u(s(2, 1))?,
        },
        other => {
            return Err(Error::Unknown {
                what: "kernel",
                got: other.into(),
                choices: [
                    "tiled-matmul",
                    "blocked-matmul",
                    "reduce",
                    "reverse",
                    "transpose",
                    "blur",
                ]
                .map(String::from)
                .to_vec(),
            }
            .into())
        }
    };
    let (lim, profile, adapter) = match limits {
        "webgpu-default" => {
            let p = tilekit::DeviceProfile::named(cli.profile.as_deref().unwrap_or("default"))?;
            (
                Limits::webgpu_default(),
                p,
                "WebGPU's baseline limits".to_string(),
            )
        }
        "adapter" => {
            let g = open(cli)?;
            (
                g.limits().clone(),
                g.profile.clone(),
                g.summary.name.clone(),
            )
        }
        other => {
            return Err(usage(format!(
                "--limits {other}: choose webgpu-default or adapter"
            )))
        }
    };
    let plan = Planner::new(lim.clone(), profile.clone()).plan(k)?;
    emit(
        json,
        json!({"limits_of": adapter, "limits": lim, "profile": profile, "plan": plan}),
        format!(
            "{} under {adapter}: {} B workgroup storage, {} invocations\nprofile {}: {}\n\n{}",
            k.name(),
            lim.workgroup_storage,
            lim.invocations,
            profile.name,
            profile.source,
            plan.table()
        ),
    );
    Ok(())
}

fn progress(len: usize) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(len as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("template"),
    );
    pb
}

fn main() -> ExitCode {
    // Mesa's software drivers complain on every start when this is unset; nothing else reads it.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result: Out = match &cli.command {
        Command::Info { json } => {
            let all = tilekit::gpu::adapter_summaries();
            if all.is_empty() {
                Err(Error::NoAdapter {
                    backends: "all".into(),
                }
                .into())
            } else {
                let text = all
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let l = &a.limits;
                        format!(
                            "[{i}] {} ({}, {})\n    driver: {} {}\n    vendor 0x{:04x} device 0x{:04x}\n    max_compute_workgroup_storage_size: {}\n    max_compute_invocations_per_workgroup: {}\n    max_compute_workgroup_size x/y/z: {}/{}/{}\n    max_compute_workgroups_per_dimension: {}\n    max_storage_buffer_binding_size: {}\n    max_buffer_size: {}\n    subgroup sizes: {}..{}\n    features: {}\n    profile: {}{}",
                            a.name, a.backend, a.device_type, a.driver, a.driver_info, a.vendor, a.device,
                            l.workgroup_storage, l.invocations, l.workgroup_size[0], l.workgroup_size[1], l.workgroup_size[2],
                            l.workgroups_per_dimension, l.storage_binding, l.buffer_size, l.subgroup_sizes[0], l.subgroup_sizes[1],
                            a.features.join(", "),
                            tilekit::DeviceProfile::detect(a.vendor, &a.name, a.device_type == "Cpu").name,
                            if a.cooperative_matrices.is_empty() { String::new() } else { format!("\n    cooperative matrices: {}", a.cooperative_matrices.join("; ")) }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                emit(*json, json!(all), text);
                Ok(())
            }
        }
        Command::Plan {
            kernel,
            sizes,
            limits,
            json,
        } => plan_cmd(&cli, kernel, sizes, limits, *json),
        Command::Run { kernel } => run_kernel(&cli, kernel),
        Command::Bench {
            quick,
            repeats,
            filter,
            json,
            chart,
            compare,
        } => (|| -> Out {
            let gpu = open(&cli)?;
            let mut cfg = tilekit::bench::Config::new(*quick);
            if let Some(r) = repeats {
                cfg.repeats = *r;
            }
            cfg.filter = filter.clone();
            let pb = progress(24);
            let report = tilekit::bench::run(&gpu, cfg, |name| {
                pb.set_message(name.to_string());
                pb.inc(1);
            })?;
            pb.finish_and_clear();
            println!("{}", report.table());
            let io = |p: &PathBuf, e: std::io::Error| Error::Io {
                path: p.display().to_string(),
                source: e,
            };
            if let Some(p) = json {
                std::fs::write(p, serde_json::to_string_pretty(&report).expect("json"))
                    .map_err(|e| io(p, e))?;
                println!("wrote {}", p.display());
            }
            if let Some(p) = chart {
                report.roofline_svg(p)?;
                println!("wrote {}", p.display());
            }
            if let Some(p) = compare {
                let text = std::fs::read_to_string(p).map_err(|e| io(p, e))?;
                let earlier: tilekit::bench::Report = serde_json::from_str(&text).map_err(|e| {
                    io(
                        p,
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!("not a tilekit bench JSON file: {e}"),
                        ),
                    )
                })?;
                println!("{}", report.compare(&earlier));
            }
            if report.entries.iter().any(|e| !e.verified) {
                return Err(Fail::Wrong("a kernel's result did not verify".into()));
            }
            Ok(())
        })(),
        Command::Tour { quick, full, json } => (|| -> Out {
            let gpu = open(&cli)?;
            let size = if *quick || (gpu.is_cpu() && !*full) {
                tilekit::tour::Size::Quick
            } else {
                tilekit::tour::Size::Full
            };
            if !*json {
                let sizes = match size {
                    tilekit::tour::Size::Quick => "small sizes (--full for GPU-sized inputs)",
                    tilekit::tour::Size::Full => "GPU-sized inputs",
                };
                println!(
                    "adapter: {} ({}); {sizes}\n",
                    gpu.summary.name, gpu.summary.backend
                );
            }
            let pb = progress(10);
            let results = tilekit::tour::run_all(&gpu, size, |name| {
                pb.set_message(name.to_string());
                pb.inc(1);
            });
            pb.finish_and_clear();
            let mut ok = true;
            let mut summary = String::from("\nsummary\n");
            let mut reports = vec![];
            for (name, r) in &results {
                match r {
                    Ok(rep) => {
                        ok &= rep.verified;
                        if !json {
                            println!("{}", rep.render());
                        }
                        summary += &format!(
                            "  {:<22} {:<9} {}\n",
                            name,
                            if rep.verified { "verified" } else { "WRONG" },
                            rep.key
                        );
                        reports.push(json!(rep));
                    }
                    Err(e) => {
                        ok = false;
                        summary += &format!("  {name:<22} FAILED    {e}\n");
                        reports.push(json!({"title": name, "error": e.to_string()}));
                    }
                }
            }
            if *json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({"adapter": gpu.summary.name, "lessons": reports, "ok": ok})
                    )
                    .expect("json")
                );
            } else {
                println!("{summary}");
            }
            if ok {
                Ok(())
            } else {
                Err(Fail::Wrong("a lesson failed".into()))
            }
        })(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Input(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Fail::Wrong(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}
