//! The teaching tour: each lesson runs its kernels, verifies them against a CPU reference, and
//! reports what the lesson predicts beside what was measured. The lessons live with their
//! families (`src/kernels/F/lesson.rs`); the tour runs lesson 01 (the device query) and then
//! every family's lessons in number order. `examples/NN_*.rs` each wrap one lesson.

use crate::kernels::FAMILIES;
use crate::{Gpu, Result};
use serde::Serialize;
use std::fmt::Write as _;

/// How big the lessons' inputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Tiny inputs: seconds on lavapipe (tests, `--quick`).
    Quick,
    /// Inputs that show the effect on a real GPU.
    Full,
}

impl Size {
    /// `Quick` when the program got `--quick` or `TILEKIT_QUICK` is set (the examples use this).
    pub fn from_args() -> Size {
        let quick = std::env::args().any(|a| a == "--quick")
            || std::env::var("TILEKIT_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        if quick {
            Size::Quick
        } else {
            Size::Full
        }
    }

    /// `quick` or `full`.
    pub fn pick<T>(self, quick: T, full: T) -> T {
        match self {
            Size::Quick => quick,
            Size::Full => full,
        }
    }
}

/// A bar chart of one lesson's figures (the HTML report draws it): measured values, and what
/// the lesson predicts where it predicts a number.
#[derive(Clone, Debug, Serialize)]
pub struct Chart {
    /// What is compared.
    pub title: String,
    /// The unit of the values (`GB/s`, `GFLOP/s`, `x`).
    pub unit: String,
    /// (label, measured, predicted).
    pub bars: Vec<(String, f64, Option<f64>)>,
}

/// What one lesson found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Lesson number and title.
    pub title: String,
    /// The lesson in one paragraph.
    pub explanation: String,
    /// Lines of "prediction | measurement".
    pub lines: Vec<String>,
    /// Every result matched the CPU reference.
    pub verified: bool,
    /// The one number to remember.
    pub key: String,
    /// Charts of its figures.
    pub charts: Vec<Chart>,
    /// The shader lines that carry the lesson (file, first line, text).
    pub excerpt: Option<(String, usize, String)>,
}

impl Report {
    /// An empty report for a lesson.
    pub fn new(title: &str, explanation: &str) -> Report {
        Report {
            title: title.into(),
            explanation: explanation.into(),
            lines: vec![],
            verified: true,
            key: String::new(),
            charts: vec![],
            excerpt: None,
        }
    }

    /// Add a line.
    pub fn line(&mut self, s: String) {
        self.lines.push(s);
    }

    /// Quote the lines of `source` (a shader file named `file`) between its `// [lesson]` and
    /// `// [/lesson]` comments: the few lines that carry the lesson, marked in the shader itself
    /// so that no WGSL is copied into Rust.
    pub fn quote(&mut self, file: &str, source: &str) {
        let lines: Vec<&str> = source.lines().collect();
        let begin = lines
            .iter()
            .position(|l| l.trim_start().starts_with("// [lesson]"));
        let end = lines
            .iter()
            .position(|l| l.trim_start().starts_with("// [/lesson]"));
        if let (Some(a), Some(b)) = (begin, end) {
            if a + 1 < b {
                self.excerpt = Some((file.to_string(), a + 2, lines[a + 1..b].join("\n")));
            }
        }
    }

    /// The report as text.
    pub fn render(&self) -> String {
        let mut s = format!("== {} ==\n{}\n", self.title, self.explanation);
        for l in &self.lines {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(
            s,
            "  verified: {}   key: {}",
            if self.verified { "yes" } else { "NO" },
            self.key
        );
        s
    }
}

/// One lesson of the tour.
#[derive(Clone, Copy)]
pub struct Lesson {
    /// Its number (the order of the tour and of `examples/NN_*`).
    pub number: u32,
    /// Short name (`tiled matmul`).
    pub name: &'static str,
    /// Runs it.
    pub run: fn(&Gpu, Size) -> Result<Report>,
}

impl Lesson {
    /// `NN name`.
    pub fn label(&self) -> String {
        format!("{:02} {}", self.number, self.name)
    }
}

/// The note every lesson adds on a CPU adapter, where the GPU's speed-ups cannot be measured.
pub fn cpu_note(gpu: &Gpu) -> &'static str {
    if gpu.is_cpu() {
        " (a CPU adapter: workgroup memory is ordinary RAM and barriers are costly, so the speed-up the lesson predicts belongs to GPUs; the load counts still hold)"
    } else {
        ""
    }
}

/// Uniform f32 in [-1, 1) from a fixed seed (the lessons' inputs).
pub fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    crate::cli::random_f32(n, seed)
}

/// 01: the device query, as `cudaGetDeviceProperties`.
pub fn device_query(gpu: &Gpu, _size: Size) -> Result<Report> {
    let mut r = Report::new(
        "01 device query",
        "WebGPU exposes per-workgroup limits (CUDA's sharedMemPerBlock, maxThreadsPerBlock); the per-multiprocessor figures come from a device profile.",
    );
    let s = &gpu.summary;
    let l = gpu.limits();
    r.line(format!(
        "adapter {} ({}, {}, driver {} {})",
        s.name, s.backend, s.device_type, s.driver, s.driver_info
    ));
    r.line(format!(
        "max_compute_workgroup_storage_size {} B | max_compute_invocations_per_workgroup {} | max_compute_workgroup_size {:?}",
        l.max_compute_workgroup_storage_size, l.max_compute_invocations_per_workgroup, l.max_workgroup_size()
    ));
    r.line(format!(
        "max_compute_workgroups_per_dimension {} | max_storage_buffer_binding_size {} B | subgroup sizes {}..{}",
        l.max_compute_workgroups_per_dimension, l.max_storage_buffer_binding_size, l.subgroup_min_size, l.subgroup_max_size
    ));
    r.line(format!(
        "features: {} | profile: {} ({})",
        if s.features.is_empty() {
            "none".to_string()
        } else {
            s.features.join(", ")
        },
        gpu.profile.name,
        gpu.profile.source
    ));
    r.verified = l.max_compute_workgroup_storage_size >= 16_384
        && l.max_compute_invocations_per_workgroup >= 256;
    // CUDA's deviceQuery against the floor every WebGPU adapter guarantees.
    let base = crate::limits::Limits::webgpu_default();
    r.charts.push(Chart {
        title: "this adapter's limits as multiples of WebGPU's baseline (the dashed bar)".into(),
        unit: "×".into(),
        bars: [
            (
                "workgroup storage",
                l.max_compute_workgroup_storage_size as f64,
                base.max_compute_workgroup_storage_size as f64,
            ),
            (
                "invocations / workgroup",
                l.max_compute_invocations_per_workgroup as f64,
                base.max_compute_invocations_per_workgroup as f64,
            ),
            (
                "storage binding size",
                l.max_storage_buffer_binding_size as f64,
                base.max_storage_buffer_binding_size as f64,
            ),
        ]
        .into_iter()
        .map(|(n, v, b)| (n.to_string(), v / b, Some(1.0)))
        .collect(),
    });
    r.key = format!(
        "{} B workgroup storage, {} invocations",
        l.max_compute_workgroup_storage_size, l.max_compute_invocations_per_workgroup
    );
    Ok(r)
}

/// Every lesson in order: the device query, then each family's.
pub fn lessons() -> Vec<Lesson> {
    let mut all = vec![Lesson {
        number: 1,
        name: "device query",
        run: device_query,
    }];
    for f in FAMILIES {
        all.extend(f.lessons());
    }
    all.sort_by_key(|l| l.number);
    all
}

/// The lesson numbered `number`.
pub fn lesson(number: u32) -> Option<Lesson> {
    lessons().into_iter().find(|l| l.number == number)
}

/// Every lesson in order (`tilekit tour`); `progress` is called before each.
pub fn run_all(
    gpu: &Gpu,
    size: Size,
    mut progress: impl FnMut(&str),
) -> Vec<(String, Result<Report>)> {
    lessons()
        .into_iter()
        .map(|l| {
            let label = l.label();
            progress(&label);
            (label, (l.run)(gpu, size))
        })
        .collect()
}

/// The `main` of every example: open the best adapter, run lesson `number` at the size the
/// command line asks for (`--quick` or `TILEKIT_QUICK=1` for small), print it, and exit non-zero
/// if its result did not match the CPU reference.
pub fn example(number: u32) {
    let run = || -> Result<Report> {
        let gpu = Gpu::with_options(crate::GpuOptions {
            poison_outputs: true,
            ..Default::default()
        })?;
        println!("adapter: {} ({})\n", gpu.summary.name, gpu.summary.backend);
        let lesson = lesson(number).ok_or_else(|| crate::Error::Unknown {
            what: "lesson",
            got: number.to_string(),
            choices: lessons().iter().map(|l| l.label()).collect(),
        })?;
        (lesson.run)(&gpu, Size::from_args())
    };
    match run() {
        Ok(report) => {
            println!("{}", report.render());
            if !report.verified {
                eprintln!("the result did not match the CPU reference");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
