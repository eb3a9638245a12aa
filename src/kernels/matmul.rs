//! Matrix multiply (PMPP 4.2–4.6): naive, tiled in workgroup memory, register-blocked.
//! Shader: `shaders/matmul.wgsl`. Tests: `tests/matmul.rs`. Example: `examples/02_tiled_matmul.rs`.

use crate::buffer::DeviceBuffer;
use crate::launch::Timing;
use crate::pipeline::Shader;
use crate::plan::{Kernel, Plan};
use crate::{Error, Gpu, Result};
use serde::Serialize;

const SHADER: Shader = Shader::file("matmul", include_str!("../../shaders/matmul.wgsl"));
/// The naive kernel's fixed 16×16 workgroup (`NAIVE` in the shader).
const NAIVE: u32 = 16;

crate::kernels::named_enum! {
    /// Which kernel computes the product.
    pub enum Variant ("matmul variant") {
        /// One invocation per element, everything from global memory (fig 4.3).
        Naive => "naive",
        /// TILE×TILE workgroup tiles, two barriers per phase (figs 4.16, 4.20).
        Tiled => "tiled",
        /// BM×BN block per workgroup, TM×TN register tile per invocation.
        Blocked => "blocked",
    }
}

/// A checked problem shape: A is m×k, B is k×n, C is m×n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Columns of B and C.
    pub n: u32,
}

impl Shape {
    /// Check sizes: each at least 1, and every matrix addressable with u32 indices.
    pub fn new(m: usize, k: usize, n: usize) -> Result<Shape> {
        for (name, v) in [("M", m), ("K", k), ("N", n)] {
            if v == 0 {
                return Err(Error::zero(format!("matmul dimension {name}")));
            }
        }
        for (name, r, c) in [("A", m, k), ("B", k, n), ("C", m, n)] {
            let elems = r.checked_mul(c).filter(|&e| e <= u32::MAX as usize / 4);
            if elems.is_none() {
                return Err(Error::SizeOverflow {
                    what: format!("matrix {name}"),
                    detail: format!("{r}×{c} elements do not fit 32-bit byte offsets"),
                });
            }
        }
        let u = |v: usize| v as u32; // checked above: each dimension <= u32::MAX / 4
        Ok(Shape {
            m: u(m),
            k: u(k),
            n: u(n),
        })
    }

    /// 2·M·N·K.
    pub fn flops(&self) -> u64 {
        2 * self.m as u64 * self.n as u64 * self.k as u64
    }
}

/// What one run did: the analytical counts of PMPP 4.2 next to the measured time.
#[derive(Clone, Debug, Serialize)]
pub struct MatmulRun {
    /// The kernel.
    pub variant: Variant,
    /// The problem.
    pub shape: Shape,
    /// The tile the run used (`16x16` for naive, `TILE=16`, `128x128x16/8x8`).
    pub tile: String,
    /// The planner's analysis (absent for naive, which has no tile to choose).
    pub plan: Option<Plan>,
    /// 2·M·N·K.
    pub flops: u64,
    /// Floats loaded from global memory, as the kernel is written (each workgroup loads its band
    /// of A once per block column and its band of B once per block row).
    pub global_loads: u64,
    /// Bytes loaded and stored: 4 × (loads + M·N).
    pub global_bytes: u64,
    /// Compute-to-global-memory-access ratio, FLOPs per float loaded (PMPP 4.2: 1.0 for naive).
    pub ratio: f64,
    /// The measured time.
    pub timing: Timing,
}

impl MatmulRun {
    /// GFLOP/s.
    pub fn gflops(&self) -> f64 {
        self.flops as f64 / self.timing.seconds / 1e9
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    k: u32,
    n: u32,
    tiles_x: u32,
}

/// The launch for one variant: pipeline constants, tile size and dispatch.
struct Launch {
    constants: Vec<(String, f64)>,
    tile: String,
    block: (u32, u32),
    plan: Option<Plan>,
}

impl Gpu {
    fn matmul_launch(&self, shape: Shape, variant: Variant, tile: Option<&str>) -> Result<Launch> {
        let planner = self.planner();
        let from_plan = |kernel: Kernel, rows: &str, cols: &str| -> Result<Launch> {
            let plan = match tile {
                Some(t) => planner.plan_forced(kernel, t)?,
                None => planner.plan(kernel)?,
            };
            Ok(Launch {
                constants: plan.constants(),
                tile: plan.choice().label.clone(),
                block: (plan.constant(rows), plan.constant(cols)),
                plan: Some(plan),
            })
        };
        let Shape { m, k, n } = shape;
        match variant {
            Variant::Naive => {
                let usage = crate::plan::KernelUse {
                    invocations: NAIVE * NAIVE,
                    workgroup_bytes: 0,
                    registers: 12,
                };
                planner.check("naive matmul 16x16", [NAIVE, NAIVE, 1], usage)?;
                Ok(Launch {
                    constants: vec![],
                    tile: "16x16".into(),
                    block: (NAIVE, NAIVE),
                    plan: None,
                })
            }
            Variant::Tiled => from_plan(Kernel::TiledMatmul { m, k, n }, "TILE", "TILE"),
            Variant::Blocked => from_plan(Kernel::BlockedMatmul { m, k, n }, "BM", "BN"),
        }
    }

    /// The variant [`Gpu::matmul`] uses: the fastest that fits this adapter (register-blocked,
    /// which was the fastest on lavapipe and on the H100 alike; see BENCHMARKS.md).
    pub fn default_matmul_variant(&self, shape: Shape) -> Variant {
        [Variant::Blocked, Variant::Tiled, Variant::Naive]
            .into_iter()
            .find(|v| self.matmul_launch(shape, *v, None).is_ok())
            .unwrap_or(Variant::Naive)
    }

    /// C = A·B on device buffers (no readback), writing `c`. `tile` forces a planner candidate
    /// by label (e.g. `TILE=8`); `None` lets the planner choose.
    pub fn matmul_on_device(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &DeviceBuffer<f32>,
        shape: Shape,
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<MatmulRun> {
        let Shape { m, k, n } = shape;
        let want = |what: &str, buf_len: usize, r: u32, cols: u32| {
            let expected = r as usize * cols as usize;
            if buf_len != expected {
                return Err(Error::mismatch(
                    format!("matrix {what} length for {r}×{cols}"),
                    expected,
                    buf_len,
                ));
            }
            Ok(())
        };
        want("A", a.len(), m, k)?;
        want("B", b.len(), k, n)?;
        want("C", c.len(), m, n)?;
        let launch = self.matmul_launch(shape, variant, tile)?;
        let (bm, bn) = launch.block;
        let tiles_x = n.div_ceil(bn);
        let tiles_y = m.div_ceil(bm);
        // 128-bit loads where every row of A and B starts on a 16-byte boundary.
        let vec4 = variant == Variant::Blocked && k % 4 == 0 && n % 4 == 0;
        let entry = if vec4 { "blocked_vec4" } else { variant.name() };
        let params = self.uniform(&Params { m, k, n, tiles_x });
        let (a_at, b_at) = if vec4 { (4, 5) } else { (0, 1) };
        let timing = self.launch(
            &SHADER,
            entry,
            &launch.constants,
            &[(a_at, a.raw()), (b_at, b.raw()), (2, c.raw()), (3, &params)],
            tiles_x as u64 * tiles_y as u64,
        )?;
        // The naive kernel reads a row of A and a column of B for every element of C; the others
        // read A once per block column and B once per block row.
        let (reads_a, reads_b) = match variant {
            Variant::Naive => (n as u64, m as u64),
            _ => (tiles_x as u64, tiles_y as u64),
        };
        let global_loads = m as u64 * k as u64 * reads_a + k as u64 * n as u64 * reads_b;
        Ok(MatmulRun {
            variant,
            shape,
            tile: if vec4 {
                format!("{} vec4", launch.tile)
            } else {
                launch.tile
            },
            plan: launch.plan,
            flops: shape.flops(),
            global_loads,
            global_bytes: 4 * (global_loads + m as u64 * n as u64),
            ratio: shape.flops() as f64 / global_loads as f64,
            timing,
        })
    }

    /// C = A·B for row-major host slices with a chosen variant; returns C and the run's figures.
    pub fn matmul_with(
        &self,
        a: &[f32],
        b: &[f32],
        (m, k, n): (usize, usize, usize),
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<(Vec<f32>, MatmulRun)> {
        let shape = Shape::new(m, k, n)?;
        if a.len() != m * k {
            return Err(Error::mismatch(
                format!("A length for {m}×{k}"),
                m * k,
                a.len(),
            ));
        }
        if b.len() != k * n {
            return Err(Error::mismatch(
                format!("B length for {k}×{n}"),
                k * n,
                b.len(),
            ));
        }
        self.check_buffer::<f32>("matrix C", m * n)?;
        let da = self.upload("matrix A", a)?;
        let db = self.upload("matrix B", b)?;
        let dc = self.alloc::<f32>("matrix C", m * n)?;
        let run = self.matmul_on_device(&da, &db, &dc, shape, variant, tile)?;
        Ok((self.read(&dc)?, run))
    }

    /// C = A·B for row-major host slices (A m×k, B k×n), with the fastest variant that fits.
    pub fn matmul(&self, a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Result<Vec<f32>> {
        let variant = self.default_matmul_variant(Shape::new(m, k, n)?);
        Ok(self.matmul_with(a, b, (m, k, n), variant, None)?.0)
    }
}

/// The CPU reference in f64: C = A·B, and for each element Σ|A_ik·B_kj| (for error bounds).
pub fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0f64; m * n];
    let mut mag = vec![0.0f64; m * n];
    for i in 0..m {
        for kk in 0..k {
            let av = a[i * k + kk] as f64;
            let row = &b[kk * n..kk * n + n];
            for j in 0..n {
                let p = av * row[j] as f64;
                c[i * n + j] += p;
                mag[i * n + j] += p.abs();
            }
        }
    }
    (c, mag)
}

/// Compare a GPU result with [`reference`]: |gpu − exact| ≤ 1e-5·√K·Σ|a·b| + 1e-30 per element
/// (DESIGN.md "Measuring"). Returns the first failure.
pub fn verify(c: &[f32], exact: &[f64], magnitude: &[f64], k: usize) -> Result<()> {
    let tol = 1e-5 * (k as f64).sqrt();
    for (i, ((&g, &e), &mag)) in c.iter().zip(exact).zip(magnitude).enumerate() {
        let err = (g as f64 - e).abs();
        // NaN (a poisoned element left unwritten) fails too.
        if err.is_nan() || err > tol * mag + 1e-30 {
            return Err(Error::Verification {
                what: "matmul".into(),
                detail: format!(
                    "element {i}: got {g}, expected {e} (error {err:e}, bound {:e})",
                    tol * mag
                ),
            });
        }
    }
    if c.len() != exact.len() {
        return Err(Error::mismatch("result length", exact.len(), c.len()));
    }
    Ok(())
}

/// [`verify`] on `samples` elements of C chosen from a fixed seed, for sizes where the full f64
/// reference is too slow (the bench and the tour at GPU sizes).
pub fn verify_sampled(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    (m, k, n): (usize, usize, usize),
    samples: usize,
) -> Result<()> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for _ in 0..samples {
        let (i, j) = (rng.random_range(0..m), rng.random_range(0..n));
        let (mut e, mut mag) = (0.0f64, 0.0f64);
        for kk in 0..k {
            let p = a[i * k + kk] as f64 * b[kk * n + j] as f64;
            e += p;
            mag += p.abs();
        }
        verify(&c[i * n + j..i * n + j + 1], &[e], &[mag], k).map_err(|_| Error::Verification {
            what: "matmul".into(),
            detail: format!("C[{i}][{j}] = {}, expected {e}", c[i * n + j]),
        })?;
    }
    Ok(())
}
