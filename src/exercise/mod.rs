//! Exercises: the learner writes the kernel (`exercises/NAME.wgsl`, a project shader with the
//! lesson's key lines turned into TODOs) and `tilekit exercise check NAME FILE.wgsl` runs it with
//! the library's own host code, bindings and planner constants ([`Gpu::with_substitute`]) at
//! shapes chosen to catch the classic mistakes, against the CPU reference. The answer fits one
//! screen: passed (with its speed beside tilekit's kernel), or the first wrong element, the shape
//! that exposed it and a hint naming the likely mistake; a file that does not compile gets naga's
//! message with the line. The solutions are the project's own shaders.

mod bound;
mod uniformity;
pub use bound::bound_loops;
pub use uniformity::{barrier_count, divergent_barriers, Divergent};

use crate::kernels::matmul::{self, Variant as Mm};
use crate::kernels::{histogram, reduce, transpose};
use crate::pipeline::Shader;
use crate::{Gpu, Result};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The first element a learner's kernel got wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Its index in the output.
    pub index: usize,
    /// What the CPU reference says.
    pub expected: String,
    /// What the kernel wrote.
    pub got: String,
}

/// A check's work in flight: awaited in a browser, blocked on natively.
type Pending<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T>> + 'a>>;

/// Runs one shape: the first wrong element, if any.
type RunCase = Box<dyn for<'a> Fn(&'a Gpu) -> Pending<'a, Option<Mismatch>>>;

/// An exercise's speed case once its inputs are on the device: each call runs the kernel alone
/// and gives its seconds.
type Runner<'a> = Box<dyn FnMut() -> Pending<'a, f64> + 'a>;

/// One shape a check runs.
pub struct Case {
    /// The shape, as the answer names it (`33×47×29`).
    pub shape: String,
    /// Whether it is a multiple of every tile (a failure there is not an edge mistake).
    pub aligned: bool,
    run: RunCase,
}

/// One exercise.
pub struct Exercise {
    /// Name on the command line.
    pub name: &'static str,
    /// What to do, and the lesson it comes from.
    pub task: &'static str,
    /// The starter file, in the repository.
    pub starter: &'static str,
    /// Its text (the learner's copy may differ).
    pub starter_source: &'static str,
    /// The solution: the project's own shader.
    pub solution: &'static str,
    /// Its text.
    pub solution_source: &'static str,
    /// The library module the learner's file replaces.
    pub module: &'static str,
    /// The hint when a shape that is a multiple of every tile fails and the file has fewer
    /// barriers than the solution: a race.
    pub hint: &'static str,
    /// The hint when a shape that is a multiple of every tile fails with every barrier in place:
    /// the index arithmetic, not a race.
    pub aligned_hint: &'static str,
    /// The hint when only a ragged shape fails.
    pub edge_hint: &'static str,
    cases: fn() -> Vec<Case>,
    /// The speed case: its inputs made and uploaded once, then a runner that times the kernel
    /// alone on them. Made afresh for every run, a 2^26-byte histogram's input kept the GPU idle
    /// between its kernels for tens of milliseconds, its clock fell, and the checker printed
    /// 423 µs for a kernel that runs in 123 warm (H100, BENCHMARKS.md, 2026-11-26).
    speed: for<'a> fn(&'a Gpu) -> Pending<'a, Runner<'a>>,
}

/// What `check` found.
#[derive(Debug)]
pub enum Verdict {
    /// Every shape matched the reference; the learner's time and tilekit's at the speed size.
    Passed {
        /// Shapes run.
        shapes: Vec<String>,
        /// The learner's kernel timed warm: median, fastest and slowest of the timed runs.
        yours: crate::Measured<()>,
        /// tilekit's own kernel, timed the same way: side by side with the learner's, and run as a
        /// learner's file is (wgpu's runtime checks on, every loop bounded).
        tilekits: crate::Measured<()>,
    },
    /// naga's message with the file and line, or a barrier in non-uniform control flow.
    DoesNotCompile(String),
    /// The first wrong element.
    Wrong {
        /// The shape that exposed it.
        shape: String,
        /// The element.
        mismatch: Mismatch,
        /// The likely mistake.
        hint: String,
    },
    /// A loop ran [`LOOP_CAP`] times in one invocation and was stopped (it would not have ended).
    LoopStopped {
        /// The shape it ran at.
        shape: String,
    },
    /// It compiled but could not run (a wrong entry point or binding, a GPU error).
    Failed(String),
}

impl Verdict {
    /// Whether the learner's kernel passed.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Passed { .. })
    }

    /// The one-screen answer.
    pub fn render(&self, ex: &Exercise) -> String {
        match self {
            Verdict::Passed {
                shapes,
                yours,
                tilekits,
            } => {
                let t = crate::family::units::time;
                format!(
                    "{}: passed at {}\nspeed, side by side over {} rounds: yours {} ({}–{}), tilekit's {} ({}–{}): yours is {}",
                    ex.name,
                    shapes.join(", "),
                    yours.times.len(),
                    t(yours.median),
                    t(yours.min),
                    t(yours.max),
                    t(tilekits.median),
                    t(tilekits.min),
                    t(tilekits.max),
                    yours.against(tilekits).than("tilekit's")
                )
            }
            Verdict::DoesNotCompile(m) => format!("{}: does not compile\n{m}", ex.name),
            Verdict::Wrong {
                shape,
                mismatch,
                hint,
            } => format!(
                "{}: wrong at {shape}: element {} is {}, expected {}\nhint: {hint}",
                ex.name, mismatch.index, mismatch.got, mismatch.expected
            ),
            Verdict::LoopStopped { shape } => format!(
                "{}: a loop did not end at {shape}: it ran {LOOP_CAP} times in one invocation and was stopped (every loop of a checked file is, so that a kernel that never ends cannot freeze your GPU)\nhint: check each loop's condition and step: a u32 is never below 0 (`s >= 0u` always holds), and a step that does not move toward the bound loops for ever",
                ex.name
            ),
            Verdict::Failed(m) => format!("{}: could not run: {m}", ex.name),
        }
    }
}

/// Every exercise.
pub fn exercises() -> Vec<Exercise> {
    vec![
        Exercise {
            name: "tiled-matmul",
            task: "put back the two barriers of the tiled matmul (PMPP fig 4.16)",
            starter: "exercises/tiled-matmul.wgsl",
            starter_source: include_str!("../../exercises/tiled-matmul.wgsl"),
            solution: "shaders/matmul.wgsl",
            solution_source: include_str!("../../shaders/matmul.wgsl"),
            module: "matmul",
            hint: "wrong where the shape is a multiple of the tile: a race. Without the first workgroupBarrier() an invocation reads tile elements that others have not stored yet; without the second, a fast invocation overwrites the tile while others still read it (fig 4.16)",
            aligned_hint: "wrong where the shape is a multiple of the tile, with both barriers in place, so not a race: check the inner loop runs over the whole tile, kk = 0, 1, ..., TILE - 1 (kk < TILE), reading mds[ty * TILE + kk] and nds[kk * TILE + tx] (fig 4.16)",
            edge_hint: "only a ragged shape fails: load 0.0 outside the matrix and store only inside it (fig 4.20)",
            cases: || {
                vec![
                    matmul_case(32, 32, 32, true),
                    matmul_case(48, 64, 80, true),
                    matmul_case(33, 47, 29, false),
                ]
            },
            speed: |g| Box::pin(matmul_speed(g, if g.is_cpu() { 96 } else { 1024 })),
        },
        Exercise {
            name: "matmul-bounds",
            task: "make the tiled matmul right for any M×K×N: boundary checks (PMPP fig 4.20)",
            starter: "exercises/matmul-bounds.wgsl",
            starter_source: include_str!("../../exercises/matmul-bounds.wgsl"),
            solution: "shaders/matmul.wgsl",
            solution_source: include_str!("../../shaders/matmul.wgsl"),
            module: "matmul",
            hint: "wrong where the shape is a multiple of the tile, and your file has fewer workgroupBarrier() calls than the lesson's kernel: a race. Both barriers of fig 4.16 stay: one after the tiles are stored, one after they are used",
            aligned_hint: "wrong even where the shape is a multiple of the tile: check the tile's index arithmetic (row·K + phase·TILE + tx for A, (phase·TILE + ty)·N + col for B)",
            edge_hint: "right on multiples of the tile, wrong on a ragged shape: an off-by-one or a missing bounds check at the edge. Load 0.0 where row ≥ M or the k index ≥ K (A), k ≥ K or col ≥ N (B), and store only where row < M and col < N: past the end of a row, C's next row begins (fig 4.20)",
            cases: || {
                vec![
                    matmul_case(32, 32, 32, true),
                    matmul_case(33, 47, 29, false),
                    matmul_case(1, 5, 3, false),
                    matmul_case(17, 16, 15, false),
                ]
            },
            speed: |g| Box::pin(matmul_speed(g, if g.is_cpu() { 96 } else { 1024 })),
        },
        Exercise {
            name: "dynamic-reverse",
            task: "finish the dynamic reverse: a workgroup array sized by an override constant (Harris, dynamicReverse)",
            starter: "exercises/dynamic-reverse.wgsl",
            starter_source: include_str!("../../exercises/dynamic-reverse.wgsl"),
            solution: "shaders/reverse.wgsl",
            solution_source: include_str!("../../shaders/reverse.wgsl"),
            module: "reverse",
            hint: "your file has fewer workgroupBarrier() calls than the lesson's kernel: without the barrier between the writes and the reads an invocation reads an element another has not written yet",
            aligned_hint: "element t of the result must be element N - 1 - t of the input: read the mirrored element of the workgroup array after the barrier",
            edge_hint: "only some sizes fail: the array is N long, so the mirror of t is N - 1 - t, not N - t",
            cases: || vec![reverse_case(64), reverse_case(1000), reverse_case(1)],
            speed: |g| {
                Box::pin(async move {
                    // 1,024 words: the upload of each run is small beside its launch.
                    let data: Rc<Vec<u32>> = Rc::new((0..1024).collect());
                    let run: Runner = Box::new(move || {
                        let data = data.clone();
                        Box::pin(async move {
                            Ok(g.reverse_dynamic_async(&data).await?.1.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            },
        },
        Exercise {
            name: "reduction-tree",
            task: "the workgroup-memory reduction tree (reduceSmem, Professional CUDA C Programming §5.3): one line is missing",
            starter: "exercises/reduction-tree.wgsl",
            starter_source: include_str!("../../exercises/reduction-tree.wgsl"),
            solution: "shaders/reduce.wgsl",
            solution_source: include_str!("../../shaders/reduce.wgsl"),
            module: "reduce<f32>",
            hint: "a sum comes out wrong on whole workgroups: a race in the tree. After each halving step every invocation must wait (workgroupBarrier(), uniform control flow) before the next step reads its partner's sum",
            aligned_hint: "a sum comes out wrong with the barrier in place: check the tree's step, each invocation below s adds its partner s places away (s halving from WG / 2 down to 1)",
            edge_hint: "only a length that is not a multiple of 256 fails: invocations past the end must contribute the identity (0 for a sum), not read past the input",
            cases: || vec![reduce_case(256 * 16, true), reduce_case(1000, false)],
            speed: |g| {
                Box::pin(async move {
                    let data = whole_floats(if g.is_cpu() { 1 << 16 } else { 1 << 24 }, 5);
                    let input = Rc::new(g.upload_async("reduce input", &data).await?);
                    let run: Runner = Box::new(move || {
                        let input = input.clone();
                        Box::pin(async move {
                            let (_, run) = g
                                .reduce_on_device_async(
                                    &*input,
                                    reduce::Op::Sum,
                                    reduce::Variant::Workgroup,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            },
        },
        Exercise {
            name: "padded-transpose",
            task: "the transpose through a tile padded to TILE + 1 words per row (CUDA Handbook 8.1): fix the read from the tile",
            starter: "exercises/padded-transpose.wgsl",
            starter_source: include_str!("../../exercises/padded-transpose.wgsl"),
            solution: "shaders/transpose.wgsl",
            solution_source: include_str!("../../shaders/transpose.wgsl"),
            module: "transpose",
            hint: "your file has fewer workgroupBarrier() calls than the lesson's kernel: without the barrier between storing the tile and reading it transposed, an invocation reads elements another has not stored yet",
            aligned_hint: "the output is not the transpose: the tile is stored by rows, so the transposed element of invocation (x, y + j) is read down a column, tile_padded[x · (TILE + 1) + y + j]",
            edge_hint: "right on multiples of the tile, wrong on a ragged matrix: check the bounds of the store (out_r < cols, out_c < rows)",
            cases: || vec![transpose_case(64, 64, true), transpose_case(33, 70, false)],
            speed: |g| {
                Box::pin(async move {
                    let n = if g.is_cpu() { 256 } else { 4096 };
                    let data: Vec<u32> = (0..(n * n) as u32).collect();
                    let io = Rc::new((
                        g.upload_async("transpose input", &data).await?,
                        g.alloc_async::<u32>("transposed", n * n).await?,
                    ));
                    let run: Runner = Box::new(move || {
                        let io = io.clone();
                        Box::pin(async move {
                            let run = g
                                .transpose_on_device_async(
                                    &io.0,
                                    &io.1,
                                    (n, n),
                                    transpose::Variant::Padded,
                                    None,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            },
        },
        Exercise {
            name: "histogram",
            task: "the 256-bin histogram with workgroup atomics (CUDA Handbook 8.1): the merge into the global bins",
            starter: "exercises/histogram.wgsl",
            starter_source: include_str!("../../exercises/histogram.wgsl"),
            solution: "shaders/histogram.wgsl",
            solution_source: include_str!("../../shaders/histogram.wgsl"),
            module: "histogram",
            hint: "your file has fewer workgroupBarrier() calls than the lesson's kernel: the bins must be cleared before anyone counts and counted before anyone merges them, a barrier between each step",
            aligned_hint: "counts are lost: a race between workgroups. Each workgroup must add its counts to the global bins (atomicAdd), not store them over another workgroup's",
            edge_hint: "only a length that is not a multiple of the workgroup fails: stop at n",
            cases: || vec![histogram_case(1 << 18, true), histogram_case(1001, false)],
            speed: |g| {
                Box::pin(async move {
                    let data = bytes(if g.is_cpu() { 1 << 18 } else { 1 << 26 }, 9);
                    let words = Rc::new(
                        g.upload_async("histogram input", &histogram::pack_bytes(&data))
                            .await?,
                    );
                    let n = data.len();
                    let run: Runner = Box::new(move || {
                        let words = words.clone();
                        Box::pin(async move {
                            let (_, run) = g
                                .histogram_on_device_async(
                                    &words,
                                    histogram::Values::U8(n),
                                    histogram::Variant::Workgroup,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            },
        },
    ]
}

/// The exercise called `name`.
pub fn exercise(name: &str) -> Result<Exercise> {
    exercises()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| crate::Error::Unknown {
            what: "exercise",
            got: name.to_string(),
            choices: exercises().iter().map(|e| e.name.to_string()).collect(),
        })
}

/// Check `source` (the learner's WGSL, from the file named `path` in messages) for `ex` on
/// `gpu`: naga parses and validates it, tilekit's own uniformity check looks at its barriers
/// (naga does not), then it runs at every case's shape against the reference, and, if it
/// passes, is timed beside tilekit's kernel.
/// Blocking [`check_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn check(gpu: &Gpu, ex: &Exercise, source: &str, path: &str) -> Verdict {
    pollster::block_on(check_async(gpu, ex, source, path))
}

/// Check `source` (the learner's WGSL, from the file named `path` in messages) for `ex` on
/// `gpu` (see [`check`]).
pub async fn check_async(gpu: &Gpu, ex: &Exercise, source: &str, path: &str) -> Verdict {
    // naga's own message (with the file and line) before wgpu sees it.
    let module = match naga::front::wgsl::parse_str(source) {
        Ok(m) => m,
        Err(e) => return Verdict::DoesNotCompile(e.emit_to_string_with_path(source, path)),
    };
    let caps = naga::valid::Capabilities::all();
    if let Err(e) =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps).validate(&module)
    {
        return Verdict::DoesNotCompile(e.emit_to_string_with_path(source, path));
    }
    let divergent = divergent_barriers(&module, source);
    if !divergent.is_empty() {
        let lines: Vec<String> = divergent
            .iter()
            .map(|d| {
                format!(
                    "{path}:{}: {} in {} is in non-uniform control flow",
                    d.line, d.what, d.function
                )
            })
            .collect();
        return Verdict::DoesNotCompile(format!(
            "{}\nEvery invocation of a workgroup must reach each barrier: it may not sit under a branch on the invocation's id (or on a value that differs between invocations), nor after an early return or break from one. WGSL requires it and browsers refuse such a shader; naga accepts it, and it may hang or race on a GPU (Harris, \"Using Shared Memory in CUDA C/C++\": __syncthreads() in divergent code is undefined and can deadlock).",
            lines.join("\n")
        ));
    }
    // Fewer barriers than the solution: a failure on whole tiles is most likely a race.
    let barriers_missing = naga::front::wgsl::parse_str(ex.solution_source)
        .map(|m| barrier_count(&module) < barrier_count(&m))
        .unwrap_or(false);
    let cases = (ex.cases)();
    let mut shapes = Vec::new();
    let mut first_wrong: Option<(usize, Mismatch)> = None;
    // The learner's file with every loop bounded (bound.rs), watched: a loop stopped at its cap
    // is reported whatever the answer (it would not have ended).
    let shader = learner_shader(ex, source, LOOP_CAP);
    for (i, case) in cases.iter().enumerate() {
        let ran = gpu
            .with_watched_substitute_async(ex.module, shader.clone(), (case.run)(gpu))
            .await;
        match ran {
            Err(e) | Ok((Err(e), false)) => return Verdict::Failed(e.to_string()),
            Ok((_, true)) => {
                return Verdict::LoopStopped {
                    shape: case.shape.clone(),
                }
            }
            Ok((Ok(Some(m)), false)) => {
                first_wrong.get_or_insert((i, m));
            }
            Ok((Ok(None), false)) => shapes.push(case.shape.clone()),
        }
    }
    if let Some((i, mismatch)) = first_wrong {
        let case = &cases[i];
        let aligned_failed = cases
            .iter()
            .any(|c| c.aligned && !shapes.contains(&c.shape));
        let hint = match (case.aligned || aligned_failed, barriers_missing) {
            (true, true) => ex.hint,
            (true, false) => ex.aligned_hint,
            (false, _) => ex.edge_hint,
        };
        return Verdict::Wrong {
            shape: case.shape.clone(),
            mismatch,
            hint: hint.to_string(),
        };
    }
    // Yours and tilekit's side by side, in rounds (Gpu::measure_side_by_side_async), each file
    // in place of the module as a learner's file runs: wgpu's runtime checks on, every loop
    // bounded and watched. So the same code times the same: with tilekit's kernel run as the
    // library runs it, the lesson's own shader checked as a learner's file read 3.5x slower on
    // the H100 (tiled-matmul, 981 µs against 279; BENCHMARKS.md, 2026-11-26).
    let tilekits = learner_shader(ex, ex.solution_source, LOOP_CAP);
    let mut run = match (ex.speed)(gpu).await {
        Ok(run) => run,
        Err(e) => return Verdict::Failed(e.to_string()),
    };
    let mut stopped = false;
    let timed = gpu
        .measure_side_by_side_async(
            2,
            async |i| {
                let file = if i == 0 { &shader } else { &tilekits };
                let (s, capped) = gpu
                    .with_watched_substitute_async(ex.module, file.clone(), run())
                    .await?;
                stopped |= capped && i == 0;
                s
            },
            |s| *s,
        )
        .await;
    if stopped {
        return Verdict::LoopStopped {
            shape: "the speed test's size".into(),
        };
    }
    match timed {
        Ok(mut m) => {
            let tilekits = m.remove(1).map(|_| ());
            let yours = m.remove(0).map(|_| ());
            Verdict::Passed {
                shapes,
                yours,
                tilekits,
            }
        }
        Err(e) => Verdict::Failed(e.to_string()),
    }
}

/// The steps any one loop of a checked file may take each time it starts (bound.rs): far more
/// than the lessons' kernels take (a few thousand at most), few enough that a loop that never
/// ends stops in seconds on a CPU adapter, and below the 65,535 at which Mesa's llvmpipe and
/// lavapipe stop every loop themselves (so that the cap, not the driver's, is what a loop meets).
pub const LOOP_CAP: u32 = 1 << 15;

/// The learner's source as a module of its own, every loop bounded at `cap` steps: a fresh name
/// per check (the pipeline cache must not hand back another file's kernels), wgpu's runtime
/// checks kept (a learner's indices are unproven).
fn learner_shader(ex: &Exercise, source: &str, cap: u32) -> Shader {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    Shader {
        checked: true,
        watched: true,
        ..Shader::owned(
            format!(
                "exercise {} #{}",
                ex.name,
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
            bound_loops(source, cap),
        )
    }
}

fn first_difference<T: PartialEq + std::fmt::Display>(got: &[T], want: &[T]) -> Option<Mismatch> {
    if got.len() != want.len() {
        return Some(Mismatch {
            index: got.len().min(want.len()),
            expected: format!("{} elements", want.len()),
            got: format!("{} elements", got.len()),
        });
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| Mismatch {
            index: i,
            expected: want[i].to_string(),
            got: got[i].to_string(),
        })
}

/// The lesson's tiled kernel at TILE=16, whatever the planner would pick: the starter's shapes
/// are chosen against it.
fn tile16() -> matmul::Selection {
    matmul::Selection::Forced {
        variant: Mm::TILED,
        tile: "TILE=16".into(),
    }
}

fn matmul_case(m: usize, k: usize, n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{m}×{k}×{n} (TILE=16)"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let a = crate::random::uniform_f32(m * k, 1);
                let b = crate::random::uniform_f32(k * n, 2);
                let (c, _) = g.matmul_with_async(&a, &b, (m, k, n), &tile16()).await?;
                let (exact, mag) = matmul::reference(&a, &b, m, k, n);
                Ok(c.iter().enumerate().find_map(|(i, &v)| {
                    let bound = matmul::f32_bound(k, mag[i]);
                    let err = (v as f64 - exact[i]).abs();
                    (err.is_nan() || err > bound).then(|| Mismatch {
                        index: i,
                        expected: format!("{:.6}", exact[i]),
                        got: format!("{v:.6}"),
                    })
                }))
            })
        }),
    }
}

/// The matmul exercises' speed case: A·A at n³ on device buffers, at TILE=16.
async fn matmul_speed(g: &Gpu, n: usize) -> Result<Runner<'_>> {
    let a = crate::random::uniform_f32(n * n, 3);
    let shape = matmul::Shape::new(n, n, n)?;
    let io = Rc::new((
        g.upload_async("A", &a).await?,
        g.alloc_async::<f32>("C", n * n).await?,
    ));
    Ok(Box::new(move || {
        let io = io.clone();
        Box::pin(async move {
            let run = g
                .matmul_on_device_async(&io.0, &io.0, &io.1, shape, &tile16())
                .await?;
            Ok(run.timing.seconds)
        })
    }))
}

fn reverse_case(n: usize) -> Case {
    Case {
        shape: format!("N={n}"),
        aligned: true,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
                let (out, _) = g.reverse_dynamic_async(&data).await?;
                let want: Vec<u32> = data.iter().rev().copied().collect();
                Ok(first_difference(&out, &want))
            })
        }),
    }
}

/// Small whole numbers as f32: their sums are exact, so the check is exact.
fn whole_floats(n: usize, seed: u64) -> Vec<f32> {
    crate::random::uniform_f32(n, seed)
        .iter()
        .map(|x| (x * 100.0).round())
        .collect()
}

fn reduce_case(n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("n={n}"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data = whole_floats(n, 4);
                let (sum, _) = g
                    .reduce_with_async(&data, reduce::Op::Sum, reduce::Variant::Workgroup)
                    .await?;
                let want: f64 = data.iter().map(|&x| x as f64).sum();
                Ok(first_difference(&[sum as f64], &[want]))
            })
        }),
    }
}

fn transpose_case(rows: usize, cols: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{rows}×{cols} (TILE=32)"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data: Vec<u32> = (0..(rows * cols) as u32).collect();
                let (out, _) = g
                    .transpose_async(
                        &data,
                        rows,
                        cols,
                        transpose::Variant::Padded,
                        Some("TILE=32"),
                    )
                    .await?;
                let want: Vec<u32> = (0..cols)
                    .flat_map(|c| (0..rows).map(move |r| (r * cols + c) as u32))
                    .collect();
                Ok(first_difference(&out, &want))
            })
        }),
    }
}

fn bytes(n: usize, seed: u64) -> Vec<u8> {
    crate::random::uniform_f32(n, seed)
        .iter()
        .map(|x| ((x + 1.0) * 127.9) as u8)
        .collect()
}

fn histogram_case(n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{n} bytes"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data = bytes(n, 6);
                let (bins, _) = g
                    .histogram_u8_async(&data, histogram::Variant::Workgroup)
                    .await?;
                let mut want = [0u32; 256];
                for &b in &data {
                    want[b as usize] += 1;
                }
                Ok(first_difference(&bins, &want).map(|mut m| {
                    m.expected = format!("{} (bin {})", m.expected, m.index);
                    m
                }))
            })
        }),
    }
}
