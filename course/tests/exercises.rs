//! The exercises on the test adapter: every starter fails with the mistake it has, every
//! solution (the project's own shader) passes, a racy kernel fails with its race whatever the
//! GPU computed, the naive kernel in the tiled exercise fails with its counts, a barrier in
//! non-uniform control flow is refused (naga accepts it), an off-by-one loop with every barrier in
//! place is not called a race, a loop that never ends is stopped at the cap and named, and a file
//! that does not compile gets naga's message with the learner's file name and line.

#[path = "../../tests/common/mod.rs"]
mod common;
use common::gpu;
use tilekit_course::exercise::{check, exercise, exercises, reached_barriers, Exercise, Verdict};

/// The tiled-matmul solution as a learner would write it from the starter.
fn tiled(ex: &Exercise) -> String {
    ex.starter_source
        .replace(
            "        // TODO (fig 4.16): the whole tile must be loaded before anyone reads it.",
            "        workgroupBarrier();",
        )
        .replace(
            "        // TODO (fig 4.16): nobody may overwrite the tile while others still read it.",
            "        workgroupBarrier();",
        )
}

/// What each starter's mistake is found as: by the tracer (a race, an index past the end),
/// the same on every adapter, or by the numeric check with the hint that names it.
const STARTERS: [(&str, &str); 10] = [
    ("tiled-matmul", "race"),
    ("matmul-bounds", "out_of_bounds"),
    ("dynamic-reverse", "aligned"),
    ("reduction-tree", "race"),
    ("padded-transpose", "aligned"),
    ("histogram", "race"),
    ("conflict-free-transpose", "counts"),
    ("contiguous-reduction", "counts"),
    ("halo-stencil", "uninitialised"),
    ("blelloch-scan", "race"),
];

#[test]
fn every_starter_fails_with_the_mistake_it_has() {
    let all = exercises();
    assert_eq!(all.len(), STARTERS.len());
    for (name, want) in STARTERS {
        let ex = exercise(name).unwrap();
        let verdict = check(gpu(), &ex, ex.starter_source, "starter.wgsl");
        let text = verdict.render(&ex);
        match (&verdict, want) {
            (Verdict::Traced { report, .. }, kind) if kind != "aligned" && kind != "counts" => {
                let kinds: Vec<String> = report
                    .findings
                    .iter()
                    .map(|f| {
                        serde_json::to_value(f).unwrap()["kind"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect();
                assert!(kinds.iter().any(|k| k == kind), "{name}: {kinds:?}\n{text}");
                assert!(text.contains("starter.wgsl:"), "{text}");
                assert!(!verdict.lines().is_empty(), "{text}");
            }
            (Verdict::Counts { message, .. }, "counts") => {
                assert!(message.contains("the lesson's"), "{text}");
            }
            (Verdict::Wrong { hint, mismatch, .. }, "aligned") => {
                assert_eq!(hint, ex.aligned_hint, "{text}");
                assert_ne!(mismatch.expected, mismatch.got, "{text}");
                assert!(
                    text.contains("wrong at") && text.contains("hint:"),
                    "{text}"
                );
            }
            _ => panic!("the starter of {name} did not fail as expected ({want}):\n{text}"),
        }
    }
}

#[test]
fn every_solution_passes_and_is_timed_beside_tilekits() {
    for ex in exercises() {
        let verdict = check(gpu(), &ex, ex.solution_source, "solution.wgsl");
        let text = verdict.render(&ex);
        if ex.traced_only() {
            // Traced with its counts beside the lesson's, equal, then run on the adapter.
            let Verdict::TracedPassed {
                shapes,
                counts,
                ran_on,
            } = &verdict
            else {
                panic!("the solution of {} did not pass:\n{text}", ex.name);
            };
            assert!(
                !shapes.is_empty() && counts.contains("(the lesson's)"),
                "{text}"
            );
            assert!(ran_on.starts_with(&gpu().summary.name), "{text}");
            assert!(
                text.contains(&format!("run on {ran_on}: the same output")),
                "{text}"
            );
            continue;
        }
        let Verdict::Passed {
            shapes,
            yours,
            tilekits,
        } = &verdict
        else {
            panic!("the solution of {} did not pass:\n{text}", ex.name);
        };
        assert!(shapes.len() >= 2, "{text}");
        assert!(yours.median > 0.0 && tilekits.median > 0.0, "{text}");
        assert!(
            yours.min <= yours.median && yours.median <= yours.max,
            "{text}"
        );
        // The same kernel against itself, timed side by side: round for round.
        assert!(text.contains("yours is "), "{text}");
        assert_eq!(yours.times.len(), tilekits.times.len(), "{text}");
        assert!(yours.times.len() >= tilekit::STEADY_RUNS, "{text}");
    }
}

/// Under WebGPU's default limits (256 invocations and 16 KiB of workgroup memory a workgroup,
/// what a browser gives most pages) every solution passes: the check sizes its shapes from the
/// adapter, as the kernels' tiles are.
#[test]
fn every_solution_passes_under_webgpus_default_limits() {
    gpu(); // the tests' environment (no user's tuning cache)
    let g = tilekit::Gpu::with_options(tilekit::GpuOptions {
        webgpu_limits: true,
        poison_outputs: true,
        ..Default::default()
    })
    .wait()
    .expect("these tests need a GPU adapter (lavapipe counts)");
    assert_eq!(g.limits().max_compute_invocations_per_workgroup, 256);
    assert_eq!(g.limits().max_compute_workgroup_storage_size, 16384);
    for ex in exercises() {
        let verdict = check(&g, &ex, ex.solution_source, "solution.wgsl");
        assert!(
            verdict.passed(),
            "the solution of {} under WebGPU's default limits:\n{}",
            ex.name,
            verdict.render(&ex)
        );
    }
}

#[test]
fn a_racy_kernel_fails_with_the_race_before_any_number_is_compared() {
    // The tiled matmul with its first barrier weakened to storageBarrier(): on a GPU the answer
    // is usually right (the issue measured lavapipe and an H200 passing it); the tracer decides.
    let ex = exercise("tiled-matmul").unwrap();
    let racy = tiled(&ex).replacen("workgroupBarrier();", "storageBarrier();", 1);
    let verdict = check(gpu(), &ex, &racy, "racy.wgsl");
    let text = verdict.render(&ex);
    assert!(matches!(verdict, Verdict::Traced { .. }), "{text}");
    assert!(
        text.contains("race on mds[") || text.contains("race on nds["),
        "{text}"
    );
    assert!(text.contains("workgroupBarrier() orders"), "{text}");
}

/// Every barrier each exercise's solution reaches, removed or weakened to storageBarrier(), fails
/// the check with a race report on this adapter, whatever it computes (scripts/test.sh runs this
/// on lavapipe and on the GL back end; the page's test does the same in a browser).
#[test]
fn every_barrier_removed_or_weakened_fails_the_check_with_a_race() {
    let mut mutants = 0;
    for ex in exercises() {
        let lines = reached_barriers(&ex);
        assert!(!lines.is_empty(), "{}", ex.name);
        for line in lines {
            for replacement in ["", "storageBarrier();"] {
                let src: Vec<String> = ex
                    .solution_source
                    .lines()
                    .enumerate()
                    .map(|(i, l)| {
                        if i + 1 == line as usize {
                            l.replace("workgroupBarrier();", replacement)
                        } else {
                            l.to_string()
                        }
                    })
                    .collect();
                let verdict = check(gpu(), &ex, &src.join("\n"), "mutant.wgsl");
                let text = verdict.render(&ex);
                assert!(
                    matches!(verdict, Verdict::Traced { .. }) && text.contains("race on"),
                    "{} with line {line} as `{replacement}`:\n{text}",
                    ex.name
                );
                mutants += 1;
            }
        }
    }
    assert_eq!(mutants, 2 * 16);
}

/// The bounds exercise's own mistake, storing under `if (col < p.n)` alone, gives the right
/// answer at some shapes on a GPU (WGSL drops or clamps the stores past C's end): the tracer names
/// the index and the length instead.
#[test]
fn a_store_past_the_end_of_c_fails_the_bounds_exercise_with_the_index() {
    let ex = exercise("matmul-bounds").unwrap();
    let src = ex.solution_source.replace(
        "    if (row < p.m && col < p.n) {\n        c[row * p.n + col] = acc;",
        "    if (col < p.n) {\n        c[row * p.n + col] = acc;",
    );
    assert_ne!(src, ex.solution_source);
    let verdict = check(gpu(), &ex, &src, "bounds.wgsl");
    let text = verdict.render(&ex);
    assert!(matches!(verdict, Verdict::Traced { .. }), "{text}");
    assert!(text.contains("is out of bounds of c (length "), "{text}");
}

#[test]
fn the_naive_matmul_pasted_into_the_tiled_exercise_fails_with_its_counts() {
    let ex = exercise("tiled-matmul").unwrap();
    // The naive kernel's body under the tiled entry point's name: right, and no race.
    let naive_as_tiled = "
@compute @workgroup_size(16, 16)
fn tiled(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = tile_index(wid, nwg);
    let row = (t / p.tiles_x) * 16u + lid.y;
    let col = (t % p.tiles_x) * 16u + lid.x;
    if (row < p.m && col < p.n) {
        var acc = 0.0;
        for (var kk = 0u; kk < p.k; kk++) {
            acc += a[row * p.k + kk] * b[kk * p.n + col];
        }
        c[row * p.n + col] = acc;
    }
}
";
    let src = tilekit::shaders::MATMUL.replace("fn tiled(", "fn tiled_lesson(") + naive_as_tiled;
    let verdict = check(gpu(), &ex, &src, "naive.wgsl");
    let text = verdict.render(&ex);
    assert!(matches!(verdict, Verdict::Counts { .. }), "{text}");
    assert!(text.contains("reads each element of a"), "{text}");
}

#[test]
fn a_barrier_in_non_uniform_control_flow_is_refused_with_its_line() {
    let ex = exercise("tiled-matmul").unwrap();
    let good = tiled(&ex);
    assert!(check(gpu(), &ex, &good, "good.wgsl").passed());
    let line = good
        .lines()
        .position(|l| l.trim() == "workgroupBarrier();")
        .unwrap()
        + 1;
    let divergent = good.replacen(
        "        workgroupBarrier();",
        "        if (tx == 0u) { workgroupBarrier(); }",
        1,
    );
    let verdict = check(gpu(), &ex, &divergent, "mine.wgsl");
    let text = verdict.render(&ex);
    let Verdict::DoesNotCompile(msg) = &verdict else {
        panic!("a barrier under `if (tx == 0u)` was not refused:\n{text}");
    };
    assert!(msg.contains(&format!("mine.wgsl:{line}:")), "{msg}");
    assert!(msg.contains("non-uniform control flow"), "{msg}");
    // An early return before the barriers: some invocations never reach them.
    let early = good.replacen(
        "    var acc = 0.0;\n    let phases",
        "    var acc = 0.0;\n    if (row >= p.m) { return; }\n    let phases",
        1,
    );
    assert_ne!(early, good, "the early-return edit found nothing to change");
    assert!(matches!(
        check(gpu(), &ex, &early, "early.wgsl"),
        Verdict::DoesNotCompile(_)
    ));
}

#[test]
fn an_off_by_one_inner_loop_with_both_barriers_is_not_called_a_race() {
    let ex = exercise("tiled-matmul").unwrap();
    let good = tiled(&ex);
    for wrong in ["kk <= TILE;", "kk < TILE - 1u;"] {
        let src = good.replace("kk < TILE;", wrong);
        assert_ne!(src, good);
        let verdict = check(gpu(), &ex, &src, "loop.wgsl");
        let text = verdict.render(&ex);
        // One step too many reads past the tile's end (the tracer names the index, on every
        // back end: GL's bounds checks read 0.0 there and the answer came out right); one too
        // few is a wrong answer. Neither is a race.
        if wrong == "kk <= TILE;" {
            assert!(
                text.contains("is out of bounds of mds (length 256)"),
                "{wrong}: {text}"
            );
        } else {
            assert!(
                matches!(&verdict, Verdict::Wrong { hint, .. } if *hint == ex.aligned_hint),
                "{wrong}: {text}"
            );
        }
        assert!(!text.contains("race on"), "{text}");
    }
}

#[test]
fn a_file_that_does_not_compile_gets_nagas_message_with_its_name_and_line() {
    let ex = exercise("dynamic-reverse").unwrap();
    let broken = ex.solution_source.replace(
        "data[t] = s_dyn[N - 1u - t];",
        "data[t] = s_dyn[N - 1u - t]",
    );
    let verdict = check(gpu(), &ex, &broken, "my-reverse.wgsl");
    let Verdict::DoesNotCompile(msg) = &verdict else {
        panic!("{}", verdict.render(&ex));
    };
    let line = broken
        .lines()
        .position(|l| l.contains("data[t] = s_dyn[N - 1u - t]"))
        .unwrap()
        + 1;
    // naga points at the missing `;` or at the next token (a comment line may lie between).
    assert!(
        (line..=line + 3).any(|l| msg.contains(&format!("my-reverse.wgsl:{l}:"))),
        "{msg}"
    );
    // An unknown exercise is a typed error listing the choices.
    let e = exercise("nope").err().unwrap();
    assert!(e.to_string().contains("tiled-matmul"), "{e}");
}

#[test]
fn a_loop_that_never_ends_is_stopped_at_the_cap_and_named() {
    // The reduction tree with its barrier in place and `s >= 0u` for `s > 0u`: a u32 is never
    // below 0, so the loop runs for ever at s = 0 unless the bounding of every loop stops it.
    let ex = exercise("reduction-tree").unwrap();
    let good = ex.starter_source.replace(
        "        // TODO (reduceSmem): a step may not read a partner before the partner's step is done.",
        "        workgroupBarrier();",
    );
    assert_ne!(good, ex.starter_source);
    assert!(check(gpu(), &ex, &good, "tree.wgsl").passed());
    let endless = good.replace(
        "for (var s = STATIC_WG / 2u; s > 0u; s >>= 1u)",
        "for (var s = STATIC_WG / 2u; s >= 0u; s >>= 1u)",
    );
    assert_ne!(endless, good);
    let verdict = check(gpu(), &ex, &endless, "tree.wgsl");
    let text = verdict.render(&ex);
    assert!(matches!(verdict, Verdict::LoopStopped { .. }), "{text}");
    assert!(text.contains("a loop was stopped"), "{text}");
}

/// Each exercise names its starter and solution by path and embeds them by `include_str!`: the
/// two must be the same file, or `tilekit exercise` would point a learner at one text and check
/// another. (No GPU: reads the repository.)
#[test]
fn each_exercise_embeds_the_files_it_names() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    for ex in exercises() {
        for (path, embedded) in [
            (ex.starter, ex.starter_source),
            (ex.solution, ex.solution_source),
        ] {
            let on_disk = std::fs::read_to_string(root.join(path))
                .unwrap_or_else(|e| panic!("{}: {path}: {e}", ex.name));
            assert_eq!(
                on_disk, embedded,
                "{}: {path} is not what it embeds",
                ex.name
            );
        }
    }
}
