//! The matrix units' ceiling (`tilekit bench`'s `ceiling/matrix`, lesson 11): eight independent
//! 16×16×16 cooperative-matrix products per subgroup, f16 in and f32 accumulators, the fragment
//! and the grid of the cooperative kernel ([`super::coop`]), multiplied from registers with
//! nothing loaded, so that the units' throughput alone sets the pace. The scalar units' twin is
//! the FMA ceiling (`src/ceiling.rs`); what the cooperative kernel lacks of this one is what
//! feeding the units costs. Shader: `shaders/ceiling_matrix.wgsl`.

use super::{coop, Shape, Variant};
use crate::kernels::Module;
use crate::launch::Timing;
use crate::pipeline::Shader;
use crate::{DeviceBuffer, Gpu, Result};

const MATRIX: Shader = Shader::file(
    "ceiling_matrix",
    include_str!("../../../shaders/ceiling_matrix.wgsl"),
);
/// The matrix ceiling's workgroup, in invocations: the cooperative matmul's blocks of 256.
const MATRIX_WG: u32 = 256;
/// What each subgroup of the matrix ceiling stores: its 2×4 grid of 16×16 accumulators.
const MATRIX_BLOCK: (usize, usize) = (32, 64);

/// The ceiling's module, with the features it needs (the cooperative kernel's).
pub(crate) fn module() -> Module {
    Module {
        shader: MATRIX,
        needs: Variant::COOP.needs(),
    }
}

/// The operands of the matrix ceiling, as the shader makes them: A (32×16) then B (16×64), both
/// row-major, each element 0 to 12 sixty-fourths.
fn matrix_operand(e: usize) -> f64 {
    ((e * 7 + 3) % 13) as f64 / 64.0
}

/// The 32×64 block of C (row-major) that every subgroup of the matrix ceiling stores after
/// `iterations` steps: `iterations · A·B`. Exact in f32 below 4096 (every product is a multiple
/// of 2⁻¹², every partial sum too), so the check can be tight.
fn matrix_ceiling_expected(iterations: u32) -> Vec<f64> {
    let (rows, cols) = MATRIX_BLOCK;
    let mut c = vec![0.0; rows * cols];
    for r in 0..rows {
        for col in 0..cols {
            let dot: f64 = (0..16)
                .map(|k| matrix_operand(r * 16 + k) * matrix_operand(rows * 16 + k * cols + col))
                .sum();
            c[r * cols + col] = iterations as f64 * dot;
        }
    }
    c
}

impl Gpu {
    /// The subgroup size the matrix ceiling runs with, or a typed error where the adapter has
    /// no 16×16×16 f16 → f32 cooperative matrix or no fixed subgroup size (as for the cooperative
    /// matmul, whose checks these are).
    fn matrix_subgroup(&self) -> Result<u32> {
        self.require(Variant::COOP.needs(), "the matrix-unit ceiling")?;
        let shape = Shape::new(16, 16, 16)?;
        Ok(coop::CoopTiling::new(shape, &self.caps(), &self.summary.name)?.subgroup)
    }

    /// The floats [`Gpu::matrix_ceiling`]'s sink must hold for `groups` workgroups: a
    /// 32×64 block per subgroup.
    pub(crate) fn matrix_ceiling_sink_len(&self, groups: u32) -> Result<usize> {
        let subgroups = (MATRIX_WG / self.matrix_subgroup()?) as usize;
        Ok(groups as usize * subgroups * MATRIX_BLOCK.0 * MATRIX_BLOCK.1)
    }

    /// The FLOPs of one [`Gpu::matrix_ceiling`] run: eight 16×16×16 products per subgroup
    /// per step.
    pub(crate) fn matrix_ceiling_flops(&self, groups: u32, iterations: u32) -> Result<u64> {
        let subgroups = (MATRIX_WG / self.matrix_subgroup()?) as u64;
        Ok(groups as u64 * subgroups * iterations as u64 * 8 * 2 * 16 * 16 * 16)
    }

    /// Run `groups` workgroups of 256 invocations on the matrix units, each subgroup doing
    /// `iterations` steps of eight independent 16×16×16 cooperative-matrix multiply-adds (f16 in,
    /// f32 accumulators: the fragment and the grid of the cooperative matmul), each subgroup
    /// storing its 32×64 block of accumulators into `sink` ([`Gpu::matrix_ceiling_sink_len`]
    /// long; [`Gpu::matrix_ceiling_verified`] checks it). A typed error where the
    /// adapter has no such fragment or no fixed subgroup size.
    pub(crate) fn matrix_ceiling<'a>(
        &'a self,
        sink: &'a DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> crate::Call<'a, Timing> {
        crate::Call::new(async move {
            let subgroup = self.matrix_subgroup()?;
            let len = self.matrix_ceiling_sink_len(groups)?;
            if sink.len() < len {
                return Err(crate::Error::mismatch(
                    "matrix ceiling sink length",
                    len,
                    sink.len(),
                ));
            }
            let params = self.uniform(&[iterations, groups, (1.0f32 / 64.0).to_bits(), 0]);
            self.launch(
                &MATRIX,
                "matrix_chains",
                &[
                    ("SG".into(), subgroup as f64),
                    ("SUBGROUPS".into(), (MATRIX_WG / subgroup) as f64),
                ],
                &[(0, sink.bind()), (1, params.bind())],
                groups as u64,
            )
            .await
        })
    }

    /// Whether every subgroup's block in `sink` after a [`Gpu::matrix_ceiling`] run of
    /// `groups` workgroups and `iterations` steps is `iterations · A·B` (within 10⁻⁶ of it: the
    /// sums are exact in f32, but a matrix unit may round its partial sums differently).
    pub(crate) fn matrix_ceiling_verified<'a>(
        &'a self,
        sink: &'a DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> crate::Call<'a, bool> {
        crate::Call::new(async move {
            let len = self.matrix_ceiling_sink_len(groups)?;
            let want = matrix_ceiling_expected(iterations);
            let got = self.read(sink).await?;
            Ok(crate::ceiling::every_block_is(&got, len, &want, 1e-6))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check of the matrix ceiling can be exact: every element of `iterations · A·B` is a
    /// multiple of 2⁻¹² below 4096 at the bench's 4096 steps, so f32 holds it exactly, and the
    /// operands are not all alike (a constant A or B would hide a transposed fragment).
    #[test]
    fn the_matrix_ceilings_result_is_exact_in_f32_and_not_uniform() {
        let c = matrix_ceiling_expected(4096);
        assert!(c
            .iter()
            .all(|&v| v < 4096.0 && (v as f32) as f64 == v && v > 0.0));
        assert!(c.iter().all(|&v| (v * 4096.0).fract() == 0.0));
        let mut distinct = c.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert!(distinct.len() > 50, "{} distinct values", distinct.len());
        // A transposed B gives another C: the check would see it.
        let row_major_b = |k: usize, col: usize| matrix_operand(32 * 16 + k * 64 + col);
        let transposed: f64 = (0..16).map(|k| matrix_operand(k) * row_major_b(0, k)).sum();
        assert_ne!(transposed * 4096.0, c[0]);
    }
}
