//! A lesson of the tour as its family writes it: the [`Lesson`] (number, name, the function that
//! runs it), the [`Report`] it returns (the explanation, the quoted shader lines, what it
//! predicted beside what it measured, charts) and the sizes it runs at. The tour
//! (`crate::tour`), the HTML report and the web page present these.

use serde::Serialize;
use std::fmt::Write as _;
use tilekit::{Gpu, Result};

/// How big the lessons' inputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Tiny inputs: seconds on lavapipe (tests, `--quick`).
    Quick,
    /// Inputs that show the effect on a real GPU.
    Full,
}

impl Size {
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
    /// (label, measured, the figure it is set against).
    pub bars: Vec<(String, f64, Option<f64>)>,
    /// What the second, dashed bar of each pair is: `predicted` where the lesson predicts it (its
    /// formula in the text), else what it is (`WebGPU baseline`).
    pub against: &'static str,
}

/// What receives a lesson's lines as it prints them.
pub type LineSink = Box<dyn Fn(&str)>;

thread_local! {
    /// Where a lesson's lines go as it prints them (the page shows the latest while a long
    /// lesson runs).
    static PROGRESS: std::cell::RefCell<Option<LineSink>> = const { std::cell::RefCell::new(None) };
}

/// Calls `f` with each line a lesson prints on this thread, as it prints it (`None`: stop).
pub fn on_line(f: Option<LineSink>) {
    PROGRESS.with(|p| *p.borrow_mut() = f);
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
    /// Why the lesson's point could not run on this adapter (a feature it lacks): then the
    /// report says "not run here" with this, not "verified", whatever else ran.
    pub not_run: Option<String>,
    /// The one number to remember.
    pub key: String,
    /// Charts of its figures.
    pub charts: Vec<Chart>,
    /// The shader lines that carry the lesson (file, first line, text).
    pub excerpt: Option<(String, usize, String)>,
    /// What timed it, for a lesson that measures speed: `GPU timestamps` where the adapter has
    /// timestamp queries, else `wall clock` (submit to readback, so it includes the overhead).
    pub clock: Option<tilekit::Clock>,
}

impl Report {
    /// An empty report for a lesson.
    pub fn new(title: &str, explanation: &str) -> Report {
        Report {
            title: title.into(),
            explanation: explanation.into(),
            lines: vec![],
            verified: true,
            not_run: None,
            key: String::new(),
            charts: vec![],
            excerpt: None,
            clock: None,
        }
    }

    /// An empty report for a lesson that measures speed on `gpu`: it says which clock timed it.
    pub fn timed(title: &str, explanation: &str, gpu: &Gpu) -> Report {
        Report {
            clock: Some(tilekit::Clock::of(gpu)),
            ..Report::new(title, explanation)
        }
    }

    /// Add a line.
    pub fn line(&mut self, s: String) {
        PROGRESS.with(|p| {
            if let Some(f) = &*p.borrow() {
                f(&s)
            }
        });
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

    /// "verified", "WRONG", or "not run here" for a lesson whose point this adapter cannot run.
    pub fn status(&self) -> &'static str {
        match (&self.not_run, self.verified) {
            (_, false) => "WRONG",
            (Some(_), true) => "not run here",
            (None, true) => "verified",
        }
    }

    /// The report as text.
    pub fn render(&self) -> String {
        let mut s = format!("== {} ==\n{}\n", self.title, self.explanation);
        if let Some(c) = &self.clock {
            let _ = writeln!(s, "  timed by: {c}");
        }
        for l in &self.lines {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(
            s,
            "  verified: {}   key: {}",
            match (&self.not_run, self.verified) {
                (_, false) => "NO".to_string(),
                (Some(why), true) => format!("not run here: {why}"),
                (None, true) => "yes".to_string(),
            },
            self.key
        );
        s
    }
}

/// A lesson running: what [`Lesson::run`] returns, to be awaited (or blocked on, natively).
pub type Running<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Report>> + 'a>>;

/// One lesson of the tour.
#[derive(Clone, Copy)]
pub struct Lesson {
    /// Its number (the order of the tour and of `examples/NN_*`).
    pub number: u32,
    /// Short name (`tiled matmul`).
    pub name: &'static str,
    /// Runs it.
    pub run: for<'a> fn(&'a Gpu, Size) -> Running<'a>,
}

impl Lesson {
    /// `NN name`.
    pub fn label(&self) -> String {
        format!("{:02} {}", self.number, self.name)
    }
}

/// What a CPU adapter (lavapipe, llvmpipe, SwiftShader) can and cannot show, said once where the
/// tour starts (the command line, the HTML report, the page) rather than after every lesson.
pub const CPU_CAVEAT: &str = "This adapter is a CPU. Every lesson still checks its kernels against the CPU reference, and the traced counts hold on any adapter, but times here follow whatever else the machine is doing, so kernels' speeds are not compared; and since workgroup memory is ordinary RAM and a barrier is costly on a CPU, the speed-ups the lessons predict belong to GPUs.";

/// What a lesson's timed lines cannot show at small sizes on a GPU (`--quick`, the web page's
/// box): each launch is too short for the speed-ups the lesson predicts (a CPU adapter's
/// limits are said once, [`CPU_CAVEAT`]).
pub fn size_note(gpu: &Gpu, size: Size) -> String {
    if size == Size::Quick && !gpu.is_cpu() {
        " (small sizes: on a GPU each launch takes a few microseconds, too short for the speed-ups the lesson predicts, which GPU-sized inputs show)".to_string()
    } else {
        String::new()
    }
}

/// Uniform f32 in [-1, 1) from a fixed seed (the lessons' inputs).
pub fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    tilekit::random::uniform_f32(n, seed)
}
