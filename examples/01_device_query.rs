//! Lesson 01: the device query, as cudaGetDeviceProperties: the adapter's compute limits and the device profile that stands in for what WebGPU hides.
//!
//! Run: `cargo run --release --example 01_device_query` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/tour.rs (`device_query`)`, beside its kernels; `tilekit tour` runs it as lesson 01.

fn main() {
    tilekit::tour::example(1);
}
