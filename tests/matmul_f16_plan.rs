//! The f16 matmul planner's choices from hand-written adapter property lists, nothing launched:
//! the cooperative kernel only for a listed 16×16×16 f16→f32 fragment, the split of K by waves,
//! the block that follows C's columns, fewer splits where their partial products cost more than
//! they fill, and the f16 variants' registered features.

mod common;
use common::{caps, SQUARE};
use tilekit::gpu::CoopConfig;
use tilekit::kernels::matmul::coop::{CoopTiling, FRAGMENT};
use tilekit::kernels::matmul::{Precision, Shape, Variant};
use tilekit::Error;

#[test]
fn the_cooperative_kernel_is_planned_only_for_a_listed_16x16x16_f16_to_f32_fragment() {
    // The H100's list (docs/wgpu-notes.md): the kernel fits and the planner picks a tile within the
    // 48 KiB of workgroup memory, as a whole number of 32-wide subgroups.
    let h100 = vec![
        FRAGMENT,
        CoopConfig {
            m: 16,
            n: 8,
            k: 16,
            ab: "f16",
            cr: "f32",
        },
        CoopConfig {
            m: 16,
            n: 16,
            k: 16,
            ab: "f16",
            cr: "f16",
        },
    ];
    let tiling = CoopTiling::new(SQUARE, &caps(h100.clone(), [32, 32]), "h100").unwrap();
    let planner = common::hopper_planner();
    let plan = planner.plan(&tiling).unwrap();
    let c = plan.choice();
    assert!(c.usage.workgroup_bytes <= 48 * 1024, "{}", c.label);
    assert_eq!(c.usage.invocations % 32, 0);
    assert!(plan.table().contains(&c.label));

    // Only other fragments (an Apple-like 8×8 f32 list, or f16 accumulators only): refused,
    // and the error lists what the adapter has.
    for (list, shows) in [
        (vec![], "lists: none"),
        (
            vec![CoopConfig {
                m: 8,
                n: 8,
                k: 8,
                ab: "f32",
                cr: "f32",
            }],
            "8x8x8 f32→f32",
        ),
        (h100[1..].to_vec(), "16x8x16 f16→f32"),
    ] {
        let e = CoopTiling::new(SQUARE, &caps(list, [32, 32]), "other").unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::Unsupported { .. }), "{text}");
        assert!(
            text.contains("16x16x16 f16→f32") && text.contains(shows),
            "{text}"
        );
    }
    // A fixed subgroup of 4: the epilogue holds a fragment's 256 / SG values per invocation in
    // an array of 32.
    let e = CoopTiling::new(SQUARE, &caps(h100.clone(), [4, 4]), "tiny").unwrap_err();
    assert!(
        e.to_string().contains("at least 8") && e.to_string().contains("4–4"),
        "{e}"
    );
    for fine in [8, 16, 32, 64] {
        assert!(CoopTiling::new(SQUARE, &caps(h100.clone(), [fine, fine]), "ok").is_ok());
    }
    // A subgroup size that varies (32 to 64): the workgroup cannot be sized in subgroups.
    let e = CoopTiling::new(SQUARE, &caps(h100, [32, 64]), "amd").unwrap_err();
    assert!(e.to_string().contains("32–64"), "{e}");
}

#[test]
fn the_plan_splits_k_by_waves_of_the_workgroups_a_multiprocessor_holds() {
    // The hopper profile: 132 multiprocessors; a 128×256 block holds one of them on its own
    // (its registers), so slots are counted in those.
    let planner = common::hopper_planner();
    let plan = |m, k, n| {
        let shape = Shape { m, k, n };
        let tiling = CoopTiling::new(shape, &caps(vec![FRAGMENT], [32, 32]), "h100").unwrap();
        planner.plan(&tiling).unwrap()
    };
    // 2048³: 16 rows × 8 columns of 128×256 blocks, 128 on 132 multiprocessors: one wave
    // already, so K stays whole.
    let p = plan(2048, 2048, 2048);
    assert_eq!(
        (p.choice().label.as_str(), p.choice().splits),
        ("128x256x16", 1)
    );
    assert_eq!(p.choice().workgroups, 128);
    // 128×4096×4096: 16 large blocks over a deep K. Counted with its split (8 ways: 128
    // workgroups, one wave), the large block fills the GPU and wins over the small ones.
    let p = plan(128, 4096, 4096);
    let c = p.choice();
    assert_eq!(
        (c.label.as_str(), c.splits, c.workgroups),
        ("128x256x16", 8, 128)
    );
    assert!(p.why.contains("8 splits"), "{}", p.why);
    assert_eq!(p.dispatch.count, 128);
    // 4096³: 512 blocks, four waves whatever the split: none.
    assert_eq!(plan(4096, 4096, 4096).choice().splits, 1);
}

/// The cooperative kernel's rates that tilekit ships for the hopper profile (H100).
fn shipped_coop_rates() -> std::collections::BTreeMap<String, f64> {
    tilekit::kernels::matmul::tune::measured_defaults("hopper")
        .unwrap()
        .rates["coop"]
        .clone()
}

/// The cooperative kernel's blocks ranked by the wave model (the whole blocks' multiply-adds,
/// overhang included, times each block's rate): on the H100 the fastest block depends on how many
/// columns C has (BENCHMARKS.md, "Split of K by waves" and its history in git, medians of every
/// block, µs): 128×64 to 64 columns (8192×8192×64: 96 against 256×64's 103 and 128×256's 157),
/// 128×256 from 192 (8192×8192×256: 173 against 128×128×32's 217) and at the squares, 32×512 for an
/// A of 24 rows (73 against 81); and since the two cooperative blocks that load in groups were
/// added, 128×128×16 in groups from 65 to 128 columns (8192×8192×128: 110 against 128×128×32's 131
/// and 128×256's 152) and 64×128×16 in groups for an A of 33 to 64 rows (64×8192×8192: 68 against
/// 32×512's 77 and 128×256's 90). At 8192×8192×128 64×128×16 in groups runs as fast as 128×128×16
/// (109 against 112 µs, both in two splits on the H100), and which of the two the shipped rates put
/// first has changed between tunes. With the H100's shipped rates the planner picks each of those;
/// with no rates at all (a GPU nobody tuned) each block's rate is taken from its reuse, and the
/// planner still picks the wide and tall blocks where they belong. Pure planning.
#[test]
fn the_cooperative_block_follows_the_columns_of_c() {
    let caps = caps(vec![FRAGMENT], [32, 32]);
    let shipped = shipped_coop_rates();
    let pick = |planner: &tilekit::Planner, m, k, n| {
        let tiling = CoopTiling::new(Shape { m, k, n }, &caps, "h100").unwrap();
        planner.plan(&tiling).unwrap().choice().label.clone()
    };
    let rated = common::hopper_planner().with_rates(shipped.clone());
    // C of 128 columns: one of the two blocks that load in groups and fit it, not 128×256 or
    // 128×128×32 (152 and 131 µs there).
    let narrow = pick(&rated, 8192, 8192, 128);
    assert!(
        ["128x128x16", "64x128x16"].contains(&narrow.as_str()),
        "8192×8192×128, the H100's rates: {narrow}"
    );
    for ((m, k, n), block) in [
        ((8192, 8192, 64), "128x64x16"),
        ((8192, 8192, 256), "128x256x16"),
        ((4096, 4096, 4096), "128x256x16"),
        ((24, 14336, 4096), "32x512x16"),
        ((64, 8192, 8192), "64x128x16"),
    ] {
        assert_eq!(
            pick(&rated, m, k, n),
            block,
            "{m}×{k}×{n}, the H100's rates"
        );
    }
    let unrated = common::hopper_planner();
    for ((m, k, n), block) in [
        ((8192, 8192, 128), "128x128x32"),
        ((8192, 8192, 256), "128x256x16"),
        ((4096, 4096, 4096), "128x256x16"),
        ((24, 14336, 4096), "32x512x16"),
    ] {
        assert_eq!(pick(&unrated, m, k, n), block, "{m}×{k}×{n}, no rates");
    }
    // A block a tune never timed (added since) is taken to run no faster than the slowest it
    // did: with 128×64's rate left out, 256×64 is chosen for 64 columns.
    let mut rates = shipped;
    rates.remove("128x64x16");
    let stale = common::hopper_planner().with_rates(rates);
    assert_eq!(pick(&stale, 8192, 8192, 64), "256x64x16");
}

/// The waves rule proposes how many splits of K fill the GPU; it does not see what the partial
/// products cost, and for the matrix units they cost several times what the scalar units pay. So
/// the planner takes the fewest splits up to the rule's count that the wave model estimates
/// fastest. On the H100 (BENCHMARKS.md, "Split of K by waves"), 128×256×16 in one split against the
/// rule's count, µs: 1500³ 54.7 against 79.2 in five, 2304×768×3072 63.6 against 122.0 in three,
/// 4096×1024×640 41.8 against 69.5 in four; where the split paid it is kept (1700×3300×900 in
/// two, 70.6 against 96.5 in seven; 300×8192×3000 in seven). Pure planning.
#[test]
fn the_wave_model_takes_fewer_splits_where_their_partial_products_cost_more_than_they_fill() {
    let caps = caps(vec![FRAGMENT], [32, 32]);
    let rated = common::hopper_planner().with_rates(shipped_coop_rates());
    // (shape, splits run, splits the waves rule proposed)
    for ((m, k, n), splits, proposed) in [
        ((1500, 1500, 1500), 1, 5),
        ((2304, 768, 3072), 1, 3),
        ((4096, 1024, 640), 1, 4),
        ((1700, 3300, 900), 2, 7),
        ((300, 8192, 3000), 7, 7),
    ] {
        let tiling = CoopTiling::new(Shape { m, k, n }, &caps, "h100").unwrap();
        let plan = rated.plan(&tiling).unwrap();
        let choice = plan.choice();
        assert_eq!(
            (choice.label.as_str(), choice.splits),
            ("128x256x16", splits),
            "{m}×{k}×{n}:\n{}",
            plan.table()
        );
        // The plan says what the waves rule proposed, and why the model ran fewer.
        assert_eq!(choice.waves_splits, proposed, "{m}×{k}×{n}");
        assert_eq!(
            plan.why.contains("partial products"),
            proposed > splits,
            "{}",
            plan.why
        );
    }
}

#[test]
fn every_f16_variant_is_registered_with_the_features_it_needs() {
    let f16: Vec<_> = Variant::all()
        .filter(|k| k.precision() == Precision::F16)
        .collect();
    assert_eq!(f16.len(), 3);
    for k in f16 {
        assert!(
            k.needs().contains(wgpu::Features::SHADER_F16),
            "{}",
            k.name()
        );
    }
    assert!(Variant::COOP
        .needs()
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX));
}
