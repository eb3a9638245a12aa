//! Exercises: the learner writes the kernel (`exercises/NAME.wgsl`, a project shader with the
//! lesson's key lines turned into TODOs) and `tilekit exercise check NAME FILE.wgsl` runs it with
//! the library's own host code, bindings and planner constants ([`Gpu::substitute`]) at
//! shapes chosen to catch the classic mistakes, against the CPU reference. The answer fits one
//! screen: passed (with its speed beside tilekit's kernel), or the first wrong element, the shape
//! that exposed it and a hint naming the likely mistake; a file that does not compile gets naga's
//! message with the line. The solutions are the project's own shaders. This module checks a
//! learner's file; `catalogue.rs` lists the exercises, their cases and speed cases.

mod bound;
mod catalogue;
mod judge;
mod own;
pub mod traced;
mod uniformity;
pub use bound::bound_loops;
pub use catalogue::exercises;
pub use judge::reached_barriers;
pub use traced::TraceCase;
pub use uniformity::{barrier_count, divergent_barriers, Divergent};

use std::sync::atomic::{AtomicU64, Ordering};
use tilekit::Shader;
use tilekit::{Gpu, Result};

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
    /// The starter file, from the repository's root.
    pub starter: &'static str,
    /// Its text (the learner's copy may differ).
    pub starter_source: &'static str,
    /// The solution: the project's own shader, from the repository's root.
    pub solution: &'static str,
    /// Its text.
    pub solution_source: &'static str,
    /// The library module the learner's file replaces (for an exercise with no library
    /// kernel, its own name: the solution runs under it as a kernel of one's own).
    pub module: &'static str,
    /// The hint when a shape that is a multiple of every tile fails (the tracer found no race,
    /// so the index arithmetic).
    pub aligned_hint: &'static str,
    /// The hint when only a ragged shape fails.
    pub edge_hint: &'static str,
    /// The shapes the tracer runs first (races, bounds, counts), the same on every adapter.
    pub traces: fn() -> Vec<traced::TraceCase>,
    /// The shapes a check runs, sized from the adapter's limits as the kernels' tiles are.
    cases: fn(&Gpu) -> Vec<Case>,
    /// The speed case: its inputs made and uploaded once, then a runner that times the kernel
    /// alone on them. Made afresh for every run, a 2^26-byte histogram's input kept the GPU idle
    /// between its kernels for tens of milliseconds, its clock fell, and the checker printed a
    /// time several times the kernel's (BENCHMARKS.md, "Warm up by time").
    speed: Option<for<'a> fn(&'a Gpu) -> Pending<'a, Runner<'a>>>,
}

impl Exercise {
    /// Whether the tracer judges it with no library kernel beside it: its kernel has no host
    /// code in the library, so it runs at the traced shapes as a kernel of one's own
    /// (`Gpu::dispatch`) and is not timed.
    pub fn traced_only(&self) -> bool {
        self.speed.is_none()
    }
}

/// What `check` found.
#[derive(Debug)]
pub enum Verdict {
    /// Every shape matched the reference; the learner's time and tilekit's at the speed size.
    Passed {
        /// Shapes run.
        shapes: Vec<String>,
        /// The learner's kernel timed warm: median, fastest and slowest of the timed runs.
        yours: tilekit::Measured<()>,
        /// tilekit's own kernel, timed the same way: side by side with the learner's, and run as a
        /// learner's file is (wgpu's runtime checks on, every loop bounded).
        tilekits: tilekit::Measured<()>,
    },
    /// An exercise with no library kernel to time against: traced right at every shape, no
    /// mistake found, the counts the lesson asks for, and the same output on the adapter.
    TracedPassed {
        /// Shapes traced, and run.
        shapes: Vec<String>,
        /// Yours against the lesson's, in a sentence.
        counts: String,
        /// The adapter the shapes ran on.
        ran_on: String,
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
    /// The tracer found a race, an index out of bounds, a read of unwritten workgroup memory or
    /// a barrier not every invocation reached (the first of them leads).
    Traced {
        /// The shape traced.
        shape: String,
        /// What it found, with the counts.
        report: Box<crate::trace::Report>,
        /// The file name the report's lines refer to.
        path: String,
    },
    /// Right, but not the lesson's way: the counts differ from the lesson's kernel's.
    Counts {
        /// The shape traced.
        shape: String,
        /// Yours against the lesson's, in a sentence.
        message: String,
    },
    /// It compiled but could not run (a wrong entry point or binding, a GPU error).
    Failed(String),
}

impl Verdict {
    /// Whether the learner's kernel passed.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Passed { .. } | Verdict::TracedPassed { .. })
    }

    /// The one-screen answer.
    pub fn render(&self, ex: &Exercise) -> String {
        match self {
            Verdict::Passed {
                shapes,
                yours,
                tilekits,
            } => {
                let t = crate::units::time;
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
            Verdict::TracedPassed {
                shapes,
                counts,
                ran_on,
            } => format!(
                "{}: passed at {} (traced: no race, no index out of bounds, the output exact; run on {ran_on}: the same output)\n{counts}",
                ex.name,
                shapes.join(", ")
            ),
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
                "{}: a loop was stopped at {shape} after {LOOP_CAP} steps in one invocation, more than any of the lesson's loops takes (every loop of a checked file is bounded, so that a kernel that never ends cannot freeze your GPU)\nhint: check each loop's condition and step: a u32 is never below 0 (`s >= 0u` always holds), and a step that does not move toward the bound loops for ever",
                ex.name
            ),
            Verdict::Traced {
                shape,
                report,
                path,
            } => {
                let mut s = format!("{}: traced at {shape}, and found:\n", ex.name);
                for f in report.findings.iter().take(SHOWN_FINDINGS) {
                    s += &f.render(path);
                    s.push('\n');
                }
                if report.findings.len() > SHOWN_FINDINGS {
                    s += &format!(
                        "… and {} more (tilekit trace shows them all)\n",
                        report.findings.len() - SHOWN_FINDINGS
                    );
                }
                s += "(the tracer runs your kernel on the CPU and checks every access against WGSL's rules, so this holds on every GPU, whatever its schedule)";
                s
            }
            Verdict::Counts { shape, message } => {
                format!("{}: right at {shape}, but not the lesson's way: {message}", ex.name)
            }
            Verdict::Failed(m) => format!("{}: could not run: {m}", ex.name),
        }
    }

    /// Its kind in one word, as `--json` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::Passed { .. } | Verdict::TracedPassed { .. } => "passed",
            Verdict::DoesNotCompile(_) => "does_not_compile",
            Verdict::Wrong { .. } => "wrong",
            Verdict::LoopStopped { .. } => "loop_stopped",
            Verdict::Traced { .. } => "traced",
            Verdict::Counts { .. } => "counts",
            Verdict::Failed(_) => "failed",
        }
    }

    /// The source lines the verdict names (to mark in an editor).
    pub fn lines(&self) -> Vec<u32> {
        match self {
            Verdict::Traced { report, .. } => {
                let mut l: Vec<u32> = report.findings.iter().flat_map(|f| f.lines()).collect();
                l.sort_unstable();
                l.dedup();
                l
            }
            _ => Vec::new(),
        }
    }
}

/// The exercise called `name`.
pub fn exercise(name: &str) -> Result<Exercise> {
    exercises()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| tilekit::Error::Unknown {
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

/// The most binary operators one statement of a learner's shader may chain: the lessons' longest
/// has a dozen, and naga's parser recurses once for each.
pub const MAX_EXPRESSION_OPERATORS: usize = 1000;

/// A message naming the first statement of `source` that chains more than
/// [`MAX_EXPRESSION_OPERATORS`] binary operators, if one does.
fn too_long_expression(source: &str, path: &str) -> Option<String> {
    let (mut operators, mut start_line, mut line) = (0usize, 1usize, 1usize);
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            ';' | '{' | '}' => {
                operators = 0;
                start_line = line;
            }
            '/' if chars.peek() == Some(&'/') => {
                // A comment runs to the end of its line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<' | '>' => operators += 1,
            _ => {}
        }
        if operators > MAX_EXPRESSION_OPERATORS {
            return Some(format!(
                "{path}:{start_line}: a statement with more than {MAX_EXPRESSION_OPERATORS} operators, over what the checker parses (split it into several statements)"
            ));
        }
    }
    None
}

/// The bytes `module`'s fixed-size `var<workgroup>` declarations take (an array sized by an
/// override constant counts once its size is known, at pipeline creation).
fn workgroup_bytes(module: &naga::Module) -> u64 {
    let mut layouter = naga::proc::Layouter::default();
    if layouter.update(module.to_ctx()).is_err() {
        return 0;
    }
    module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
        .filter(|(_, g)| {
            !matches!(
                module.types[g.ty].inner,
                naga::TypeInner::Array {
                    size: naga::ArraySize::Pending(_),
                    ..
                }
            )
        })
        .map(|(_, g)| layouter[g.ty].size as u64)
        .sum()
}

/// Check `source` (the learner's WGSL, from the file named `path` in messages) for `ex` on
/// `gpu` (see [`check`]).
pub async fn check_async(gpu: &Gpu, ex: &Exercise, source: &str, path: &str) -> Verdict {
    // An expression of thousands of terms overflows the parser's stack (an abort natively, a
    // trap in the page): refused before it is parsed.
    if let Some(message) = too_long_expression(source, path) {
        return Verdict::DoesNotCompile(message);
    }
    // naga's own message (with the file and line) before wgpu sees it.
    let module = match naga::front::wgsl::parse_str(source) {
        Ok(m) => m,
        Err(e) => return Verdict::DoesNotCompile(e.emit_to_string_with_path(source, path)),
    };
    let caps = naga::valid::Capabilities::all();
    let info = match naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
    {
        Ok(info) => info,
        Err(e) => return Verdict::DoesNotCompile(e.emit_to_string_with_path(source, path)),
    };
    // Every entry point of the starter is one the check may run; one missing (an empty file, a
    // renamed function) would only show as a pipeline error.
    if let Ok(starter) = naga::front::wgsl::parse_str(ex.starter_source) {
        let missing: Vec<String> = starter
            .entry_points
            .iter()
            .filter(|e| !module.entry_points.iter().any(|l| l.name == e.name))
            .map(|e| format!("`{}`", e.name))
            .collect();
        if !missing.is_empty() {
            return Verdict::DoesNotCompile(format!(
                "{path}: no entry point {}: the check runs {} (`@compute @workgroup_size(...) fn {}(...)` in the starter)",
                missing.join(", "),
                if missing.len() == 1 { "it" } else { "them" },
                missing[0].trim_matches('`')
            ));
        }
    }
    // wgpu does not check a fixed-size workgroup array against the adapter's limit.
    let limit = gpu.limits().max_compute_workgroup_storage_size;
    let needed = workgroup_bytes(&module);
    if needed > limit as u64 {
        return Verdict::DoesNotCompile(format!(
            "{path}: its var<workgroup> declarations need {needed} bytes, over this adapter's max_compute_workgroup_storage_size of {limit} (CUDA's sharedMemPerBlock)"
        ));
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
    // The tracer first: a race, an index past the end or an unwritten read fails here, the
    // same on every adapter; then the counts against the lesson's own kernel.
    let counts = match judge::traced_verdict(ex, &module, &info, source, path) {
        Err(v) => return v,
        Ok(counts) => counts,
    };
    let Some(speed) = ex.speed else {
        // No library kernel to time it against: the learner's file runs as a kernel of one's
        // own at the traced shapes, and must leave the same output on this GPU.
        if let Some(v) = own::run_traced(gpu, ex, source).await {
            return v;
        }
        return Verdict::TracedPassed {
            shapes: (ex.traces)().into_iter().map(|c| c.shape).collect(),
            counts,
            ran_on: adapter(gpu),
        };
    };
    let cases = (ex.cases)(gpu);
    let mut shapes = Vec::new();
    let mut first_wrong: Option<(usize, Mismatch)> = None;
    // The learner's file with every loop bounded (bound.rs), watched: a loop stopped at its cap
    // is reported whatever the answer (it would not have ended).
    let shader = learner_shader(ex, source, LOOP_CAP);
    for (i, case) in cases.iter().enumerate() {
        let ran = gpu
            .substitute(ex.module, shader.clone(), (case.run)(gpu))
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
        let hint = if case.aligned || aligned_failed {
            ex.aligned_hint
        } else {
            ex.edge_hint
        };
        return Verdict::Wrong {
            shape: case.shape.clone(),
            mismatch,
            hint: hint.to_string(),
        };
    }
    // Yours and tilekit's side by side, in rounds (Gpu::measure_side_by_side), each file
    // in place of the module as a learner's file runs: wgpu's runtime checks on, every loop
    // bounded and watched. So the same code times the same: with tilekit's kernel run as the
    // library runs it, the lesson's own shader checked as a learner's file read several times
    // slower (BENCHMARKS.md, "Shader runtime checks").
    let tilekits = learner_shader(ex, ex.solution_source, LOOP_CAP);
    let mut run = match speed(gpu).await {
        Ok(run) => run,
        Err(e) => return Verdict::Failed(e.to_string()),
    };
    let mut stopped = false;
    let timed = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            2,
            async |i| {
                let file = if i == 0 { &shader } else { &tilekits };
                let (s, capped) = gpu.substitute(ex.module, file.clone(), run()).await?;
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

/// The adapter as a verdict names it: its name and back end ("llvmpipe (LLVM 15.0.6, 256 bits)
/// through Vulkan"), since lavapipe and llvmpipe's GL share the name.
fn adapter(gpu: &Gpu) -> String {
    let backend = match gpu.summary.backend.as_str() {
        "Gl" => "OpenGL",
        "BrowserWebGpu" => "the browser's WebGPU",
        "Dx12" => "DX12",
        other => other,
    };
    format!("{} through {backend}", gpu.summary.name)
}

/// Findings a verdict shows: the first mistakes, not a wall of them.
const SHOWN_FINDINGS: usize = 3;

/// The steps any one loop of a checked file may take each time it starts: the tracer's cap.
pub use crate::trace::LOOP_CAP;

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

#[cfg(test)]
mod tests {
    #[test]
    fn a_fixed_workgroup_array_is_counted_and_an_override_sized_one_is_not() {
        let src = "override N: u32 = 64u;
            var<workgroup> big: array<f32, 1048576>;
            var<workgroup> small: array<u32, 8>;
            var<workgroup> sized: array<u32, N>;
            @compute @workgroup_size(1) fn main() { big[0] = 1.0; small[0] = 1u; sized[0] = 1u; }";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        assert_eq!(super::workgroup_bytes(&module), 4 * 1048576 + 4 * 8);
    }

    #[test]
    fn an_expression_of_thousands_of_terms_is_refused_before_parsing() {
        let terms = vec!["0.0"; 20_000].join("+");
        let src = format!("// a comment - with * operators\n@compute @workgroup_size(1) fn main() {{\n  let x = {terms};\n}}\n");
        let msg = super::too_long_expression(&src, "mine.wgsl").expect("refused");
        assert!(msg.starts_with("mine.wgsl:2: "), "{msg}");
        let short = "@compute @workgroup_size(1) fn main() { let x = 1.0 + 2.0 * 3.0; }";
        assert_eq!(super::too_long_expression(short, "s.wgsl"), None);
    }
}
