//! The exercises: each one's starter, solution, hints, the shapes that catch its classic
//! mistakes (each run against its CPU reference) and its speed case. The checker that runs them is
//! the parent module.

use super::traced;
use super::{Case, Exercise, Mismatch, Runner};
use std::rc::Rc;
use tilekit::kernels::matmul::{self, Variant as Mm};
use tilekit::kernels::{histogram, reduce, transpose};
use tilekit::{Gpu, Result};

/// Every exercise.
pub fn exercises() -> Vec<Exercise> {
    vec![
        Exercise {
            name: "tiled-matmul",
            task: "put back the two barriers of the tiled matmul (PMPP fig 4.16)",
            starter: "course/exercises/tiled-matmul.wgsl",
            starter_source: include_str!("../../exercises/tiled-matmul.wgsl"),
            solution: "shaders/matmul.wgsl",
            solution_source: tilekit::shaders::MATMUL,
            module: "matmul",
            aligned_hint: "wrong where the shape is a multiple of the tile, with both barriers in place, so not a race: check the inner loop runs over the whole tile, kk = 0, 1, ..., TILE - 1 (kk < TILE), reading mds[ty * TILE + kk] and nds[kk * TILE + tx] (fig 4.16)",
            edge_hint: "only a ragged shape fails: load 0.0 outside the matrix and store only inside it (fig 4.20)",
            traces: || vec![traced::matmul(33, 47, 29), traced::matmul(32, 32, 32)],
            cases: |_| {
                vec![
                    matmul_case(32, 32, 32, true),
                    matmul_case(48, 64, 80, true),
                    matmul_case(33, 47, 29, false),
                ]
            },
            speed: Some(|g| Box::pin(matmul_speed(g, if g.is_cpu() { 96 } else { 1024 }))),
        },
        Exercise {
            name: "matmul-bounds",
            task: "make the tiled matmul right for any M×K×N: boundary checks (PMPP fig 4.20)",
            starter: "course/exercises/matmul-bounds.wgsl",
            starter_source: include_str!("../../exercises/matmul-bounds.wgsl"),
            solution: "shaders/matmul.wgsl",
            solution_source: tilekit::shaders::MATMUL,
            module: "matmul",
            aligned_hint: "wrong even where the shape is a multiple of the tile: check the tile's index arithmetic (row·K + phase·TILE + tx for A, (phase·TILE + ty)·N + col for B)",
            edge_hint: "right on multiples of the tile, wrong on a ragged shape: an off-by-one or a missing bounds check at the edge. Load 0.0 where row ≥ M or the k index ≥ K (A), k ≥ K or col ≥ N (B), and store only where row < M and col < N: past the end of a row, C's next row begins (fig 4.20)",
            traces: || vec![traced::matmul(33, 47, 29), traced::matmul(17, 16, 15), traced::matmul(1, 5, 3)],
            cases: |_| {
                vec![
                    matmul_case(32, 32, 32, true),
                    matmul_case(33, 47, 29, false),
                    matmul_case(1, 5, 3, false),
                    matmul_case(17, 16, 15, false),
                ]
            },
            speed: Some(|g| Box::pin(matmul_speed(g, if g.is_cpu() { 96 } else { 1024 }))),
        },
        Exercise {
            name: "dynamic-reverse",
            task: "finish the dynamic reverse: a workgroup array sized by an override constant (Harris, dynamicReverse)",
            starter: "course/exercises/dynamic-reverse.wgsl",
            starter_source: include_str!("../../exercises/dynamic-reverse.wgsl"),
            solution: "shaders/reverse.wgsl",
            solution_source: tilekit::shaders::REVERSE,
            module: "reverse",
            aligned_hint: "element t of the result must be element N - 1 - t of the input: read the mirrored element of the workgroup array after the barrier",
            edge_hint: "only some sizes fail: the array is N long, so the mirror of t is N - 1 - t, not N - t",
            // The largest ragged N one workgroup holds here: 1000, or one under the adapter's
            // invocation limit (255 under WebGPU's default 256).
            traces: || vec![traced::reverse(64), traced::reverse(100)],
            cases: |g| {
                let most = g.limits().max_compute_invocations_per_workgroup as usize;
                vec![reverse_case(64), reverse_case(1000.min(most - 1)), reverse_case(1)]
            },
            speed: Some(|g| {
                Box::pin(async move {
                    // One workgroup's worth, 1,024 words at most: the upload of each run is small
                    // beside its launch.
                    let most = g.limits().max_compute_invocations_per_workgroup.min(1024);
                    let data: Rc<Vec<u32>> = Rc::new((0..most).collect());
                    let run: Runner = Box::new(move || {
                        let data = data.clone();
                        Box::pin(async move {
                            Ok(g.reverse(&data, tilekit::kernels::reverse::Variant::Dynamic).await?.1.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            }),
        },
        Exercise {
            name: "reduction-tree",
            task: "the workgroup-memory reduction tree (reduceSmem, Professional CUDA C Programming §5.3): one line is missing",
            starter: "course/exercises/reduction-tree.wgsl",
            starter_source: include_str!("../../exercises/reduction-tree.wgsl"),
            solution: "shaders/reduce.wgsl",
            solution_source: tilekit::shaders::REDUCE,
            module: "reduce<f32>",
            aligned_hint: "a sum comes out wrong with the barrier in place: check the tree's step, each invocation below s adds its partner s places away (s halving from WG / 2 down to 1)",
            edge_hint: "only a length that is not a multiple of 256 fails: invocations past the end must contribute the identity (0 for a sum), not read past the input",
            traces: || vec![traced::reduce(1000)],
            cases: |_| vec![reduce_case(256 * 16, true), reduce_case(1000, false)],
            speed: Some(|g| {
                Box::pin(async move {
                    let data = whole_floats(if g.is_cpu() { 1 << 16 } else { 1 << 24 }, 5);
                    let input = Rc::new(g.upload("reduce input", &data).await?);
                    let run: Runner = Box::new(move || {
                        let input = input.clone();
                        Box::pin(async move {
                            let (_, run) = g
                                .reduce_with(
                                    &*input,
                                    reduce::Op::Sum,
                                    reduce::Variant::Workgroup,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            }),
        },
        Exercise {
            name: "padded-transpose",
            task: "the transpose through a tile padded to TILE + 1 words per row (CUDA Handbook 8.1): fix the read from the tile",
            starter: "course/exercises/padded-transpose.wgsl",
            starter_source: include_str!("../../exercises/padded-transpose.wgsl"),
            solution: "shaders/transpose.wgsl",
            solution_source: tilekit::shaders::TRANSPOSE,
            module: "transpose",
            aligned_hint: "the output is not the transpose: the tile is stored by rows, so the transposed element of invocation (x, y + j) is read down a column, tile_padded[x · (TILE + 1) + y + j]",
            edge_hint: "right on multiples of the tile, wrong on a ragged matrix: check the bounds of the store (out_r < cols, out_c < rows)",
            traces: || vec![traced::transpose(33, 70)],
            cases: |_| vec![transpose_case(64, 64, true), transpose_case(33, 70, false)],
            speed: Some(|g| {
                Box::pin(async move {
                    let n = if g.is_cpu() { 256 } else { 4096 };
                    let data: Vec<u32> = (0..(n * n) as u32).collect();
                    let io = Rc::new((
                        g.upload("transpose input", &data).await?,
                        g.alloc::<u32>("transposed", n * n).await?,
                    ));
                    let run: Runner = Box::new(move || {
                        let io = io.clone();
                        Box::pin(async move {
                            let run = g
                                .transpose_on_device(
                                    &io.0,
                                    &io.1,
                                    (n, n),
                                    transpose::Variant::Padded,
                                    None,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            }),
        },
        Exercise {
            name: "histogram",
            task: "the 256-bin histogram with workgroup atomics (CUDA Handbook 8.1): the merge into the global bins",
            starter: "course/exercises/histogram.wgsl",
            starter_source: include_str!("../../exercises/histogram.wgsl"),
            solution: "shaders/histogram.wgsl",
            solution_source: tilekit::shaders::HISTOGRAM,
            module: "histogram",
            aligned_hint: "counts are lost: a race between workgroups. Each workgroup must add its counts to the global bins (atomicAdd), not store them over another workgroup's",
            edge_hint: "only a length that is not a multiple of the workgroup fails: stop at n",
            traces: || vec![traced::histogram(1001, 2)],
            cases: |_| vec![histogram_case(1 << 18, true), histogram_case(1001, false)],
            speed: Some(|g| {
                Box::pin(async move {
                    let data = bytes(if g.is_cpu() { 1 << 18 } else { 1 << 26 }, 9);
                    let words = Rc::new(
                        g.upload("histogram input", &histogram::pack_bytes(&data))
                            .await?,
                    );
                    let n = data.len();
                    let run: Runner = Box::new(move || {
                        let words = words.clone();
                        Box::pin(async move {
                            let (_, run) = g
                                .histogram_on_device(
                                    &words,
                                    histogram::Values::U8(n),
                                    histogram::Variant::Workgroup,
                                )
                                .await?;
                            Ok(run.timing.seconds)
                        })
                    });
                    Ok(run)
                })
            }),
        },
        Exercise {
            name: "conflict-free-transpose",
            task: "make the tiled transpose's read down a column conflict-free: the target is a count of bank passes (CUDA Handbook 8.1)",
            starter: "course/exercises/conflict-free-transpose.wgsl",
            starter_source: include_str!("../../exercises/conflict-free-transpose.wgsl"),
            solution: "course/exercises/solutions/conflict-free-transpose.wgsl",
            solution_source: include_str!("../../exercises/solutions/conflict-free-transpose.wgsl"),
            module: "conflict-free-transpose",
            aligned_hint: "the output is not the transpose: element (r, c) of the input goes to (c, r); if you changed the tile's row length, change it in both the store and the read",
            edge_hint: "only a ragged matrix fails: keep the bounds checks of the load and the store",
            traces: || vec![traced::plain_transpose(33, 70)],
            cases: |_| Vec::new(),
            speed: None,
        },
        Exercise {
            name: "contiguous-reduction",
            task: "the reduction tree with its active invocations contiguous, so that whole warps work or rest (Harris, reduction kernel 3)",
            starter: "course/exercises/contiguous-reduction.wgsl",
            starter_source: include_str!("../../exercises/contiguous-reduction.wgsl"),
            solution: "course/exercises/solutions/contiguous-reduction.wgsl",
            solution_source: include_str!("../../exercises/solutions/contiguous-reduction.wgsl"),
            module: "contiguous-reduction",
            aligned_hint: "a workgroup's sum is wrong: at step s each invocation lid < s adds sums[lid + s] into sums[lid], s = WG / 2, WG / 4, …, 1, with a barrier after each step",
            edge_hint: "only the last, partial workgroup is wrong: invocations past n contribute 0",
            traces: || vec![traced::block_sums(1000)],
            cases: |_| Vec::new(),
            speed: None,
        },
        Exercise {
            name: "halo-stencil",
            task: "a 1-D stencil through workgroup memory: load the halo cells (PMPP ch. 7)",
            starter: "course/exercises/halo-stencil.wgsl",
            starter_source: include_str!("../../exercises/halo-stencil.wgsl"),
            solution: "course/exercises/solutions/halo-stencil.wgsl",
            solution_source: include_str!("../../exercises/solutions/halo-stencil.wgsl"),
            module: "halo-stencil",
            aligned_hint: "an output is wrong: output[i] is the sum of input[i - R] … input[i + R], which sit in cells[t] … cells[t + 2R]; the halo is cells[t] from block - R + t and cells[R + WG + t] from block + WG + t, for t < R",
            edge_hint: "only the ends are wrong: cells outside the array are 0.0 (load does that)",
            traces: || vec![traced::stencil(150)],
            cases: |_| Vec::new(),
            speed: None,
        },
        Exercise {
            name: "blelloch-scan",
            task: "the work-efficient exclusive scan (Blelloch; GPU Gems 3 ch. 39): put in the barriers the tree needs",
            starter: "course/exercises/blelloch-scan.wgsl",
            starter_source: include_str!("../../exercises/blelloch-scan.wgsl"),
            solution: "course/exercises/solutions/blelloch-scan.wgsl",
            solution_source: include_str!("../../exercises/solutions/blelloch-scan.wgsl"),
            module: "blelloch-scan",
            aligned_hint: "a sum is wrong with no race: check the tree's indices, ai = offset·(2t + 1) − 1 and bi = offset·(2t + 2) − 1, the root cleared between the sweeps, and the down-sweep's swap (temp[ai] takes temp[bi], temp[bi] adds the old temp[ai])",
            edge_hint: "only the second block is wrong: each workgroup scans its own block, from base = workgroup · N",
            traces: || vec![traced::scan(2)],
            cases: |_| Vec::new(),
            speed: None,
        },
    ]
}

fn first_difference<T: PartialEq + std::fmt::Display>(got: &[T], want: &[T]) -> Option<Mismatch> {
    if got.len() != want.len() {
        return Some(Mismatch {
            index: got.len().min(want.len()),
            expected: format!("{} elements", want.len()),
            got: format!("{} elements", got.len()),
        });
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| Mismatch {
            index: i,
            expected: want[i].to_string(),
            got: got[i].to_string(),
        })
}

/// The lesson's tiled kernel at TILE=16, whatever the planner would pick: the starter's shapes
/// are chosen against it.
fn tile16() -> matmul::Selection {
    matmul::Selection::Forced {
        variant: Mm::TILED,
        tile: tilekit::plan::Tile::square(16),
    }
}

fn matmul_case(m: usize, k: usize, n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{m}×{k}×{n} (TILE=16)"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let a = tilekit::random::uniform_f32(m * k, 1);
                let b = tilekit::random::uniform_f32(k * n, 2);
                let (c, _) = g.matmul(&a, &b, (m, k, n), &tile16()).await?;
                let (exact, mag) = matmul::reference(&a, &b, m, k, n);
                Ok(c.iter().enumerate().find_map(|(i, &v)| {
                    let bound = matmul::f32_bound(k, mag[i]);
                    let err = (v as f64 - exact[i]).abs();
                    (err.is_nan() || err > bound).then(|| Mismatch {
                        index: i,
                        expected: format!("{:.6}", exact[i]),
                        got: format!("{v:.6}"),
                    })
                }))
            })
        }),
    }
}

/// The matmul exercises' speed case: A·A at n³ on device buffers, at TILE=16.
async fn matmul_speed(g: &Gpu, n: usize) -> Result<Runner<'_>> {
    let a = tilekit::random::uniform_f32(n * n, 3);
    let shape = matmul::Shape::new(n, n, n)?;
    let io = Rc::new((g.upload("A", &a).await?, g.alloc::<f32>("C", n * n).await?));
    Ok(Box::new(move || {
        let io = io.clone();
        Box::pin(async move {
            let run = g
                .matmul_on_device(&io.0, &io.0, &io.1, shape, &tile16())
                .await?;
            Ok(run.timing.seconds)
        })
    }))
}

fn reverse_case(n: usize) -> Case {
    Case {
        shape: format!("N={n}"),
        aligned: true,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
                let (out, _) = g
                    .reverse(&data, tilekit::kernels::reverse::Variant::Dynamic)
                    .await?;
                let want: Vec<u32> = data.iter().rev().copied().collect();
                Ok(first_difference(&out, &want))
            })
        }),
    }
}

/// Small whole numbers as f32: their sums are exact, so the check is exact.
fn whole_floats(n: usize, seed: u64) -> Vec<f32> {
    tilekit::random::uniform_f32(n, seed)
        .iter()
        .map(|x| (x * 100.0).round())
        .collect()
}

fn reduce_case(n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("n={n}"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data = whole_floats(n, 4);
                let (sum, _) = g
                    .reduce_with(&data, reduce::Op::Sum, reduce::Variant::Workgroup)
                    .await?;
                let want: f64 = data.iter().map(|&x| x as f64).sum();
                Ok(first_difference(&[sum as f64], &[want]))
            })
        }),
    }
}

fn transpose_case(rows: usize, cols: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{rows}×{cols} (TILE=32)"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data: Vec<u32> = (0..(rows * cols) as u32).collect();
                let (out, _) = g
                    .transpose(&data, rows, cols, transpose::Variant::Padded, Some(32))
                    .await?;
                let want: Vec<u32> = (0..cols)
                    .flat_map(|c| (0..rows).map(move |r| (r * cols + c) as u32))
                    .collect();
                Ok(first_difference(&out, &want))
            })
        }),
    }
}

fn bytes(n: usize, seed: u64) -> Vec<u8> {
    tilekit::random::uniform_f32(n, seed)
        .iter()
        .map(|x| ((x + 1.0) * 127.9) as u8)
        .collect()
}

fn histogram_case(n: usize, aligned: bool) -> Case {
    Case {
        shape: format!("{n} bytes"),
        aligned,
        run: Box::new(move |g| {
            Box::pin(async move {
                let data = bytes(n, 6);
                let (bins, _) = g.histogram(&data, histogram::Variant::Workgroup).await?;
                let mut want = [0u32; 256];
                for &b in &data {
                    want[b as usize] += 1;
                }
                Ok(first_difference(&bins, &want).map(|mut m| {
                    m.expected = format!("{} (bin {})", m.expected, m.index);
                    m
                }))
            })
        }),
    }
}
