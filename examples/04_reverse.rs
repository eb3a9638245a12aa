//! Lesson 04 (Harris, Using shared memory in CUDA C/C++): static and dynamic reverse, the article's 64-element case, then a large n.
//!
//! Run: `cargo run --release --example 04_reverse` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::reverse` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(tilekit::tour::reverse);
}
