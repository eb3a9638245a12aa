//! Lesson 08 (CUDA Handbook 8.1): wide loads, scalar vs vec4 copy and sum.
//!
//! Run: `cargo run --release --example 08_wide_loads` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/wide/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 08.

fn main() {
    tilekit::tour::example(8);
}
