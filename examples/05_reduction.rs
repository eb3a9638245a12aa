//! Lesson 05 (CUDA basics 5.3): the reduction progression, global -> workgroup -> unroll4 -> dynamic -> grid-stride -> subgroup, GB/s each against the copy ceiling.
//!
//! Run: `cargo run --release --example 05_reduction` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/reduce/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 05.

fn main() {
    tilekit::tour::example(5);
}
