//! The WGSL each kernel is built from, by file: what the lessons quote and the shader tests
//! translate. Tile sizes in them are `override` constants the planner sets at pipeline creation.

/// `shaders/blur.wgsl`.
pub const BLUR: &str = include_str!("../shaders/blur.wgsl");
/// `shaders/carve.wgsl`.
pub const CARVE: &str = include_str!("../shaders/carve.wgsl");
/// `shaders/ceiling.wgsl`.
pub const CEILING: &str = include_str!("../shaders/ceiling.wgsl");
/// `shaders/ceiling_matrix.wgsl`.
pub const CEILING_MATRIX: &str = include_str!("../shaders/ceiling_matrix.wgsl");
/// `shaders/convert.wgsl`.
pub const CONVERT: &str = include_str!("../shaders/convert.wgsl");
/// `shaders/fill.wgsl`.
pub const FILL: &str = include_str!("../shaders/fill.wgsl");
/// `shaders/histogram.wgsl`.
pub const HISTOGRAM: &str = include_str!("../shaders/histogram.wgsl");
/// `shaders/matmul.wgsl`.
pub const MATMUL: &str = include_str!("../shaders/matmul.wgsl");
/// `shaders/matmul_coop.wgsl`.
pub const MATMUL_COOP: &str = include_str!("../shaders/matmul_coop.wgsl");
/// `shaders/matmul_coop_a_ragged.wgsl`.
pub const MATMUL_COOP_A_RAGGED: &str = include_str!("../shaders/matmul_coop_a_ragged.wgsl");
/// `shaders/matmul_coop_a_wide.wgsl`.
pub const MATMUL_COOP_A_WIDE: &str = include_str!("../shaders/matmul_coop_a_wide.wgsl");
/// `shaders/matmul_coop_b_ragged.wgsl`.
pub const MATMUL_COOP_B_RAGGED: &str = include_str!("../shaders/matmul_coop_b_ragged.wgsl");
/// `shaders/matmul_coop_b_wide.wgsl`.
pub const MATMUL_COOP_B_WIDE: &str = include_str!("../shaders/matmul_coop_b_wide.wgsl");
/// `shaders/matmul_coop_c_ragged.wgsl`.
pub const MATMUL_COOP_C_RAGGED: &str = include_str!("../shaders/matmul_coop_c_ragged.wgsl");
/// `shaders/matmul_coop_c_wide.wgsl`.
pub const MATMUL_COOP_C_WIDE: &str = include_str!("../shaders/matmul_coop_c_wide.wgsl");
/// `shaders/matmul_gemv.wgsl`.
pub const MATMUL_GEMV: &str = include_str!("../shaders/matmul_gemv.wgsl");
/// `shaders/matmul_gemv_a_ragged.wgsl`.
pub const MATMUL_GEMV_A_RAGGED: &str = include_str!("../shaders/matmul_gemv_a_ragged.wgsl");
/// `shaders/matmul_gemv_a_wide.wgsl`.
pub const MATMUL_GEMV_A_WIDE: &str = include_str!("../shaders/matmul_gemv_a_wide.wgsl");
/// `shaders/matmul_gemv_b_ragged.wgsl`.
pub const MATMUL_GEMV_B_RAGGED: &str = include_str!("../shaders/matmul_gemv_b_ragged.wgsl");
/// `shaders/matmul_gemv_b_wide.wgsl`.
pub const MATMUL_GEMV_B_WIDE: &str = include_str!("../shaders/matmul_gemv_b_wide.wgsl");
/// `shaders/matmul_pipelined.wgsl`.
pub const MATMUL_PIPELINED: &str = include_str!("../shaders/matmul_pipelined.wgsl");
/// `shaders/matmul_pipelined_a_ragged.wgsl`.
pub const MATMUL_PIPELINED_A_RAGGED: &str =
    include_str!("../shaders/matmul_pipelined_a_ragged.wgsl");
/// `shaders/matmul_pipelined_a_wide.wgsl`.
pub const MATMUL_PIPELINED_A_WIDE: &str = include_str!("../shaders/matmul_pipelined_a_wide.wgsl");
/// `shaders/matmul_pipelined_b_ragged.wgsl`.
pub const MATMUL_PIPELINED_B_RAGGED: &str =
    include_str!("../shaders/matmul_pipelined_b_ragged.wgsl");
/// `shaders/matmul_pipelined_b_wide.wgsl`.
pub const MATMUL_PIPELINED_B_WIDE: &str = include_str!("../shaders/matmul_pipelined_b_wide.wgsl");
/// `shaders/matmul_pipelined_c_ragged.wgsl`.
pub const MATMUL_PIPELINED_C_RAGGED: &str =
    include_str!("../shaders/matmul_pipelined_c_ragged.wgsl");
/// `shaders/matmul_pipelined_c_wide.wgsl`.
pub const MATMUL_PIPELINED_C_WIDE: &str = include_str!("../shaders/matmul_pipelined_c_wide.wgsl");
/// `shaders/matmul_support.wgsl`.
pub const MATMUL_SUPPORT: &str = include_str!("../shaders/matmul_support.wgsl");
/// `shaders/reduce.wgsl`.
pub const REDUCE: &str = include_str!("../shaders/reduce.wgsl");
/// `shaders/reduce_subgroup.wgsl`.
pub const REDUCE_SUBGROUP: &str = include_str!("../shaders/reduce_subgroup.wgsl");
/// `shaders/reverse.wgsl`.
pub const REVERSE: &str = include_str!("../shaders/reverse.wgsl");
/// `shaders/transpose.wgsl`.
pub const TRANSPOSE: &str = include_str!("../shaders/transpose.wgsl");
/// `shaders/wide.wgsl`.
pub const WIDE: &str = include_str!("../shaders/wide.wgsl");

/// Every file, as (name, source), in name order.
pub const ALL: &[(&str, &str)] = &[
    ("blur.wgsl", BLUR),
    ("carve.wgsl", CARVE),
    ("ceiling.wgsl", CEILING),
    ("ceiling_matrix.wgsl", CEILING_MATRIX),
    ("convert.wgsl", CONVERT),
    ("fill.wgsl", FILL),
    ("histogram.wgsl", HISTOGRAM),
    ("matmul.wgsl", MATMUL),
    ("matmul_coop.wgsl", MATMUL_COOP),
    ("matmul_coop_a_ragged.wgsl", MATMUL_COOP_A_RAGGED),
    ("matmul_coop_a_wide.wgsl", MATMUL_COOP_A_WIDE),
    ("matmul_coop_b_ragged.wgsl", MATMUL_COOP_B_RAGGED),
    ("matmul_coop_b_wide.wgsl", MATMUL_COOP_B_WIDE),
    ("matmul_coop_c_ragged.wgsl", MATMUL_COOP_C_RAGGED),
    ("matmul_coop_c_wide.wgsl", MATMUL_COOP_C_WIDE),
    ("matmul_gemv.wgsl", MATMUL_GEMV),
    ("matmul_gemv_a_ragged.wgsl", MATMUL_GEMV_A_RAGGED),
    ("matmul_gemv_a_wide.wgsl", MATMUL_GEMV_A_WIDE),
    ("matmul_gemv_b_ragged.wgsl", MATMUL_GEMV_B_RAGGED),
    ("matmul_gemv_b_wide.wgsl", MATMUL_GEMV_B_WIDE),
    ("matmul_pipelined.wgsl", MATMUL_PIPELINED),
    ("matmul_pipelined_a_ragged.wgsl", MATMUL_PIPELINED_A_RAGGED),
    ("matmul_pipelined_a_wide.wgsl", MATMUL_PIPELINED_A_WIDE),
    ("matmul_pipelined_b_ragged.wgsl", MATMUL_PIPELINED_B_RAGGED),
    ("matmul_pipelined_b_wide.wgsl", MATMUL_PIPELINED_B_WIDE),
    ("matmul_pipelined_c_ragged.wgsl", MATMUL_PIPELINED_C_RAGGED),
    ("matmul_pipelined_c_wide.wgsl", MATMUL_PIPELINED_C_WIDE),
    ("matmul_support.wgsl", MATMUL_SUPPORT),
    ("reduce.wgsl", REDUCE),
    ("reduce_subgroup.wgsl", REDUCE_SUBGROUP),
    ("reverse.wgsl", REVERSE),
    ("transpose.wgsl", TRANSPOSE),
    ("wide.wgsl", WIDE),
];
