//! The matmul planner's decisions: the split of K from the workgroups a multiprocessor holds,
//! the last wave's heads and tails, even shares of K, the ranking of the pipelined blocks by
//! waves, measured rates in the wave model, the small-M kernel's split (these launch nothing, on
//! the H100's profile and limits, `common::hopper_planner`, wherever a figure measured there is
//! the reason); and what a run reports of its plan: the lesson's load counts, a tile named by its
//! label finding its variant. The answers of the kernels are in `matmul.rs`.

mod common;
use common::{gpu, random_f32};
use tilekit::kernels::matmul::{selection_named, Precision, Selection, Shape, Variant};
use tilekit::plan::Tile;
use tilekit::Error;

/// The pipelined kernel's plan on the H100's profile and limits with `tile` forced.
fn hopper_pipelined_forced(m: u32, k: u32, n: u32, tile: &str) -> tilekit::Plan {
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    let tiling = PipelinedTiling {
        shape: Shape { m, k, n },
    };
    let planner = common::hopper_planner();
    let tile = planner.tile_named(&tiling, tile).unwrap();
    planner.plan_forced(&tiling, &tile).unwrap()
}

/// The pipelined kernel's register estimate and its workgroup memory decide how many workgroups a
/// multiprocessor holds, and with it the split of K. On the hopper profile each tile gets the
/// residency measured on the H100 (BENCHMARKS.md, "Workgroup memory per multiprocessor"): the
/// registers NVIDIA's driver allocated (scripts/device/stats: 64×64×8 has 167, six workgroups of 64
/// invocations, not seven), and the 48 KiB of workgroup memory its Vulkan driver gives a
/// multiprocessor (64×64×16 stages 16 KiB: three, where its registers would allow four). Sized for
/// seven, 64×8192×8192 ran in 7 splits, a second wave of workgroups: 287 µs against 232 in 6. Pure
/// planning: nothing is launched.
#[test]
fn the_split_of_k_counts_the_workgroups_a_multiprocessor_holds() {
    use tilekit::plan::Resource;
    let plan = hopper_pipelined_forced;
    // (tile, workgroups per multiprocessor on the H100, the resource that binds first)
    for (tile, resident, binds) in [
        ("128x128x8", 2, Resource::Registers),
        ("128x128x16", 1, Resource::Registers),
        ("128x64x16", 2, Resource::Registers),
        ("64x128x16", 2, Resource::Registers),
        ("64x64x16", 3, Resource::WorkgroupMemory),
        ("64x64x8", 6, Resource::Registers),
        // 512 invocations: the driver compiles them to fit one multiprocessor's 64 K registers
        // (128 and 127 registers on the H100).
        ("128x256x16", 1, Resource::Registers),
        ("128x256x8", 1, Resource::Registers),
    ] {
        let c = plan(4096, 4096, 4096, tile);
        let r = c.choice().residency;
        assert_eq!((r.workgroups, r.binding), (resident, binds), "{tile}");
    }
    // 128 blocks of 64×64 in 6 splits: 768 workgroups, one wave of 132 × 6.
    let p = plan(64, 8192, 8192, "64x64x8");
    assert_eq!((p.choice().splits, p.choice().workgroups), (6, 768));
    let p = plan(8192, 8192, 64, "64x64x8");
    assert_eq!(p.choice().splits, 6);
    // 64 blocks: 11 splits (704 workgroups) come within 12% of the best wave count (12 splits).
    assert_eq!(plan(64, 4096, 4096, "64x64x8").choice().splits, 11);
}

/// The plan says where the last wave is split (stream-K), and its grid counts the heads and the
/// tails: on the H100's profile 4096³ in 128×256×16 blocks is 512 blocks on 132 one-workgroup
/// multiprocessors, the last 116 split at slice 232 of 256 (628 workgroups); 4224×4096×4096 fills
/// four waves whole, 2048³ fits one, 4095³ has K and N ragged, and a split of K runs no stream-K.
/// 256×128×8 keeps its last wave whole: its stream-K entry ran 4096³ 10% slower than its whole
/// blocks (BENCHMARKS.md, "The last wave in heads and tails"). Pure planning: nothing is launched.
#[test]
fn the_plan_splits_a_partly_filled_last_wave_into_heads_and_tails() {
    let forced = hopper_pipelined_forced;
    let p = forced(4096, 4096, 4096, "128x256x16");
    let c = p.choice();
    let sk = c
        .stream_k
        .expect("4096³ leaves its last wave partly filled");
    assert_eq!((sk.first, sk.per, c.workgroups), (396, 232, 628));
    assert_eq!(p.dispatch.count, 628);
    assert!(p.why.contains("stream-K"), "{}", p.why);
    for (m, k, n) in [(4224, 4096, 4096), (2048, 2048, 2048), (4095, 4095, 4095)] {
        let p = forced(m, k, n, "128x256x16");
        assert_eq!(p.choice().stream_k, None, "{m}x{k}x{n}");
    }
    let p = forced(3000, 5000, 700, "64x64x8");
    assert!(p.choice().splits > 1 && p.choice().stream_k.is_none());
    let p = forced(4096, 4096, 4096, "256x128x8");
    assert_eq!((p.choice().splits, p.choice().stream_k), (1, None));
    assert_eq!(p.dispatch.count, 512);
}

/// Where the wave model estimates them faster, every block's slices are shared out evenly
/// (stream-K in even shares), one workgroup per slot: on the H100 1500³ in 128×256×16 blocks ran
/// in 165 µs so against 197 in three splits of K (72 blocks, 216 workgroups on 132
/// multiprocessors), 776×1236×2348 in 64×64×8 blocks in 128 against 137. Where they ran slower
/// the plan keeps whole blocks or the split: 4096³, whose blocks make three waves and more (the
/// last wave in heads and tails), and 3000×5001×701 in 64×64×8 blocks, 615 µs in shares against
/// 557 in three splits, where the wave model estimates the split faster (BENCHMARKS.md,
/// "Even shares for mid-size products"). Pure planning: nothing is launched.
#[test]
fn the_plan_shares_k_out_evenly_where_the_blocks_fall_short_of_whole_waves() {
    let forced = hopper_pipelined_forced;
    let p = forced(1500, 1500, 1500, "128x256x16");
    let c = p.choice();
    let sh = c.shares.expect("1500³: 72 blocks on 132 multiprocessors");
    assert_eq!((sh.workgroups, sh.units), (132, 47));
    assert_eq!((c.splits, c.workgroups, c.stream_k), (1, 132, None));
    assert_eq!(p.dispatch.count, 132);
    assert!(p.why.contains("shared out evenly"), "{}", p.why);
    let p = forced(776, 1236, 2348, "64x64x8");
    assert_eq!(p.choice().shares.map(|s| s.workgroups), Some(792));
    let p = forced(4096, 4096, 4096, "128x256x16");
    assert!(p.choice().shares.is_none() && p.choice().stream_k.is_some());
    // 4096 blocks of 64×64 on 132 × 6 slots: 5.2 waves, so not in shares (8% slower there).
    let p = forced(4096, 4096, 4096, "64x64x8");
    assert!(p.choice().shares.is_none(), "{}", p.why);
    // 288 blocks of 128×256, 2.2 waves: in shares (1313 → 1217 µs).
    assert!(forced(3072, 3072, 3072, "128x256x16")
        .choice()
        .shares
        .is_some());
    let p = forced(3000, 5001, 701, "64x64x8");
    assert!(p.choice().shares.is_none() && p.choice().splits == 3);
    // Never the 512-invocation blocks of BK = 8 (the shares entry spilled at 128×256×8).
    for tile in ["256x128x8", "128x256x8"] {
        assert_eq!(
            forced(1500, 1500, 1500, tile).choice().shares,
            None,
            "{tile}"
        );
    }
}

/// The pipelined blocks are ranked by the wave model, not by reuse: on the H100 (BENCHMARKS.md,
/// "Measured rates for the wave model", every block and split timed) 64×64×8 ran 777×1234×2345 in
/// 167 µs and 3000×5000×700 in 518, where 128×128×8, which reuses twice as much and was the
/// planner's choice before, took 191 and 651; at 2048³ one wave of 128×256×8 (392 µs) beats
/// 128×128×8 (419) and 64×64×8 (452). The score is the fraction of the FMA rate the launch keeps
/// busy. Pure planning: nothing is launched.
#[test]
fn the_planner_ranks_pipelined_blocks_by_the_waves_they_run() {
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    let planner = common::hopper_planner();
    let plan = |m, k, n| {
        planner
            .plan(&PipelinedTiling {
                shape: Shape { m, k, n },
            })
            .unwrap()
    };
    for ((m, k, n), tile) in [
        ((777, 1234, 2345), "64x64x8"),
        ((3000, 5000, 700), "64x64x8"),
        ((1000, 1000, 1000), "64x64x8"),
        ((2048, 2048, 2048), "128x256x8"),
        ((64, 8192, 8192), "64x64x8"),
    ] {
        let p = plan(m, k, n);
        assert_eq!(p.choice().label, tile, "{m}×{k}×{n}:\n{}", p.table());
        assert!(p.why.contains("FMA rate"), "{}", p.why);
        for c in &p.candidates {
            assert!(c.score > 0.0 && c.score <= 1.0, "{}: {}", c.label, c.score);
        }
    }
    // 133 blocks of 128×128 on 132 multiprocessors: whole, the last would double one
    // multiprocessor's time (the estimate about half of 64×64×8's, which fills one wave), so the
    // planner shares their slices out evenly instead; 64×64×8, shared too, still ranks first
    // (on the H100: 149 µs against 151, BENCHMARKS.md, "Even shares").
    let p = plan(777, 1234, 2345);
    let candidate = |label: &str| p.candidates.iter().find(|c| c.label == label).unwrap();
    assert!(candidate("128x128x8").shares.is_some());
    assert_eq!(p.choice().label, "64x64x8");
}

/// The wave model sees how a launch's workgroups fill the GPU, not how fast each block's code runs
/// once they do: on the H100 a 128×256 block ran 8192³ 7% faster per FMA than 64×64×8 (`tilekit
/// tune`'s trials, shipped as the hopper profile's measured rates). Scaled by those rates, the
/// estimate picks a 128×256 block where 64×64×8 ran 5–8% behind (1024×4096×512, 256×8192×2048, and
/// 768×3072×768; BENCHMARKS.md, "Measured rates for the wave model"; the model alone gives the last
/// two to 128×256 too: it counts that block's pipeline fill as the one slice it loads ahead, and
/// the partial products of its eight splits at 256×8192×2048 at 10 FLOP a byte) and keeps 64×64×8
/// where it was the fastest (777×1234×2345, 3000×5000×700: one wave of small blocks against a
/// second, nearly empty wave of large ones). Pure planning: nothing is launched.
#[test]
fn measured_rates_scale_the_wave_models_estimate() {
    use tilekit::kernels::matmul::blocked::BlockedTiling;
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    use tilekit::kernels::matmul::tune;
    let rates = tune::measured_defaults("hopper").unwrap().rates["pipelined"].clone();
    let plain = common::hopper_planner();
    let rated = common::hopper_planner().with_rates(rates.clone());
    let tiling = |m, k, n| PipelinedTiling {
        shape: Shape { m, k, n },
    };
    for ((m, k, n), without, with) in [
        ((768, 3072, 768), "128x256x8", "128x256x"),
        ((1024, 4096, 512), "64x64x8", "128x256x"),
        ((256, 8192, 2048), "128x256x8", "128x256x"),
        ((777, 1234, 2345), "64x64x8", "64x64x8"),
        ((3000, 5000, 700), "64x64x8", "64x64x8"),
        // C of 128 columns over many rows: the 512-invocation block the other way round, 384 µs
        // where 64×64×8 took 429 and 128×128×8 430 on the H100.
        ((8192, 8192, 128), "64x64x8", "256x128x8"),
    ] {
        let p = plain.plan(&tiling(m, k, n)).unwrap();
        let r = rated.plan(&tiling(m, k, n)).unwrap();
        assert_eq!(p.choice().label, without, "{m}×{k}×{n}:\n{}", p.table());
        // A 128×256 block (BK 8 or 16: within 2% of each other at these shapes), or the one
        // named.
        assert!(
            r.choice().label.starts_with(with),
            "{m}×{k}×{n}:\n{}",
            r.table()
        );
        // Each candidate's score is the model's estimate times its measured rate.
        for (a, b) in p.candidates.iter().zip(&r.candidates) {
            let rate = rates[&a.label];
            assert!(rate > 0.0 && rate <= 1.0, "{}: {rate}", a.label);
            assert_eq!(b.rate, Some(rate), "{}", a.label);
            assert_eq!(a.rate, None);
            assert!((b.score - a.score * rate).abs() < 1e-12, "{}", a.label);
        }
        assert!(r.table().contains("rate"), "{}", r.table());
        assert!(r.why.contains("of the fastest block's rate"), "{}", r.why);
    }
    // Rates are of the fastest block measured: one of them is 1.
    assert!(rates.values().any(|&r| r == 1.0), "{rates:?}");
    // Only the wave model uses them: the blocked kernel's reuse score ignores a rate under its
    // own label.
    let blocked = BlockedTiling {
        shape: Shape {
            m: 1000,
            k: 1000,
            n: 1000,
        },
    };
    let labels: Vec<String> = plain
        .analyse(&blocked)
        .into_iter()
        .map(|c| c.label)
        .collect();
    let all =
        common::hopper_planner().with_rates(labels.iter().map(|l| (l.clone(), 0.5)).collect());
    for (a, b) in plain.analyse(&blocked).iter().zip(all.analyse(&blocked)) {
        assert_eq!((b.rate, b.score), (None, a.score), "{}", a.label);
    }
}

/// The small-M kernel's splits on the hopper profile, with the registers NVIDIA's driver
/// allocated (f32 at eight rows per invocation: 72, three workgroups per multiprocessor). Sized
/// for four, f32 8×4096×4096 ran its 15 splits in two waves: 47 µs against 37 in 11
/// (BENCHMARKS.md, "The small-M kernel"). Pure planning: nothing is launched.
#[test]
fn the_small_m_kernels_split_counts_the_workgroups_the_registers_allow() {
    use tilekit::kernels::matmul::gemv::GemvTiling;
    let planner = common::hopper_planner();
    let plan = |m, k, n, precision| {
        let tiling = GemvTiling {
            shape: Shape { m, k, n },
            precision,
        };
        let p = planner.plan(&tiling).unwrap();
        let c = p.choice();
        (c.label.clone(), c.residency.workgroups, c.splits)
    };
    let tile = "WX=32,WK=8,KS=4".to_string();
    // 32 column groups; one wave holds 132 × 3 = 396 workgroups: 12 splits, 11 within 12%.
    assert_eq!(plan(8, 4096, 4096, Precision::F32), (tile.clone(), 3, 11));
    assert_eq!(plan(16, 4096, 4096, Precision::F32), (tile.clone(), 3, 6));
    // Four rows: 54 registers in f32 (four workgroups), 40 in f16 (six).
    assert_eq!(plan(4, 14336, 4096, Precision::F32), (tile.clone(), 4, 15));
    assert_eq!(plan(4, 14336, 4096, Precision::F16), (tile.clone(), 6, 22));
    // One row: the thread count binds (eight workgroups of 256).
    assert_eq!(plan(1, 4096, 4096, Precision::F16).1, 8);
}

#[test]
fn the_counts_follow_the_lesson() {
    let g = gpu();
    let (m, k, n) = (64, 64, 64);
    let a = random_f32(m * k, 1);
    let b = random_f32(k * n, 2);
    let (_, naive) = g
        .matmul(&a, &b, (m, k, n), &Selection::Variant(Variant::NAIVE))
        .wait()
        .unwrap();
    assert_eq!(
        naive.ratio, 1.0,
        "PMPP fig 4.3: one multiply-add per two loads"
    );
    let tile16 = Selection::Forced {
        variant: Variant::TILED,
        tile: Tile::square(16),
    };
    let (_, tiled) = g.matmul(&a, &b, (m, k, n), &tile16).wait().unwrap();
    assert_eq!(
        tiled.ratio, 16.0,
        "tiling cuts global loads by the tile width"
    );
    assert_eq!(naive.global_loads, 16 * tiled.global_loads);
}

#[test]
fn a_tile_without_a_variant_finds_the_variant_that_has_it() {
    let g = gpu();
    let (m, k, n) = (20, 30, 40);
    let a = random_f32(m * k, 3);
    let b = random_f32(k * n, 4);
    let shape = Shape::new(m, k, n).unwrap();
    let sel = selection_named(g, shape, Precision::F32, None, Some("TILE=8")).unwrap();
    let (_, run) = g.matmul(&a, &b, (m, k, n), &sel).wait().unwrap();
    assert_eq!(run.variant, Variant::TILED);
    assert_eq!(run.tile, "TILE=8");
    // A label no variant has: the error lists each variant's tiles, by name.
    let e = selection_named(g, shape, Precision::F32, None, Some("TILE=7")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("tiled: ") && text.contains("TILE=8"),
        "{text}"
    );
    // A tile another variant has, named for one that lacks it: the error names the variant.
    let e = selection_named(
        g,
        shape,
        Precision::F32,
        Some(Variant::BLOCKED),
        Some("TILE=8"),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownTile { kernel, .. } if kernel.contains("blocked")),
        "{e}"
    );
    // A typed tile no candidate of the variant is: the same error.
    let e = g
        .matmul(
            &a,
            &b,
            (m, k, n),
            &Selection::Forced {
                variant: Variant::BLOCKED,
                tile: Tile::square(8),
            },
        )
        .wait()
        .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownTile { kernel, .. } if kernel.contains("blocked")),
        "{e}"
    );
    // A tile the adapter cannot hold.
    let too_big = Selection::Forced {
        variant: Variant::TILED,
        tile: Tile::square(64),
    };
    assert!(g.matmul(&a, &a, (2, 3, 2), &too_big).wait().is_err());
}
