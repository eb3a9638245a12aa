//! Lesson 02 (PMPP 4.2-4.6): naive vs tiled matrix multiply: global loads, the compute-to-global-memory-access ratio, time and speed-up.
//!
//! Run: `cargo run --release --example 02_tiled_matmul` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/matmul/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 02.

fn main() {
    tilekit::tour::example(2);
}
