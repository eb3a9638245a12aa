//! One module per kernel family; each pairs with `shaders/<family>.wgsl` and `tests/<family>.rs`.

pub mod matmul;

/// The element-type specialisations of a shader file that has an `alias Elem = ...;` line (the
/// reduction): `(type, source)` for each type it is built for. Other files have none.
pub fn specialisations(file: &str, source: &str) -> Vec<(&'static str, String)> {
    let _ = (file, source);
    Vec::new()
}
