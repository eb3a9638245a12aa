//! Lesson 10 (Harris): several arrays carved from one workgroup allocation.
//!
//! Run: `cargo run --release --example 10_carved_arrays` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/carve/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 10.

fn main() {
    tilekit::tour::example(10);
}
