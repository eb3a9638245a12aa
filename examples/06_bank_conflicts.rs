//! Lesson 06 (CUDA Handbook 8.1): bank conflicts, transpose through an unpadded and a padded tile.
//!
//! Run: `cargo run --release --example 06_bank_conflicts` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/transpose/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 06.

fn main() {
    tilekit::tour::example(6);
}
