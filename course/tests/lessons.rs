//! What a lesson says in its text, its charts show: the figures agree.

#[path = "../../tests/common/mod.rs"]
mod common;

use tilekit_course::lesson::Size;

/// Lesson 03 (PMPP 4.7): each residency chart of device D says how many workgroups a
/// multiprocessor holds and what limits it, and the text says the same for both figures it
/// gives (the book's 10 registers, tilekit's estimate).
#[test]
fn lesson_03_says_in_its_text_what_its_charts_show() {
    let gpu = common::gpu();
    let lesson = tilekit_course::tour::lesson(3).expect("lesson 03");
    let r = pollster::block_on((lesson.run)(gpu, Size::Quick)).unwrap();
    let text = r.lines.join("\n");
    let device_d: Vec<_> = r
        .charts
        .iter()
        .filter(|c| c.title.starts_with("book device D"))
        .collect();
    assert_eq!(device_d.len(), 2, "{:?}", r.charts);
    for c in device_d {
        // "…: 6 workgroups per multiprocessor, limited by threads"
        let (_, said) = c.title.split_once(": ").expect("a figure in the title");
        let (count, by) = said
            .split_once(" per multiprocessor, limited by ")
            .expect("count and resource");
        assert!(
            text.contains(&format!("{count} (limited by {by})")),
            "chart {:?} against text:\n{text}",
            c.title
        );
        // The chart's least bar is the count it names.
        let least = c.bars.iter().map(|b| b.1).fold(f64::INFINITY, f64::min);
        assert!(
            count.starts_with(&format!("{least} ")),
            "{count} vs {least}"
        );
    }
    assert!(!text.contains("1 workgroups"), "{text}");
}

/// Lesson 01 sets the adapter's limits against WebGPU's baseline: its dashed bars say so, not
/// "predicted" (nothing is predicted there).
#[test]
fn lesson_01_names_its_baseline_bars() {
    let gpu = common::gpu();
    let lesson = tilekit_course::tour::lesson(1).expect("lesson 01");
    let r = pollster::block_on((lesson.run)(gpu, Size::Quick)).unwrap();
    let html = tilekit_course::report::lesson_html("01", &Ok(r));
    assert!(html.contains(">WebGPU baseline</text>"), "{html}");
    assert!(!html.contains(">predicted</text>"), "{html}");
}

/// Lesson 11 is about the matrix units: on an adapter without them it says "not run here" and
/// why, not "verified", and its HTML says the same.
#[test]
fn lesson_11_without_matrix_units_is_not_run_here() {
    let gpu = common::gpu();
    let lesson = tilekit_course::tour::lesson(11).expect("lesson 11");
    let r = pollster::block_on((lesson.run)(gpu, Size::Quick)).unwrap();
    let has_units = gpu
        .features()
        .contains(tilekit::kernels::matmul::Variant::COOP.needs())
        && !gpu.summary.cooperative_matrices.is_empty();
    if has_units {
        assert_eq!(r.status(), "verified", "{}", r.render());
    } else {
        assert_eq!(r.status(), "not run here", "{}", r.render());
        assert!(
            r.render()
                .contains("verified: not run here: no matrix units"),
            "{}",
            r.render()
        );
        let html = tilekit_course::report::lesson_html("11", &Ok(r));
        assert!(html.contains(">not run here</span>"), "{html}");
    }
}

/// Lessons 02, 05 and 06 print the tracer's counts beside their timings, each with the formula
/// it predicts and equal to it (the lesson is not verified otherwise); on a CPU adapter lesson
/// 06's key is its count, since its times cannot be compared there.
#[test]
fn lessons_02_05_06_print_their_traced_counts_equal_to_the_formulas() {
    let gpu = common::gpu();
    for (number, needle) in [
        (2, "tiled 7191 (predicted M·K·⌈N/16⌉ + K·N·⌈M/16⌉ = 7191)"),
        (
            5,
            "2044 workgroup-memory loads (predicted 4 workgroups × (2·255 + 1) = 2044)",
        ),
        (
            6,
            "takes 32 passes per request of 32 invocations (predicted 32), the padded tile's 1",
        ),
    ] {
        let lesson = tilekit_course::tour::lesson(number).expect("the lesson");
        let r = pollster::block_on((lesson.run)(gpu, Size::Quick)).unwrap();
        assert!(r.verified, "lesson {number} not verified");
        let traced: Vec<&String> = r
            .lines
            .iter()
            .filter(|l| l.starts_with("traced at"))
            .collect();
        assert_eq!(traced.len(), 1, "lesson {number}: {:?}", r.lines);
        assert!(traced[0].contains(needle), "lesson {number}: {}", traced[0]);
        if number == 6 && gpu.is_cpu() {
            assert_eq!(r.key, "padding: 32-way → 1-way bank conflicts (traced)");
        }
    }
}
