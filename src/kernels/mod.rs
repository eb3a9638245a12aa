//! One module per kernel family; each pairs with `shaders/<family>.wgsl` and `tests/<family>.rs`.

pub mod matmul;
pub mod reduce;

/// The element-type specialisations of a shader file that has an `alias Elem = ...;` line (the
/// reduction): `(type, source)` for each type it is built for. Other files have none.
pub fn specialisations(file: &str, source: &str) -> Vec<(&'static str, String)> {
    match file {
        "reduce.wgsl" => ["f32", "i32", "u32"]
            .into_iter()
            .map(|t| (t, reduce::specialise(source, t)))
            .collect(),
        _ => Vec::new(),
    }
}
