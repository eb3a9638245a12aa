//! Lesson 03 (PMPP 4.7): memory as a limiting factor to parallelism: the tile the planner picks under WebGPU's baseline limits, this adapter's, and the book's device D, with the book's numbers.
//!
//! Run: `cargo run --release --example 03_tile_from_limits` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/matmul/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 03.

fn main() {
    tilekit::tour::example(3);
}
