//! The arithmetic ceiling: eight independent FMA chains per invocation, eight steps a pass of the
//! loop (`shaders/ceiling.wgsl`), so the multiply-add units, not the latency of one chain or the
//! loop's own counter, set the pace; each invocation's result is checked against the chains
//! computed in f64. `tilekit bench` puts
//! every compute-bound figure beside it, measured in the same run; the copy ceiling is the wide
//! family's vec4 copy ([`Gpu::copy_on_device`]), the matrix units' the matmul family's
//! (`src/kernels/matmul/ceiling.rs`).

use crate::launch::Timing;
use crate::pipeline::Shader;
use crate::{DeviceBuffer, Gpu};

const CEILING: Shader = Shader::file("ceiling", include_str!("../shaders/ceiling.wgsl"));
const WG: u32 = 256;

/// The ceiling's source, for the shader tests.
pub(crate) fn ceiling_shader() -> Shader {
    CEILING
}

/// The multiplier each chain's step multiplies by (`mul_bits`), and the constant it adds
/// (`c` in the shader).
const MUL: f32 = 0.999_999;
const ADD: f32 = 1e-3;

/// What each of a workgroup's invocations stores after `iterations` steps: the sum of its eight
/// chains, each `a ← a·MUL + ADD` from `lid·10⁻⁴ + j/10`, in f64. The step has a fixed point,
/// `L = ADD / (1 − MUL)`, and after n steps `a = L + (a₀ − L)·MULⁿ`: no loop over the steps, so
/// checking a long run costs no more than a short one.
fn fma_ceiling_expected(iterations: u32) -> Vec<f64> {
    let (mul, add) = (MUL as f64, ADD as f64);
    let fixed = add / (1.0 - mul);
    let decay = mul.powf(iterations as f64);
    (0..WG)
        .map(|lid| {
            let s = lid as f32 * 1e-4;
            let starts = [0.0f32, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
            starts
                .iter()
                .map(|&j| fixed + ((s + j) as f64 - fixed) * decay)
                .sum()
        })
        .collect()
}

/// Whether the first `len` floats of `got`, block by block, are `want` (each within `rel` of it,
/// relative, or absolute below 1): how the ceilings' sinks are checked.
pub(crate) fn every_block_is(got: &[f32], len: usize, want: &[f64], rel: f64) -> bool {
    got.len() >= len
        && got[..len].chunks(want.len()).all(|block| {
            block
                .iter()
                .zip(want)
                .all(|(&g, &w)| (g as f64 - w).abs() <= rel * w.abs().max(1.0))
        })
}

impl Gpu {
    /// Run `groups` workgroups of 256 invocations, each doing `iterations` steps of eight FMA
    /// chains, writing one float per invocation into `sink` (`groups × 256` long, so that the
    /// work cannot be dropped). FLOPs: `groups × 256 × iterations × 16`.
    pub(crate) fn fma_ceiling<'a>(
        &'a self,
        sink: &'a DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> crate::Call<'a, Timing> {
        crate::Call::new(async move {
            if sink.len() < groups as usize * WG as usize {
                return Err(crate::Error::mismatch(
                    "FMA ceiling sink length",
                    groups as usize * WG as usize,
                    sink.len(),
                ));
            }
            let params = self.uniform(&[iterations, groups, MUL.to_bits(), 0]);
            self.launch(
                &CEILING,
                "fma_chains",
                &[("WG".into(), WG as f64)],
                &[(0, sink.bind()), (1, params.bind())],
                groups as u64,
            )
            .await
        })
    }

    /// Whether every invocation's sum in `sink` after a [`Gpu::fma_ceiling`] run of
    /// `groups` workgroups and `iterations` steps is its eight chains' (computed here in f64),
    /// within 10⁻³ of it: the GPU rounds each step in f32 and may fuse the multiply-add or not,
    /// but work left out or values gone wrong show.
    pub(crate) fn fma_ceiling_verified<'a>(
        &'a self,
        sink: &'a DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> crate::Call<'a, bool> {
        crate::Call::new(async move {
            let want = fma_ceiling_expected(iterations);
            let got = self.read(sink).await?;
            Ok(every_block_is(
                &got,
                groups as usize * WG as usize,
                &want,
                1e-3,
            ))
        })
    }
}

/// The FMA ceiling: `groups` workgroups running `iterations` of eight independent FMA chains per
/// invocation, their sums written to `sink` (so that no work is dropped). Its figure is the
/// arithmetic ceiling every compute-bound kernel is read against.
pub fn fma<'a>(
    gpu: &'a Gpu,
    sink: &'a DeviceBuffer<f32>,
    groups: u32,
    iterations: u32,
) -> crate::Call<'a, Timing> {
    gpu.fma_ceiling(sink, groups, iterations)
}

/// Whether the FMA ceiling's kernel computes what it should, checked on the CPU.
pub fn fma_verified<'a>(
    gpu: &'a Gpu,
    sink: &'a DeviceBuffer<f32>,
    groups: u32,
    iterations: u32,
) -> crate::Call<'a, bool> {
    gpu.fma_ceiling_verified(sink, groups, iterations)
}

/// The matrix units' ceiling (where the adapter has cooperative matrices): each subgroup
/// multiplies its grid of 16×16×16 fragments from registers, nothing loaded.
pub fn matrix<'a>(
    gpu: &'a Gpu,
    sink: &'a DeviceBuffer<f32>,
    groups: u32,
    iterations: u32,
) -> crate::Call<'a, Timing> {
    gpu.matrix_ceiling(sink, groups, iterations)
}

/// Whether the matrix units' ceiling computes what it should, checked on the CPU.
pub fn matrix_verified<'a>(
    gpu: &'a Gpu,
    sink: &'a DeviceBuffer<f32>,
    groups: u32,
    iterations: u32,
) -> crate::Call<'a, bool> {
    gpu.matrix_ceiling_verified(sink, groups, iterations)
}

/// The length of the sink [`matrix`] writes for `groups` workgroups.
pub fn matrix_sink_len(gpu: &Gpu, groups: u32) -> crate::Result<usize> {
    gpu.matrix_ceiling_sink_len(groups)
}

/// The floating-point operations [`matrix`] does for `groups` workgroups and `iterations`.
pub fn matrix_flops(gpu: &Gpu, groups: u32, iterations: u32) -> crate::Result<u64> {
    gpu.matrix_ceiling_flops(groups, iterations)
}

#[cfg(test)]
mod tests {
    use super::{every_block_is, fma_ceiling_expected, ADD, MUL};

    #[test]
    fn a_sink_is_checked_block_by_block_within_its_bound() {
        let want = [1.0, 2.0, 300.0];
        let got = [1.0f32, 2.0, 300.0, 1.0, 2.0, 300.2];
        assert!(every_block_is(&got, 6, &want, 1e-3));
        // 300.2 is 6.7e-4 off, past a bound of 1e-4 (the second block fails).
        assert!(!every_block_is(&got, 6, &want, 1e-4));
        // Fewer floats than asked for is a failure, not a shorter check.
        assert!(!every_block_is(&got[..5], 6, &want, 1e-3));
    }

    #[test]
    fn the_closed_form_is_the_chains_stepped() {
        // The chains stepped one multiply-add at a time in f64, as the shader steps them in f32.
        let stepped = |iterations: u32| -> Vec<f64> {
            (0..256)
                .map(|lid| {
                    let s = lid as f32 * 1e-4;
                    [0.0f32, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
                        .iter()
                        .map(|&j| {
                            let mut a = (s + j) as f64;
                            for _ in 0..iterations {
                                a = a * MUL as f64 + ADD as f64;
                            }
                            a
                        })
                        .sum()
                })
                .collect()
        };
        for iterations in [0, 1, 7, 256, 4096] {
            for (c, s) in fma_ceiling_expected(iterations)
                .iter()
                .zip(stepped(iterations))
            {
                assert!((c - s).abs() <= 1e-9 * s.abs(), "{iterations}: {c} {s}");
            }
        }
    }

    #[test]
    fn the_chains_converge_and_eight_steps_short_is_told_apart() {
        // Each chain a ← a·MUL + ADD heads for ADD / (1 − MUL) = 1000 from below 1, about 10⁻³
        // a step: after 256 steps the eight chains of invocation `lid` (from lid·10⁻⁴ + j/10) sum
        // to about 2.8 + 8·lid·10⁻⁴ + 8·0.256, and eight missing steps move that by 8·8·10⁻³.
        let full = fma_ceiling_expected(256);
        let short = fma_ceiling_expected(248);
        assert_eq!(full.len(), 256);
        for (f, s) in full.iter().zip(&short) {
            assert!(*f > 4.8 && *f < 5.1, "{f}");
            assert!((f - s).abs() > 1e-3 * f.abs(), "{f} {s}");
        }
    }
}
