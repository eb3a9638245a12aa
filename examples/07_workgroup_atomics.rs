//! Lesson 07 (CUDA Handbook 8.1): workgroup atomics, a histogram counted in workgroup memory vs global atomics.
//!
//! Run: `cargo run --release --example 07_workgroup_atomics` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::workgroup_atomics` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(tilekit::tour::workgroup_atomics);
}
