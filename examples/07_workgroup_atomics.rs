//! Lesson 07 (CUDA Handbook 8.1): workgroup atomics, a histogram counted in workgroup memory vs global atomics.
//!
//! Run: `cargo run --release --example 07_workgroup_atomics` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/histogram/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 07.

fn main() {
    tilekit::tour::example(7);
}
