//! Lesson 08 (CUDA Handbook 8.1): wide loads, scalar vs vec4 copy and sum.
//!
//! Run: `cargo run --release --example 08_wide_loads` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::wide_loads` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(tilekit::tour::wide_loads);
}
