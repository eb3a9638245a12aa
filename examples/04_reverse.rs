//! Lesson 04 (Harris, Using shared memory in CUDA C/C++): static and dynamic reverse, the article's 64-element case, then a large n.
//!
//! Run: `cargo run --release --example 04_reverse` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/reverse/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 04.

fn main() {
    tilekit::tour::example(4);
}
