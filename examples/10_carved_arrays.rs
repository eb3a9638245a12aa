//! Lesson 10 (Harris): several arrays carved from one workgroup allocation.
//!
//! Run: `cargo run --release --example 10_carved_arrays` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::carved_arrays` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(|gpu, _size| tilekit::tour::carved_arrays(gpu));
}
