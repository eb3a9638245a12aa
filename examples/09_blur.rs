//! Lesson 09 (PMPP fig 4.1): the blur kernel and its compute-to-global-memory-access ratio, naive and tiled.
//!
//! Run: `cargo run --release --example 09_blur` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::blur_ratio` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(tilekit::tour::blur_ratio);
}
