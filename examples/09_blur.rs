//! Lesson 09 (PMPP fig 4.1): the blur kernel and its compute-to-global-memory-access ratio, naive and tiled.
//!
//! Run: `cargo run --release --example 09_blur` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/blur/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 09.

fn main() {
    tilekit::tour::example(9);
}
