//! Lesson 01: the device query, as cudaGetDeviceProperties: the adapter's compute limits and the device profile that stands in for what WebGPU hides.
//!
//! Run: `cargo run --release --example 01_device_query` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `tilekit::tour::device_query` in `src/tour.rs`; its kernels are in `shaders/`.

fn main() {
    tilekit::tour::example(|gpu, _size| tilekit::tour::device_query(gpu));
}
