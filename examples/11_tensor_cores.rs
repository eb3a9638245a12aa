//! Lesson 11: the tiling of lesson 02 feeding the matrix units: f32 on the scalar units against
//! f16 on the scalar units against f16 cooperative matrices (tensor cores), and the error bound
//! f16 inputs allow. On an adapter without them it says what is missing and runs what it can.
//!
//! Run: `cargo run --release --example 11_tensor_cores` (add `-- --quick` for small sizes, as on lavapipe).
//! The lesson is `src/kernels/matmul/lesson.rs`, beside its kernels; `tilekit tour` runs it as lesson 11.

fn main() {
    tilekit::tour::example(11);
}
