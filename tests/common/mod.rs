//! Shared by the integration tests: one `Gpu` per test binary (opening lavapipe is slow), seeded
//! random inputs and the error bounds of docs/measuring.md.
#![allow(dead_code)]

pub mod f16;
pub mod npy;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::OnceLock;
use tilekit::{Gpu, GpuOptions};

/// The test GPU, with every output poisoned before a kernel runs. A test that needs an adapter
/// fails when none is found; it never skips.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        // The planner's choices, not whatever `tilekit tune` left in this user's cache.
        std::env::set_var(
            "TILEKIT_CACHE_DIR",
            std::env::temp_dir().join("tilekit-tests-without-a-tuning-cache"),
        );
        match Gpu::with_options(GpuOptions {
            poison_outputs: true,
            ..Default::default()
        })
        .wait()
        {
            Ok(g) => {
                // CI runs the suite once per backend: make sure it ran on the one it asked for.
                if let Ok(want) = std::env::var("WGPU_BACKEND") {
                    assert!(
                        g.summary.backend.eq_ignore_ascii_case(want.trim())
                            || (want.trim() == "gl" && g.summary.backend == "Gl"),
                        "WGPU_BACKEND={want} but the tests opened {} on {}",
                        g.summary.name,
                        g.summary.backend
                    );
                }
                eprintln!("tests on {} ({})", g.summary.name, g.summary.backend);
                g
            }
            Err(e) => panic!("these tests need a GPU adapter (lavapipe counts): {e}"),
        }
    })
}

/// Uniform f32 in [-1, 1) from a fixed seed.
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// Uniform integers in `lo..hi` from a fixed seed.
pub fn random_i32(len: usize, seed: u64, lo: i32, hi: i32) -> Vec<i32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.random_range(lo..hi)).collect()
}

/// Uniform u32 from a fixed seed.
pub fn random_u32(len: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.random()).collect()
}

/// The planner for an H100 (its measured limits and the hopper profile), for tests of pure
/// planning: nothing is launched.
pub fn hopper_planner() -> tilekit::Planner {
    tilekit::Planner::new(
        tilekit::Limits::preset("h100").unwrap(),
        tilekit::DeviceProfile::named("hopper").unwrap(),
    )
}

/// The JSON a `tilekit` command printed, after checking that it succeeded (its stderr is the
/// failure's message).
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// A block labelled `BMxBNxBK` (the pipelined and cooperative kernels'), as a typed tile.
pub fn block(label: &str) -> tilekit::plan::Tile {
    let d: Vec<u32> = label.split('x').map(|x| x.parse().unwrap()).collect();
    tilekit::plan::Tile::block(d[0], d[1], d[2])
}

/// A hand-written adapter's matmul properties: its cooperative-matrix configurations and
/// subgroup sizes.
pub fn caps(
    coop: Vec<tilekit::gpu::CoopConfig>,
    subgroup_sizes: [u32; 2],
) -> tilekit::kernels::matmul::Caps {
    tilekit::kernels::matmul::Caps {
        coop,
        subgroup_sizes,
        adapter: "test adapter".into(),
    }
}

/// The 4096³ square the f16 tests plan and run.
pub const SQUARE: tilekit::kernels::matmul::Shape = tilekit::kernels::matmul::Shape {
    m: 4096,
    k: 4096,
    n: 4096,
};
