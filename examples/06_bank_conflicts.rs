//! Lesson 06 (CUDA Handbook 8.1): bank conflicts, transpose through an unpadded and a padded tile.
//!
//! Run: `cargo run --release --example 06_bank_conflicts` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::bank_conflicts` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(tilekit::tour::bank_conflicts);
}
