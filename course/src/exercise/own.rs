//! The exercises whose kernel has no host code in the library, run on the adapter after the
//! tracer passed them: the learner's file as a kernel of one's own (`Gpu::dispatch`), at each
//! traced shape with the trace's buffers, its output read back and compared, word for word,
//! with the CPU reference the trace met. The tracer decides races on every adapter; this run is
//! the lesson verified on this GPU's compiler and hardware.

use super::traced::TraceCase;
use super::{learner_shader, Exercise, Verdict, LOOP_CAP};
use tilekit::{Gpu, Shader};

/// Run `ex`'s traced cases on `gpu` with the learner's `source`: `None` when every output
/// matches, else the verdict.
pub(super) async fn run_traced(gpu: &Gpu, ex: &Exercise, source: &str) -> Option<Verdict> {
    let shader = learner_shader(ex, source, LOOP_CAP);
    // The lesson's own file under the exercise's name, which the learner's replaces
    // (Gpu::substitute: every loop bounded and watched, wgpu's runtime checks on).
    let lessons = Shader::owned(ex.module, ex.solution_source);
    for case in (ex.traces)() {
        let Some(expect) = &case.expect else {
            continue;
        };
        let ran = gpu
            .substitute(
                ex.module,
                shader.clone(),
                run(gpu, &lessons, source, &case, expect.binding),
            )
            .await;
        let got = match ran {
            Err(e) | Ok((Err(e), false)) => return Some(Verdict::Failed(e.to_string())),
            Ok((_, true)) => return Some(Verdict::LoopStopped { shape: case.shape }),
            Ok((Ok(got), false)) => got,
        };
        if let Some(mismatch) = expect.first_difference(&got) {
            return Some(Verdict::Wrong {
                shape: format!("{} on {}", case.shape, super::adapter(gpu)),
                mismatch,
                hint: "the tracer ran your kernel right at this shape, with no race, and this GPU did not: look for what differs between a GPU and the tracer, such as arithmetic whose order this GPU's compiler changes (if the lesson's own solution fails the same way, it is tilekit's bug: please report it)".into(),
            });
        }
    }
    None
}

/// One traced case on the GPU (`trace::run_on_gpu`): the words of binding `out` it left.
async fn run(
    gpu: &Gpu,
    shader: &Shader,
    source: &str,
    case: &TraceCase,
    out: u32,
) -> tilekit::Result<Vec<u32>> {
    let setup = &case.setup;
    let (_, resources) = crate::trace::resources(source, "the kernel", Some(&setup.entry))
        .map_err(|e| tilekit::Error::InvalidArgument {
            what: format!("the entry point {}", setup.entry),
            why: e.to_string(),
        })?;
    let ran = crate::trace::run_on_gpu(gpu, shader, &resources, setup).await?;
    ran.into_iter()
        .find(|b| b.group == 0 && b.binding == out)
        .map(|b| b.words)
        .ok_or_else(|| tilekit::Error::InvalidArgument {
            what: format!("binding {out}"),
            why: "the traced case reads it back, but the kernel does not write it".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::super::{exercise, traced, Verdict};

    /// The transpose's traced case with one expected word changed: the tracer's own comparison
    /// is skipped (no expectation in the trace), so only the GPU run can tell.
    fn off_by_one_expectation() -> Vec<traced::TraceCase> {
        let mut case = traced::plain_transpose(33, 70);
        case.expect.as_mut().expect("an expected output").words[40] += 1;
        vec![case]
    }

    /// The adapter's output is compared word for word: an expectation one word off fails on
    /// the GPU, naming the element and the adapter. Needs an adapter (lavapipe in CI).
    #[test]
    fn the_gpu_run_compares_every_word_with_the_reference() {
        let gpu = tilekit::Gpu::new()
            .wait()
            .expect("this test needs a GPU adapter (lavapipe counts: scripts/test.sh installs it)");
        let mut ex = exercise("conflict-free-transpose").unwrap();
        assert!(
            pollster::block_on(super::run_traced(&gpu, &ex, ex.solution_source)).is_none(),
            "the solution as traced"
        );
        ex.traces = off_by_one_expectation;
        let verdict = pollster::block_on(super::run_traced(&gpu, &ex, ex.solution_source));
        let Some(Verdict::Wrong {
            shape, mismatch, ..
        }) = verdict
        else {
            panic!("not caught: {verdict:?}");
        };
        assert_eq!(mismatch.index, 40);
        assert!(
            shape.ends_with(&format!("on {}", super::super::adapter(&gpu))),
            "{shape}"
        );
    }
}
