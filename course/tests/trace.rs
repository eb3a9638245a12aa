//! The tracer on the exercises' own kernels, no GPU needed: every solution traces clean; every
//! workgroupBarrier() of each traced entry point, removed or weakened to storageBarrier(), is
//! reported as a race with its lines; the classic mistakes are found by running; and the
//! lessons' count formulas hold exactly at ragged shapes.

use tilekit_course::exercise::{exercises, reached_barriers, traced};
use tilekit_course::trace::{self, Finding, Report, Setup};

/// One workgroup of entry point `main` with one buffer, `@binding(0)`, holding `words`.
fn one_buffer(words: Vec<u32>) -> Setup {
    Setup {
        entry: "main".into(),
        overrides: vec![],
        workgroups: [1, 1, 1],
        bindings: vec![trace::Binding {
            group: 0,
            binding: 0,
            words,
        }],
    }
}

fn run(source: &str, setup: &Setup) -> Report {
    trace::trace(source, "kernel.wgsl", setup).unwrap_or_else(|e| panic!("trace failed: {e}"))
}

/// The barrier lines each exercise's traced entry point reaches, as the solution runs.
const BARRIERS: [(&str, usize); 10] = [
    ("tiled-matmul", 2),
    ("matmul-bounds", 2),
    ("dynamic-reverse", 1),
    ("reduction-tree", 2),
    ("padded-transpose", 1),
    ("histogram", 2),
    ("conflict-free-transpose", 1),
    ("contiguous-reduction", 2),
    ("halo-stencil", 1),
    ("blelloch-scan", 2),
];

/// `source` with line `line` (1-based) changed by `f`.
fn mutate(source: &str, line: u32, f: impl Fn(&str) -> String) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line as usize {
                f(l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn races(r: &Report) -> Vec<&Finding> {
    r.findings
        .iter()
        .filter(|f| matches!(f, Finding::Race { .. }))
        .collect()
}

#[test]
fn every_solution_traces_clean_at_every_shape() {
    for ex in exercises() {
        for case in (ex.traces)() {
            let r = run(ex.solution_source, &case.setup);
            assert!(
                r.clean(),
                "{} at {}:\n{}",
                ex.name,
                case.shape,
                r.render(ex.solution)
            );
        }
    }
}

#[test]
fn each_exercise_reaches_the_barriers_its_lesson_has() {
    for (name, want) in BARRIERS {
        let ex = exercises().into_iter().find(|e| e.name == name).unwrap();
        assert_eq!(reached_barriers(&ex).len(), want, "{name}");
    }
}

fn every_barrier_changed_is_a_race(replacement: &str) {
    let mut mutants = 0;
    for ex in exercises() {
        for line in reached_barriers(&ex) {
            let source = mutate(ex.solution_source, line, |l| {
                assert!(l.contains("workgroupBarrier();"), "{}:{line}: {l}", ex.name);
                l.replace("workgroupBarrier();", replacement)
            });
            mutants += 1;
            let caught = (ex.traces)().iter().any(|case| {
                let r = run(&source, &case.setup);
                let found = races(&r);
                // The race names two source lines, with the invocations that made them.
                found.iter().any(|f| f.lines().iter().all(|l| *l > 0))
            });
            assert!(
                caught,
                "{} with line {line} changed to `{replacement}` traced without a race",
                ex.name
            );
        }
    }
    assert_eq!(mutants, BARRIERS.iter().map(|b| b.1).sum::<usize>());
}

#[test]
fn every_barrier_removed_is_a_race() {
    every_barrier_changed_is_a_race("");
}

#[test]
fn every_barrier_weakened_to_a_storage_barrier_is_a_race() {
    every_barrier_changed_is_a_race("storageBarrier();");
}

#[test]
fn the_tiled_matmul_race_names_both_lines_invocations_and_the_variable() {
    let ex = exercises()
        .into_iter()
        .find(|e| e.name == "tiled-matmul")
        .unwrap();
    let r = run(ex.starter_source, &traced::matmul(33, 47, 29).setup);
    let Some(Finding::Race {
        variable,
        first,
        second,
        ..
    }) = r.findings.first()
    else {
        panic!("no race first:\n{}", r.render("starter.wgsl"));
    };
    assert!(variable == "mds" || variable == "nds", "{variable}");
    assert_ne!(first.invocation, second.invocation);
    assert_eq!(first.workgroup, second.workgroup);
    let text = r.findings[0].render("starter.wgsl");
    let lines: Vec<&str> = ex.starter_source.lines().collect();
    for t in [first, second] {
        assert!(
            text.contains(&format!("starter.wgsl:{}:", t.line)),
            "{text}"
        );
        assert!(
            lines[t.line as usize - 1].contains(variable.as_str()),
            "{text}"
        );
    }
}

#[test]
fn a_race_between_workgroups_is_found_though_each_store_is_atomic() {
    // The histogram's starter stores each workgroup's counts over the others' (atomicStore).
    let ex = exercises()
        .into_iter()
        .find(|e| e.name == "histogram")
        .unwrap();
    let r = run(ex.starter_source, &traced::histogram(1001, 2).setup);
    let Some(Finding::Race { first, second, .. }) = r.findings.first() else {
        panic!("{}", r.render("starter.wgsl"));
    };
    assert_ne!(first.workgroup, second.workgroup);
}

#[test]
fn a_store_guarded_by_the_column_alone_writes_past_the_end_of_c() {
    // The case: `if (col < p.n)` alone passes a numeric check at some shapes.
    let src = tilekit::shaders::MATMUL.replace(
        "    if (row < p.m && col < p.n) {\n        c[row * p.n + col] = acc;",
        "    if (col < p.n) {\n        c[row * p.n + col] = acc;",
    );
    assert_ne!(src, tilekit::shaders::MATMUL);
    let r = run(&src, &traced::matmul(17, 16, 15).setup);
    let oob = r.findings.iter().find_map(|f| match f {
        Finding::OutOfBounds {
            variable,
            index,
            length,
            ..
        } => Some((variable.clone(), *index, *length)),
        _ => None,
    });
    let (variable, index, length) = oob.expect("an index past the end");
    assert_eq!((variable.as_str(), length), ("c", 17 * 15));
    assert!(index >= 17 * 15);
}

#[test]
fn a_read_of_workgroup_memory_nobody_wrote_is_named() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> s: array<u32, 64>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) t: u32) {
    if (t < 32u) { s[t] = t; }
    workgroupBarrier();
    out[t] = s[63u - t];
}";
    let setup = one_buffer(vec![0; 64]);
    let r = run(src, &setup);
    assert!(races(&r).is_empty());
    let Some(Finding::Uninitialised {
        variable,
        element,
        at,
    }) = r.findings.first()
    else {
        panic!("{}", r.render("k.wgsl"));
    };
    assert_eq!((variable.as_str(), *element, at.line), ("s", 63, 6));
}

#[test]
fn a_barrier_only_some_invocations_reach_is_found_by_running() {
    // Uniform by every static rule, divergent at run time: the loop's count comes from memory.
    let src = "@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
var<workgroup> s: array<u32, 8>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) t: u32) {
    for (var i = 0u; i < counts[t]; i++) {
        s[t] = i;
        workgroupBarrier();
    }
}";
    let setup = one_buffer(vec![2, 2, 2, 2, 2, 2, 2, 1]);
    let r = run(src, &setup);
    let Some(Finding::DivergentBarrier {
        line, reached, of, ..
    }) = r.findings.first()
    else {
        panic!("{}", r.render("k.wgsl"));
    };
    assert_eq!((*line, *reached, *of), (6, 7, 8));
}

#[test]
fn a_loop_that_never_ends_is_stopped_at_the_cap() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() {
    var s = 4u;
    while (s >= 0u) { s = s - 1u; }
    out[0] = s;
}";
    let setup = one_buffer(vec![0]);
    let e = trace::trace(src, "k.wgsl", &setup).unwrap_err();
    assert!(
        matches!(e, trace::TraceError::LoopStopped { line: 4, .. }),
        "{e}"
    );
}

#[test]
fn naive_matmul_reads_each_element_of_a_n_times_and_the_tiled_one_n_over_tile() {
    // PMPP §4.4 at a ragged 33×47×29: the naive kernel loads A M·N·K times, the tiled one
    // M·K·ceil(N/TILE) times (each A tile once per column of workgroups).
    let (m, k, n, tile) = (33u64, 47u64, 29u64, 16u64);
    let tiled_case = traced::matmul(m as u32, k as u32, n as u32);
    let tiled = run(tilekit::shaders::MATMUL, &tiled_case.setup);
    let mut naive_setup = tiled_case.setup.clone();
    naive_setup.entry = "naive".into();
    naive_setup.overrides.clear();
    let naive = run(tilekit::shaders::MATMUL, &naive_setup);
    assert!(naive.clean() && tiled.clean());
    let loads = |r: &Report, v: &str| r.traffic_of(v).unwrap().loads;
    assert_eq!(loads(&naive, "a"), m * n * k);
    assert_eq!(loads(&naive, "b"), m * n * k);
    assert_eq!(loads(&tiled, "a"), m * k * n.div_ceil(tile));
    assert_eq!(loads(&tiled, "b"), k * n * m.div_ceil(tile));
    // Per invocation: a naive invocation inside C loads 2K, one outside none; a tiled one loads
    // at most one A and one B element per phase.
    let per = naive.per_invocation.global_loads;
    assert_eq!((per.min, per.max), (0, 2 * k));
    assert_eq!(tiled.per_invocation.global_loads.max, 2 * k.div_ceil(tile));
    assert_eq!(tiled.per_invocation.global_stores.max, 1);
}

#[test]
fn the_unpadded_transposes_column_read_is_32_way_and_the_padded_ones_is_not() {
    // CUDA Handbook §8.1: a 32×32 tile read down a column hits one bank 32 times; rows of 33
    // words put each element of a column in its own bank.
    let padded_case = traced::transpose(33, 70);
    let padded = run(tilekit::shaders::TRANSPOSE, &padded_case.setup);
    let mut plain_setup = padded_case.setup.clone();
    plain_setup.entry = "tiled".into();
    let plain = run(tilekit::shaders::TRANSPOSE, &plain_setup);
    let worst = |r: &Report, v: &str| {
        r.banks
            .iter()
            .filter(|b| b.variable == v)
            .map(|b| b.worst)
            .max()
    };
    assert_eq!(worst(&plain, "tile"), Some(32));
    assert_eq!(worst(&padded, "tile_padded"), Some(1));
    // Every request of the plain tile's column read takes 32 passes: 6 workgroups × 8 warps ×
    // 4 steps of j.
    let read = plain.banks.iter().find(|b| b.worst == 32).unwrap();
    assert_eq!((read.requests, read.passes), (6 * 8 * 4, 6 * 8 * 4 * 32));
}

#[test]
fn the_reduction_tree_reads_each_input_once_and_workgroup_memory_2wg_minus_1_times() {
    let case = traced::reduce(1000);
    let r = run(tilekit::shaders::REDUCE, &case.setup);
    assert_eq!(r.traffic_of("input").unwrap().loads, 1000);
    // Each step s reads 2·s words (a sum and its partner), s = 128, 64, …, 1, and invocation 0
    // reads the total: 2·(256 − 1) + 1 per workgroup.
    assert_eq!(
        r.traffic_of("static_data").unwrap().loads,
        4 * (2 * 255 + 1)
    );
}

#[test]
fn the_traced_answer_is_the_matmul() {
    let case = traced::matmul(17, 16, 15);
    let r = run(tilekit::shaders::MATMUL, &case.setup);
    let bits = |b: u32| {
        r.buffer(0, b)
            .unwrap()
            .iter()
            .map(|w| f32::from_bits(*w) as f64)
            .collect::<Vec<_>>()
    };
    let (a, b) = (bits(0), bits(1));
    let c = r.buffer(0, 2).unwrap();
    for i in 0..17 {
        for j in 0..15 {
            let want: f64 = (0..16).map(|p| a[i * 16 + p] * b[p * 15 + j]).sum();
            let got = f32::from_bits(c[i * 15 + j]) as f64;
            assert!(
                (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                "C[{i},{j}] = {got}, want {want}"
            );
        }
    }
}
