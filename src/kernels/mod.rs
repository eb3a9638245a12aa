//! One module per kernel family; each pairs with `shaders/<family>.wgsl` and `tests/<family>.rs`.
