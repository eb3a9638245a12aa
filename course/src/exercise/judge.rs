//! The check's first step: the learner's kernel traced (`crate::trace`) at each exercise's
//! shapes, beside the lesson's own kernel at the same shapes. A race, an index out of bounds or
//! an unwritten read fails the check with the report; so does a kernel that reads global memory,
//! writes workgroup memory, serialises on banks or leaves warps partly idle clearly more than
//! the lesson's (its counts side by side). For exercises with no library kernel the traced
//! output is compared with the CPU reference here, before they run on the adapter (`own.rs`).

use super::{Exercise, Verdict};

/// The source lines of the barriers `ex`'s solution reaches at its traced shapes: the barriers a
/// learner must keep (each removed, or weakened to `storageBarrier()`, is a race the check names).
pub fn reached_barriers(ex: &Exercise) -> Vec<u32> {
    let mut lines = Vec::new();
    for case in (ex.traces)() {
        if let Ok(r) = crate::trace::trace(ex.solution_source, ex.solution, &case.setup) {
            for l in r.barriers {
                if !lines.contains(&l) {
                    lines.push(l);
                }
            }
        }
    }
    lines.sort_unstable();
    lines
}

/// How much more traffic than the lesson's kernel a learner's may make before the check says
/// it is not the lesson's way (a tie, or a few extra loads, is the same way).
const TRAFFIC_SLACK: f64 = 1.5;

/// The tracer's verdict on `module` at each of `ex`'s traced shapes: a finding, a count that
/// says the kernel does not do what the lesson asks, or nothing (go on to the GPU).
// The error is the check's answer, made once per check: its size costs nothing.
#[allow(clippy::result_large_err)]
pub(super) fn traced_verdict(
    ex: &Exercise,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    source: &str,
    path: &str,
) -> Result<String, Verdict> {
    use crate::trace::{self, TraceError};
    let failed = |m: String| Verdict::Failed(m);
    let solution = naga::front::wgsl::parse_str(ex.solution_source)
        .map_err(|e| failed(format!("the lesson's kernel: {e}")))?;
    let solution_info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&solution)
    .map_err(|e| failed(format!("the lesson's kernel: {e}")))?;
    let mut summary = String::new();
    for case in (ex.traces)() {
        let limits = trace::Limits::default();
        let report = match trace::trace_module(module, info, source, &case.setup, limits) {
            Ok(r) => r,
            Err(TraceError::LoopStopped { .. }) | Err(TraceError::TooLong(_)) => {
                return Err(Verdict::LoopStopped { shape: case.shape });
            }
            Err(e) => return Err(failed(format!("{path}: {e}"))),
        };
        if !report.clean() {
            return Err(Verdict::Traced {
                shape: case.shape,
                report: Box::new(report),
                path: path.to_string(),
            });
        }
        if let Some(want) = &case.expect {
            let got = report.buffer(0, want.binding).unwrap_or(&[]);
            if let Some(mismatch) = want.first_difference(got) {
                return Err(Verdict::Wrong {
                    shape: case.shape,
                    mismatch,
                    hint: ex.aligned_hint.to_string(),
                });
            }
        }
        let lesson = trace::trace_module(
            &solution,
            &solution_info,
            ex.solution_source,
            &case.setup,
            limits,
        )
        .map_err(|e| failed(format!("the lesson's kernel: {e}")))?;
        if let Some(message) = compare_counts(&report, &lesson) {
            return Err(Verdict::Counts {
                shape: case.shape,
                message,
            });
        }
        summary = counts_side_by_side(&report, &lesson);
    }
    Ok(summary)
}

/// Yours and the lesson's counts at the last traced shape, in one line.
fn counts_side_by_side(yours: &crate::trace::Report, lesson: &crate::trace::Report) -> String {
    let per = |(p, r): (u64, u64)| p as f64 / r.max(1) as f64;
    format!(
        "counts, yours (the lesson's): global loads {} ({}), workgroup stores {} ({}), bank passes per request {:.2} ({:.2}), partly busy warp steps {} ({})",
        yours.global_loads(),
        lesson.global_loads(),
        yours.workgroup_stores(),
        lesson.workgroup_stores(),
        per(yours.bank_passes()),
        per(lesson.bank_passes()),
        yours.partial_warps,
        lesson.partial_warps
    )
}

/// A sentence when `yours` reads global memory or serialises on workgroup banks clearly more
/// than `lesson` does at the same shape.
fn compare_counts(yours: &crate::trace::Report, lesson: &crate::trace::Report) -> Option<String> {
    for l in lesson.traffic.iter().filter(|t| t.space == "storage") {
        let Some(y) = yours.traffic_of(&l.variable) else {
            continue;
        };
        let per = |t: &crate::trace::Traffic| t.words_read as f64 / t.distinct_read.max(1) as f64;
        if l.traffic.words_read > 0 && per(y) > TRAFFIC_SLACK * per(&l.traffic) {
            return Some(format!(
                "your kernel reads each element of {} {:.1} times from global memory ({} loads); the lesson's reads it {:.1} times ({} loads): stage it through workgroup memory, as the lesson does",
                l.variable,
                per(y),
                y.loads,
                per(&l.traffic),
                l.traffic.loads
            ));
        }
    }
    let (yp, yr) = yours.bank_passes();
    let (lp, lr) = lesson.bank_passes();
    if yr > 0 && lr > 0 {
        let (y, l) = (yp as f64 / yr as f64, lp as f64 / lr as f64);
        if y > TRAFFIC_SLACK * l {
            let worst = yours.banks.iter().max_by_key(|b| b.worst)?;
            return Some(format!(
                "your workgroup-memory requests take {y:.2} passes each on average (line {} of your file is {}-way: {} of 32 invocations ask one bank for different words); the lesson's take {l:.2}: pad the tile so that a column falls in different banks",
                worst.line, worst.worst, worst.worst
            ));
        }
    }
    let (y, l) = (yours.workgroup_stores(), lesson.workgroup_stores());
    if l > 0 && y as f64 > TRAFFIC_SLACK * l as f64 {
        return Some(format!(
            "your kernel stores to workgroup memory {y} times; the lesson's {l}: it does more work than the lesson's algorithm"
        ));
    }
    let (y, l) = (yours.partial_warps, lesson.partial_warps);
    if y as f64 > TRAFFIC_SLACK * l as f64 + 1.0 {
        return Some(format!(
            "in {y} of your kernel's barrier-to-barrier steps a warp (32 invocations that run together) had only some invocations working, the others waiting; in the lesson's, {l}: keep the active invocations contiguous (invocation i < s works, not i % 2s == 0)"
        ));
    }
    None
}
