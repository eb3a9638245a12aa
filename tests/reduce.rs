//! Reductions on a real adapter against CPU references: every variant, operator and type, sizes
//! around the workgroup size and across several passes; integers exact, f32 sums within the
//! pairwise bound, NaN propagation.

mod common;
use common::{gpu, random_f32, random_i32, random_u32};
use tilekit::kernels::reduce::{Element, Op, Variant};

const SIZES: [usize; 7] = [1, 2, 255, 256, 257, 65_537, 1_000_003];

/// The variants this adapter runs. One it lacks a feature for must refuse with a typed error
/// naming the feature (checked here), never run or skip silently.
fn variants() -> Vec<Variant> {
    let g = gpu();
    let x = random_f32(100, 1);
    Variant::ALL
        .into_iter()
        .filter(|v| {
            if g.features().contains(v.needs()) {
                return true;
            }
            match g.reduce_with(&x, Op::Sum, *v).wait() {
                Err(tilekit::Error::MissingFeature { feature, .. }) => {
                    assert!(feature.contains("SUBGROUP"), "{feature}")
                }
                other => panic!("{v:?} without its feature: {other:?}"),
            }
            false
        })
        .collect()
}

fn run<T: Element>(data: &[T], op: Op, v: Variant) -> T {
    gpu()
        .reduce_with(data, op, v)
        .wait()
        .unwrap_or_else(|e| panic!("{v:?} {op:?} n={}: {e}", data.len()))
        .0
}

/// (⌈log₂ n⌉ + 2)·2⁻²⁴·Σ|xᵢ|: the pairwise-summation bound the f32 sum is held to.
fn sum_bound(x: &[f32]) -> f64 {
    let n = x.len() as f64;
    (n.log2().ceil() + 2.0) * 2f64.powi(-24) * x.iter().map(|v| v.abs() as f64).sum::<f64>()
}

#[test]
fn f32_sum_min_max_within_bounds() {
    for v in variants() {
        for (i, &n) in SIZES.iter().enumerate() {
            let x = random_f32(n, 1000 + i as u64);
            let exact: f64 = x.iter().map(|&v| v as f64).sum();
            let got = run(&x, Op::Sum, v) as f64;
            assert!(
                (got - exact).abs() <= sum_bound(&x),
                "{v:?} n={n}: {got} vs {exact}"
            );
            let min = x.iter().cloned().fold(f32::INFINITY, f32::min);
            let max = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(run(&x, Op::Min, v), min, "{v:?} min n={n}");
            assert_eq!(run(&x, Op::Max, v), max, "{v:?} max n={n}");
        }
    }
}

#[test]
fn integers_are_exact_and_sums_wrap() {
    for v in variants() {
        for (i, &n) in SIZES.iter().enumerate() {
            let x = random_i32(n, 2000 + i as u64, -1_000_000, 1_000_000);
            let sum = x.iter().fold(0i32, |a, &b| a.wrapping_add(b));
            assert_eq!(run(&x, Op::Sum, v), sum, "{v:?} i32 sum n={n}");
            assert_eq!(
                run(&x, Op::Min, v),
                *x.iter().min().unwrap(),
                "{v:?} i32 min n={n}"
            );
            assert_eq!(
                run(&x, Op::Max, v),
                *x.iter().max().unwrap(),
                "{v:?} i32 max n={n}"
            );
            // Full-range u32 values: the sum wraps modulo 2^32 for every n > 1.
            let u = random_u32(n, 3000 + i as u64);
            let sum = u.iter().fold(0u32, |a, &b| a.wrapping_add(b));
            assert_eq!(run(&u, Op::Sum, v), sum, "{v:?} u32 sum n={n}");
            assert_eq!(
                run(&u, Op::Min, v),
                *u.iter().min().unwrap(),
                "{v:?} u32 min n={n}"
            );
            assert_eq!(
                run(&u, Op::Max, v),
                *u.iter().max().unwrap(),
                "{v:?} u32 max n={n}"
            );
        }
    }
}

#[test]
fn nan_propagates() {
    for v in variants() {
        for &(n, at) in &[(1usize, 0usize), (300, 299), (70_000, 12_345)] {
            let mut x = random_f32(n, 7);
            x[at] = f32::NAN;
            for op in Op::ALL {
                assert!(
                    run(&x, op, v).is_nan(),
                    "{v:?} {op:?} n={n}: NaN at {at} lost"
                );
            }
        }
    }
}

#[test]
fn large_inputs_take_several_passes() {
    let g = gpu();
    let x = random_i32(1_000_003, 5, -100, 100);
    let (s, run) = g
        .reduce_with(&x, Op::Sum, Variant::Workgroup)
        .wait()
        .unwrap();
    assert_eq!(s, x.iter().sum::<i32>());
    // 1,000,003 → 3,907 → 16 → 1 with 256-wide workgroups.
    assert_eq!(run.launches, 3);
    assert!(run.bytes > 4_000_000 && run.gbps() > 0.0);
    let (s, run) = g
        .reduce_with(&x, Op::Sum, Variant::GridStride)
        .wait()
        .unwrap();
    assert_eq!(s, x.iter().sum::<i32>());
    assert!(
        run.launches <= 3,
        "grid-stride uses few launches: {}",
        run.launches
    );
}

#[test]
fn the_default_variant_is_supported_and_correct() {
    let g = gpu();
    let x = random_f32(12_345, 11);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let got = g.reduce(&x, Op::Sum).wait().unwrap() as f64;
    assert!((got - exact).abs() <= sum_bound(&x));
    assert!(g.reduce::<f32>(&[], Op::Sum).wait().is_err());
}

#[test]
fn the_untimed_call_on_a_device_buffer_matches_the_reference() {
    // `reduce_value` (no timestamp queries) is what a program calls in a loop: the answer must
    // be right on every call, also when the pooled partial buffers are reused.
    let g = gpu();
    for (i, &n) in [1usize, 257, 65_537, 1_000_003].iter().enumerate() {
        let x = random_f32(n, 40 + i as u64);
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let dx = g.upload("x", &x).wait().unwrap();
        for call in 0..3 {
            let got = g.reduce(&dx, Op::Sum).wait().unwrap() as f64;
            assert!(
                (got - exact).abs() <= sum_bound(&x),
                "n={n} call {call}: {got} vs {exact}"
            );
        }
        let max = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(g.reduce(&dx, Op::Max).wait().unwrap(), max, "n={n}");
        let u = random_u32(n, 50 + i as u64);
        let du = g.upload("u", &u).wait().unwrap();
        let wrapped = u.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        assert_eq!(g.reduce(&du, Op::Sum).wait().unwrap(), wrapped, "n={n}");
    }
}

#[test]
fn a_repeated_call_reuses_its_prepared_launches_and_reads_the_buffers_contents() {
    // Its own Gpu: the recipe count below must not see other tests' calls.
    let g = tilekit::Gpu::with_options(tilekit::GpuOptions::default())
        .wait()
        .unwrap();
    let n = 300_007;
    let x = random_f32(n, 60);
    let dx = g.upload("x", &x).wait().unwrap();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let before = g.stats().recipes;
    for call in 0..2 {
        let got = g.reduce(&dx, Op::Sum).wait().unwrap() as f64;
        assert!(
            (got - exact).abs() <= sum_bound(&x),
            "call {call}: {got} vs {exact}"
        );
    }
    assert_eq!(
        g.stats().recipes,
        before + 1,
        "the second call on the same buffer prepares nothing new"
    );
    drop(dx);
    // A new upload of the same size takes the pooled allocation back, id and all, so the
    // prepared launches bind it again: they must read what is in it now.
    for seed in 61..64 {
        let y = random_f32(n, seed);
        let dy = g.upload("y", &y).wait().unwrap();
        let exact: f64 = y.iter().map(|&v| v as f64).sum();
        let got = g.reduce(&dy, Op::Sum).wait().unwrap() as f64;
        assert!(
            (got - exact).abs() <= sum_bound(&y),
            "seed {seed}: {got} vs {exact}"
        );
    }
    // The global variant reduces a scratch copy in place: the second call must copy the input
    // again, not reduce what the first call left in the scratch.
    let z = random_f32(n, 64);
    let dz = g.upload("z", &z).wait().unwrap();
    let exact: f64 = z.iter().map(|&v| v as f64).sum();
    for call in 0..2 {
        let (got, _) = g.reduce_with(&dz, Op::Sum, Variant::Global).wait().unwrap();
        let got = got as f64;
        assert!(
            (got - exact).abs() <= sum_bound(&z),
            "global, call {call}: {got} vs {exact}"
        );
    }
    assert!(g.stats().recipes <= tilekit::pool::MAX_RECIPES);
}

#[test]
fn one_pass_is_one_launch_and_every_call_counts_from_zero() {
    // The last workgroup to finish combines every partial and sets the count back to zero. A
    // count left over by one call would make no workgroup the last in the next, which would
    // then return the value left in the output by the call before: so each call here reduces
    // new values in the same prepared launch (a new upload of the same size takes the pooled
    // allocation back, and with it the launch, its count and its output). A value that
    // depended on which workgroup came last would change between calls on the same values.
    // Its own Gpu: the recipe count below must not see other tests' calls.
    let g = tilekit::Gpu::with_options(tilekit::GpuOptions::default())
        .wait()
        .unwrap();
    let v = Variant::OnePass;
    if !variants().contains(&v) {
        return; // variants() checked the typed refusal for lack of subgroups
    }
    for (i, &n) in [1usize, 257, 65_537, 1_000_003].iter().enumerate() {
        let recipes = g.stats().recipes;
        for call in 0..4u64 {
            let x = random_f32(n, 70 + 10 * i as u64 + call);
            let dx = g.upload("x", &x).wait().unwrap();
            let exact: f64 = x.iter().map(|&v| v as f64).sum();
            let mut bits = None;
            for again in 0..2 {
                let (got, run) = g.reduce_with(&dx, Op::Sum, v).wait().unwrap();
                assert_eq!(run.launches, 1, "n={n}");
                assert!(
                    ((got as f64) - exact).abs() <= sum_bound(&x),
                    "n={n} call {call}.{again}: {got} vs {exact}"
                );
                assert_eq!(*bits.get_or_insert(got.to_bits()), got.to_bits(), "n={n}");
            }
            let max = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(
                g.reduce_with(&dx, Op::Max, v).wait().unwrap().0,
                max,
                "n={n}"
            );
        }
        assert_eq!(
            g.stats().recipes,
            recipes + 2,
            "n={n}: one prepared launch per operator, reused by every call"
        );
    }
}

#[test]
fn threads_calling_one_pass_on_one_buffer_share_its_count() {
    // Every call on this buffer takes the same prepared launch, and with it the same count:
    // wgpu orders the calls' uses of it (a read-write binding gets a barrier between uses).
    let g = gpu();
    if !variants().contains(&Variant::OnePass) {
        return; // variants() checked the typed refusal for lack of subgroups
    }
    let x = random_u32(300_001, 80);
    let want = x.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let dx = g.upload("x", &x).wait().unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let dx = &dx;
            s.spawn(move || {
                for call in 0..50 {
                    let (got, _) = g.reduce_with(dx, Op::Sum, Variant::OnePass).wait().unwrap();
                    assert_eq!(got, want, "thread {t} call {call}");
                }
            });
        }
    });
}
