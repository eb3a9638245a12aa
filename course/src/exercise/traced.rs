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
    /// For an exercise with no library kernel: the output buffer the CPU reference gives, which
    /// the trace and then the run on the adapter must leave.
    pub expect: Option<Expected>,
}

/// An output the traced kernel must leave, exactly (the inputs are whole numbers, so every sum
/// is exact in f32).
pub struct Expected {
    /// Its binding (group 0).
    pub binding: u32,
    /// Its words.
    pub words: Vec<u32>,
    /// Whether they are f32 (compared as numbers, and printed so).
    pub float: bool,
}

impl Expected {
    /// The first element of `got` that differs.
    pub fn first_difference(&self, got: &[u32]) -> Option<super::Mismatch> {
        let show = |w: u32| {
            if self.float {
                format!("{}", f32::from_bits(w))
            } else {
                w.to_string()
            }
        };
        let same = |a: u32, b: u32| {
            if self.float {
                f32::from_bits(a) == f32::from_bits(b)
            } else {
                a == b
            }
        };
        (0..self.words.len()).find_map(|i| match got.get(i) {
            Some(&g) if same(g, self.words[i]) => None,
            g => Some(super::Mismatch {
                index: i,
                expected: show(self.words[i]),
                got: g.map(|g| show(*g)).unwrap_or_else(|| "missing".into()),
            }),
        })
    }
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
        expect: None,
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
        expect: None,
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
        expect: None,
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
        expect: None,
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
        expect: None,
    }
}

/// Whole numbers in [0, 100) as f32: sums of a few thousand are exact.
fn whole(n: u32, seed: u64) -> Vec<f32> {
    tilekit::random::uniform_f32(n as usize, seed)
        .iter()
        .map(|x| ((x + 1.0) * 50.0).floor())
        .collect()
}

/// conflict-free-transpose: a rows×cols transpose through 32×32 tiles.
pub fn plain_transpose(rows: u32, cols: u32) -> TraceCase {
    let want: Vec<u32> = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| r * cols + c))
        .collect();
    TraceCase {
        shape: format!("{rows}×{cols}"),
        setup: Setup {
            entry: "transpose".into(),
            overrides: vec![],
            workgroups: [cols.div_ceil(32), rows.div_ceil(32), 1],
            bindings: vec![
                buffer(0, (0..rows * cols).collect()),
                buffer(1, vec![POISON; (rows * cols) as usize]),
                buffer(2, vec![rows, cols, 0, 0]),
            ],
        },
        expect: Some(Expected {
            binding: 1,
            words: want,
            float: false,
        }),
    }
}

/// contiguous-reduction: one sum per workgroup of 256.
pub fn block_sums(n: u32) -> TraceCase {
    let data = whole(n, 11);
    let groups = n.div_ceil(256);
    let want: Vec<u32> = data
        .chunks(256)
        .map(|c| c.iter().map(|x| *x as f64).sum::<f64>() as f32)
        .map(f32::to_bits)
        .collect();
    TraceCase {
        shape: format!("n={n}"),
        setup: Setup {
            entry: "reduce".into(),
            overrides: vec![],
            workgroups: [groups, 1, 1],
            bindings: vec![
                buffer(0, words(&data)),
                buffer(1, vec![POISON; groups as usize]),
                buffer(2, vec![n, 0, 0, 0]),
            ],
        },
        expect: Some(Expected {
            binding: 1,
            words: want,
            float: true,
        }),
    }
}

/// halo-stencil: sums of 2R + 1 = 5 neighbours (0 outside), workgroups of 64.
pub fn stencil(n: u32) -> TraceCase {
    let data = whole(n, 12);
    let r = 2i64;
    let want: Vec<u32> = (0..n as i64)
        .map(|i| {
            (i - r..=i + r)
                .filter(|j| *j >= 0 && *j < n as i64)
                .map(|j| data[j as usize] as f64)
                .sum::<f64>() as f32
        })
        .map(f32::to_bits)
        .collect();
    TraceCase {
        shape: format!("n={n}"),
        setup: Setup {
            entry: "stencil".into(),
            overrides: vec![],
            workgroups: [n.div_ceil(64), 1, 1],
            bindings: vec![
                buffer(0, words(&data)),
                buffer(1, vec![POISON; n as usize]),
                buffer(2, vec![n, 0, 0, 0]),
            ],
        },
        expect: Some(Expected {
            binding: 1,
            words: want,
            float: true,
        }),
    }
}

/// blelloch-scan: exclusive sums of `blocks` blocks of 128.
pub fn scan(blocks: u32) -> TraceCase {
    let n = blocks * 128;
    let data: Vec<u32> = whole(n, 13).iter().map(|x| *x as u32).collect();
    let want: Vec<u32> = data
        .chunks(128)
        .flat_map(|c| {
            c.iter()
                .scan(0u32, |acc, x| {
                    let before = *acc;
                    *acc += x;
                    Some(before)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    TraceCase {
        shape: format!("{blocks} blocks of 128"),
        setup: Setup {
            entry: "scan".into(),
            overrides: vec![],
            workgroups: [blocks, 1, 1],
            bindings: vec![buffer(0, data), buffer(1, vec![POISON; n as usize])],
        },
        expect: Some(Expected {
            binding: 1,
            words: want,
            float: false,
        }),
    }
}
