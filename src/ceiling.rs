//! The arithmetic ceiling: eight independent FMA chains per invocation (`shaders/ceiling.wgsl`),
//! so the multiply-add units, not the latency of one chain, set the pace. `tilekit bench` puts
//! every compute-bound figure beside it, measured in the same run; the copy ceiling is the wide
//! family's vec4 copy ([`Gpu::copy_on_device`]), the matrix units' the matmul family's
//! (`src/kernels/matmul/ceiling.rs`).

use crate::launch::Timing;
use crate::pipeline::Shader;
use crate::{DeviceBuffer, Gpu, Result};

const CEILING: Shader = Shader::file("ceiling", include_str!("../shaders/ceiling.wgsl"));
const WG: u32 = 256;

/// The ceiling's source, for the shader tests.
pub(crate) fn ceiling_shader() -> Shader {
    CEILING
}

impl Gpu {
    /// Run `groups` workgroups of 256 invocations, each doing `iterations` steps of eight FMA
    /// chains, writing one float per invocation into `sink` (`groups × 256` long, so that the
    /// work cannot be dropped). FLOPs: `groups × 256 × iterations × 16`.
    pub async fn fma_ceiling_async(
        &self,
        sink: &DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> Result<Timing> {
        if sink.len() < groups as usize * WG as usize {
            return Err(crate::Error::mismatch(
                "FMA ceiling sink length",
                groups as usize * WG as usize,
                sink.len(),
            ));
        }
        let params = self.uniform(&[iterations, groups, 0.999_999f32.to_bits(), 0]);
        self.launch(
            &CEILING,
            "fma_chains",
            &[("WG".into(), WG as f64)],
            &[(0, sink.bind()), (1, params.bind())],
            groups as u64,
        )
        .await
    }

    /// Blocking [`Gpu::fma_ceiling_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn fma_ceiling(
        &self,
        sink: &DeviceBuffer<f32>,
        groups: u32,
        iterations: u32,
    ) -> Result<Timing> {
        crate::gpu::block_on(self.fma_ceiling_async(sink, groups, iterations))
    }
}
