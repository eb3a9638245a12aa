//! The shapes each exercise is traced at (`crate::trace`) before it runs on the GPU: small,
//! ragged, and with more than one workgroup, so that a race inside a workgroup, a race between
//! workgroups and an index past the edge all happen. The buffers are those the library's host
//! code binds, with the same parameters; outputs start poisoned.

use crate::trace::{Binding, Setup};

/// One traced shape.
pub struct TraceCase {
    /// As the answer names it.
    pub shape: String,
    /// What the tracer runs.
    pub setup: Setup,
}

/// A poisoned output word: a NaN no kernel computes.
pub const POISON: u32 = 0x7fc0_dead;

fn words(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn buffer(binding: u32, words: Vec<u32>) -> Binding {
    Binding {
        group: 0,
        binding,
        words,
    }
}

/// The tiled matmul (`tiled`, TILE=16) at M×K×N: A, B, poisoned C and the parameters.
pub fn matmul(m: u32, k: u32, n: u32) -> TraceCase {
    let tile = 16;
    let (tiles_x, tiles_y) = (n.div_ceil(tile), m.div_ceil(tile));
    let a = tilekit::random::uniform_f32((m * k) as usize, 1);
    let b = tilekit::random::uniform_f32((k * n) as usize, 2);
    TraceCase {
        shape: format!("{m}×{k}×{n} (TILE=16)"),
        setup: Setup {
            entry: "tiled".into(),
            overrides: vec![("TILE".into(), tile as f64)],
            workgroups: [tiles_x, tiles_y, 1],
            bindings: vec![
                buffer(0, words(&a)),
                buffer(1, words(&b)),
                buffer(2, vec![POISON; (m * n) as usize]),
                buffer(3, vec![m, k, n, tiles_x]),
            ],
        },
    }
}

/// The dynamic reverse of N in one workgroup of N.
pub fn reverse(n: u32) -> TraceCase {
    TraceCase {
        shape: format!("N={n}"),
        setup: Setup {
            entry: "dynamic_reverse".into(),
            overrides: vec![("N".into(), n as f64)],
            workgroups: [1, 1, 1],
            bindings: vec![buffer(0, (0..n).map(|i| i * 7 + 3).collect())],
        },
    }
}

/// The workgroup-memory reduction tree over n floats (256 per workgroup).
pub fn reduce(n: u32) -> TraceCase {
    let groups = n.div_ceil(256);
    let data: Vec<f32> = tilekit::random::uniform_f32(n as usize, 4)
        .iter()
        .map(|x| (x * 100.0).round())
        .collect();
    TraceCase {
        shape: format!("n={n}"),
        setup: Setup {
            entry: "workgroup_tree".into(),
            overrides: vec![],
            workgroups: [groups, 1, 1],
            bindings: vec![
                buffer(0, words(&data)),
                buffer(1, vec![POISON; groups as usize]),
                buffer(2, vec![n, groups, 0, 0]),
            ],
        },
    }
}

/// The padded transpose of a rows×cols matrix (TILE=32, ROWS=8).
pub fn transpose(rows: u32, cols: u32) -> TraceCase {
    let tiles_x = cols.div_ceil(32);
    TraceCase {
        shape: format!("{rows}×{cols} (TILE=32)"),
        setup: Setup {
            entry: "padded".into(),
            overrides: vec![("TILE".into(), 32.0), ("ROWS".into(), 8.0)],
            workgroups: [tiles_x, rows.div_ceil(32), 1],
            bindings: vec![
                buffer(0, (0..rows * cols).collect()),
                buffer(1, vec![POISON; (rows * cols) as usize]),
                buffer(2, vec![rows, cols, tiles_x, 0]),
            ],
        },
    }
}

/// The workgroup-atomics histogram of n bytes (packed four per word) over `groups` workgroups.
pub fn histogram(n: u32, groups: u32) -> TraceCase {
    let bytes: Vec<u8> = tilekit::random::uniform_f32(n as usize, 6)
        .iter()
        .map(|x| ((x + 1.0) * 127.9) as u8)
        .collect();
    TraceCase {
        shape: format!("{n} bytes, {groups} workgroups"),
        setup: Setup {
            entry: "workgroup_atomics".into(),
            overrides: vec![("WG".into(), 256.0)],
            workgroups: [groups, 1, 1],
            bindings: vec![
                buffer(0, tilekit::kernels::histogram::pack_bytes(&bytes)),
                buffer(1, vec![0; 256]),
                buffer(2, vec![n, groups, 0, 0]),
            ],
        },
    }
}
