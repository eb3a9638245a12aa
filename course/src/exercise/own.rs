//! The exercises whose kernel has no host code in the library, run on the adapter after the
//! tracer passed them: the learner's file as a kernel of one's own (`Gpu::dispatch`), at each
//! traced shape with the trace's buffers, its output read back and compared, word for word,
//! with the CPU reference the trace met. The tracer decides races on every adapter; this run is
//! the lesson verified on this GPU's compiler and hardware.

use super::traced::TraceCase;
use super::{learner_shader, Exercise, Verdict, LOOP_CAP};
use tilekit::{Gpu, Shader};

/// Run `ex`'s traced cases on `gpu` with the learner's `source` (parsed as `module`): `None`
/// when every output matches, else the verdict.
pub(super) async fn run_traced(
    gpu: &Gpu,
    ex: &Exercise,
    module: &naga::Module,
    source: &str,
) -> Option<Verdict> {
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
                run(gpu, &lessons, module, &case, expect.binding),
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

/// One traced case on the GPU: its storage buffers uploaded, its uniform blocks made, the grid
/// launched; the words of binding `out` read back.
async fn run(
    gpu: &Gpu,
    shader: &Shader,
    module: &naga::Module,
    case: &TraceCase,
    out: u32,
) -> tilekit::Result<Vec<u32>> {
    let setup = &case.setup;
    let uniform = |binding: u32| {
        module.global_variables.iter().any(|(_, g)| {
            g.space == naga::AddressSpace::Uniform
                && g.binding
                    .as_ref()
                    .is_some_and(|b| b.group == 0 && b.binding == binding)
        })
    };
    let mut storage = Vec::new();
    let mut params = Vec::new();
    for b in &setup.bindings {
        if uniform(b.binding) {
            params.push((b.binding, gpu.params(&b.words)?));
        } else {
            let name = format!("binding {}", b.binding);
            storage.push((b.binding, gpu.upload(&name, &b.words).await?));
        }
    }
    let binds: Vec<_> = storage
        .iter()
        .map(|(i, d)| (*i, d.bind()))
        .chain(params.iter().map(|(i, u)| (*i, u.bind())))
        .collect();
    gpu.dispatch(
        shader,
        &setup.entry,
        &setup.overrides,
        &binds,
        setup.workgroups,
    )
    .await?;
    match storage.iter().find(|(i, _)| *i == out) {
        Some((_, d)) => gpu.read(d).await,
        None => Err(tilekit::Error::InvalidArgument {
            what: format!("binding {out}"),
            why: "the traced case reads it back, but it is not a storage buffer".into(),
        }),
    }
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
        let module = naga::front::wgsl::parse_str(ex.solution_source).unwrap();
        assert!(
            pollster::block_on(super::run_traced(&gpu, &ex, &module, ex.solution_source)).is_none(),
            "the solution as traced"
        );
        ex.traces = off_by_one_expectation;
        let verdict = pollster::block_on(super::run_traced(&gpu, &ex, &module, ex.solution_source));
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
