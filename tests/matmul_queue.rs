//! Queued products (`Gpu::matmul_queue`): submitted without a wait, run in the order queued,
//! each seeing what the ones before it wrote, read back whole at the end. Every C is poisoned
//! before it is queued (the test GPU poisons every output) and checked against the f64
//! reference of the operands it was given: a product that ran before its input was written, or
//! read a scratch buffer a later call had already refilled, fails.

mod common;
use common::{gpu, random_f32};
use tilekit::kernels::matmul::{f32_bound, reference, verify, verify_sampled, Selection, Shape};
use tilekit::{DeviceBuffer, Error};

/// A chain, C of each product the A of the next, queued in full before anything is read; then
/// every C read (the first ones after the later products have run) and checked against the
/// reference of its own A, read back, times its B. The shapes are ragged, so that the padding
/// copies and the split-K partials are scratch buffers handed back to the pool while the GPU may
/// still be reading them, and taken again by the next call.
#[test]
fn a_chain_of_queued_products_runs_in_order() {
    let g = gpu();
    let m = 37;
    let dims = [53usize, 29, 41, 1234, 23];
    let a0 = random_f32(m * dims[0], 1);
    let mut cs: Vec<DeviceBuffer<f32>> = vec![g.upload("A", &a0).wait().unwrap()];
    let mut bs = Vec::new();
    for (i, w) in dims.windows(2).enumerate() {
        let (k, n) = (w[0], w[1]);
        let b = random_f32(k * n, 10 + i as u64);
        let db = g.upload("B", &b).wait().unwrap();
        let dc = g.alloc::<f32>("C", m * n).wait().unwrap();
        let shape = Shape::new(m, k, n).unwrap();
        let chosen = g
            .matmul_queue(cs.last().unwrap(), &db, &dc, shape, &Selection::Auto)
            .wait()
            .unwrap();
        assert!(chosen.plan.is_some() || chosen.variant.name() == "naive");
        cs.push(dc);
        bs.push((b, k, n));
    }
    let mut a = a0;
    for (i, (b, k, n)) in bs.iter().enumerate() {
        let c = g.read(&cs[i + 1]).wait().unwrap();
        let (exact, mag) = reference(&a, b, m, *k, *n);
        verify(&c, &exact, &mag, *k).unwrap_or_else(|e| panic!("product {i}, {m}x{k}x{n}: {e}"));
        a = c;
    }
}

/// The same ragged product queued again and again with other operands, each C kept, while a
/// large product keeps the GPU busy, so that the calls are held back to be submitted together
/// (`Gpu::enqueue`). Every call copies A and B into rows of 4 (the run says "padded"), and the
/// copies go back to the pool as soon as the call is recorded; A and B go back too, and the next
/// call's uploads take them from the pool and write them (`queue.write_buffer`, which runs before
/// the next submission's commands): unless the calls held back are submitted before each write,
/// a call reads the next one's operands (checked on lavapipe: without it, C of a call held back
/// comes out wrong).
/// Then 600 calls queued with nothing else between them, gathered up to 8 to a submission: all
/// of them right. (The limit on submissions in flight, `QUEUED_HELD`, is not reached here:
/// lavapipe had finished each of the 77 submissions before the next went, counted once.)
#[test]
fn queued_calls_reuse_their_scratch_only_after_it_is_read() {
    let g = gpu();
    // A and B each read by 8 blocks of 64×64: both copied (tests/matmul.rs, "copied only where
    // many blocks read it").
    let tile = Selection::Forced {
        variant: tilekit::kernels::matmul::Variant::PIPELINED,
        tile: tilekit::plan::Tile::block(64, 64, 8),
    };
    let (m, k, n) = (450, 45, 451);
    let shape = Shape::new(m, k, n).unwrap();
    let probe = g
        .matmul(
            &random_f32(m * k, 5),
            &random_f32(k * n, 6),
            (m, k, n),
            &tile,
        )
        .wait()
        .unwrap()
        .1;
    assert!(probe.tile.contains("padded A and B"), "{}", probe.tile);
    // Every C allocated (and poisoned, which waits) before the GPU is made busy.
    let cs: Vec<_> = (0..6)
        .map(|_| g.alloc::<f32>("C", m * n).wait().unwrap())
        .collect();
    let big = 512;
    let (xa, xb) = (random_f32(big * big, 40), random_f32(big * big, 41));
    let (dxa, dxb) = (
        g.upload("A", &xa).wait().unwrap(),
        g.upload("B", &xb).wait().unwrap(),
    );
    let dxc = g.alloc::<f32>("C", big * big).wait().unwrap();
    let big_shape = Shape::new(big, big, big).unwrap();
    g.matmul_queue(&dxa, &dxb, &dxc, big_shape, &Selection::Auto)
        .wait()
        .unwrap();
    let mut queued = Vec::new();
    for (i, dc) in cs.iter().enumerate() {
        let seed = 20 + 2 * i as u64;
        let (a, b) = (random_f32(m * k, seed), random_f32(k * n, seed + 1));
        let (da, db) = (
            g.upload("A", &a).wait().unwrap(),
            g.upload("B", &b).wait().unwrap(),
        );
        g.matmul_queue(&da, &db, dc, shape, &tile).wait().unwrap();
        // A and B dropped here: back to the pool, for the next call's uploads.
        queued.push((a, b));
    }
    for (i, ((a, b), dc)) in queued.iter().zip(&cs).enumerate() {
        let (exact, mag) = reference(a, b, m, k, n);
        verify(&g.read(dc).wait().unwrap(), &exact, &mag, k)
            .unwrap_or_else(|e| panic!("call {i}: {e}"));
    }
    let c = g.read(&dxc).wait().unwrap();
    verify_sampled(&xa, &xb, &c, (big, big, big), 64, f32_bound).unwrap();

    let (m, k, n) = (9, 13, 11);
    let shape = Shape::new(m, k, n).unwrap();
    // Operands uploaded and C allocated first: an upload or a poisoning would submit the calls
    // held itself.
    let many: Vec<_> = (0..100u64)
        .map(|i| {
            let (a, b) = (random_f32(m * k, 100 + i), random_f32(k * n, 300 + i));
            let (da, db) = (
                g.upload("A", &a).wait().unwrap(),
                g.upload("B", &b).wait().unwrap(),
            );
            let dc = g.alloc::<f32>("C", m * n).wait().unwrap();
            (a, b, da, db, dc)
        })
        .collect();
    for _ in 0..6 {
        for (_, _, da, db, dc) in &many {
            g.matmul_queue(da, db, dc, shape, &Selection::Auto)
                .wait()
                .unwrap();
        }
    }
    g.synchronize().wait().unwrap();
    for (i, (a, b, _, _, dc)) in many.iter().enumerate() {
        let (exact, mag) = reference(a, b, m, k, n);
        verify(&g.read(dc).wait().unwrap(), &exact, &mag, k)
            .unwrap_or_else(|e| panic!("call {i}: {e}"));
    }
}

/// Bad input is refused when queued, with the same typed errors as a call that waits, and
/// nothing is submitted: the queue goes on.
#[test]
fn a_queued_call_refuses_bad_input_before_submitting() {
    let g = gpu();
    let (m, k, n) = (7, 5, 3);
    let a = random_f32(m * k, 7);
    let b = random_f32(k * n, 8);
    let (da, db) = (
        g.upload("A", &a).wait().unwrap(),
        g.upload("B", &b).wait().unwrap(),
    );
    let dc = g.alloc::<f32>("C", m * n).wait().unwrap();
    let wrong = Shape::new(m, k + 1, n).unwrap();
    match g
        .matmul_queue(&da, &db, &dc, wrong, &Selection::Auto)
        .wait()
    {
        Err(Error::DimensionMismatch { what, .. }) => assert!(what.contains("matrix A"), "{what}"),
        other => panic!("expected a dimension mismatch, got {other:?}"),
    }
    let small = g.alloc::<f32>("C too small", m * n - 1).wait().unwrap();
    let shape = Shape::new(m, k, n).unwrap();
    assert!(matches!(
        g.matmul_queue(&da, &db, &small, shape, &Selection::Auto)
            .wait(),
        Err(Error::DimensionMismatch { .. })
    ));
    g.matmul_queue(&da, &db, &dc, shape, &Selection::Auto)
        .wait()
        .unwrap();
    let (exact, mag) = reference(&a, &b, m, k, n);
    verify(&g.read(&dc).wait().unwrap(), &exact, &mag, k).unwrap();
}
