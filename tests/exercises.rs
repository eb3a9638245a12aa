#![cfg(feature = "cli")]
//! The exercises on the test adapter: every starter fails with the hint that names its mistake,
//! every solution (the project's own shader) passes, a racy kernel is caught, and a file that
//! does not compile gets naga's message with its line.

mod common;
use common::gpu;
use tilekit::exercise::{check, exercise, exercises, Verdict};

/// The hint each starter must get: the race or index hint, or the edge hint.
const EDGE_MISTAKES: [&str; 1] = ["matmul-bounds"];

#[test]
fn every_starter_fails_with_the_hint_that_names_its_mistake() {
    let all = exercises();
    assert!(all.len() >= 6);
    for ex in &all {
        let verdict = check(gpu(), ex, ex.starter_source);
        let text = verdict.render(ex);
        let Verdict::Wrong { hint, mismatch, .. } = &verdict else {
            panic!(
                "the starter of {} did not fail as expected:\n{text}",
                ex.name
            );
        };
        let want = if EDGE_MISTAKES.contains(&ex.name) {
            ex.edge_hint
        } else {
            ex.hint
        };
        assert_eq!(hint, want, "{text}");
        assert_ne!(mismatch.expected, mismatch.got, "{text}");
        assert!(
            text.contains("wrong at") && text.contains("hint:"),
            "{text}"
        );
    }
}

#[test]
fn every_solution_passes() {
    for ex in exercises() {
        let verdict = check(gpu(), &ex, ex.solution_source);
        let text = verdict.render(&ex);
        let Verdict::Passed { shapes, speed } = &verdict else {
            panic!("the solution of {} did not pass:\n{text}", ex.name);
        };
        assert!(shapes.len() >= 2, "{text}");
        assert!(speed.0 > 0.0 && speed.1 > 0.0, "{text}");
    }
}

#[test]
fn a_racy_kernel_is_caught() {
    // The reduction tree with the barrier inside its loop removed: steps read partners that
    // have not finished. And the histogram whose workgroups store over each other's counts.
    for name in ["reduction-tree", "histogram"] {
        let ex = exercise(name).unwrap();
        let racy = ex.starter_source;
        assert!(!racy.contains("TODO") || racy != ex.solution_source);
        let verdict = check(gpu(), &ex, racy);
        assert!(
            matches!(&verdict, Verdict::Wrong { hint, .. } if hint.contains("race")),
            "{}",
            verdict.render(&ex)
        );
    }
}

#[test]
fn a_file_that_does_not_compile_gets_nagas_message_with_its_line() {
    let ex = exercise("dynamic-reverse").unwrap();
    let broken = ex.solution_source.replace(
        "data[t] = s_dyn[N - 1u - t];",
        "data[t] = s_dyn[N - 1u - t]",
    );
    let verdict = check(gpu(), &ex, &broken);
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
        (line..=line + 3).any(|l| msg.contains(&format!("wgsl:{l}:"))),
        "{msg}"
    );
    // An unknown exercise is a typed error listing the choices.
    let e = exercise("nope").err().unwrap();
    assert!(e.to_string().contains("tiled-matmul"), "{e}");
}
