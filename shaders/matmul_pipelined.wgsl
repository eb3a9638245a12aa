// The pipelined matmul (joined after matmul_support.wgsl): the blocked kernel of matmul.wgsl
// with the three changes that close most of the gap to cuBLAS on large problems, and split-K for
// problems too small to fill the GPU with output blocks.
//
// 1. Double-buffered workgroup memory: while the workgroup multiplies slice s from one buffer, it
//    stores slice s+1 into the other, so one barrier per slice suffices instead of two (fig 4.16
//    needs the second barrier only because there is one buffer).
// 2. Register prefetch, two slices ahead: the global loads of slice s+2 are issued before the
//    multiply-adds of slice s and stored to workgroup memory only after those of slice s+1, so
//    their latency hides behind two slices of arithmetic (one slice was not enough on the H100:
//    BENCHMARKS.md, "The f32 kernel is held by its reads of workgroup memory").
// 3. 128-bit reads of workgroup memory: each invocation's 8×8 register tile is two 4-wide halves
//    of rows and of columns (rows 4·ty.. and BM/2 + 4·ty.., columns likewise), so every read of
//    `a_s`/`b_s` is one vec4 and eight neighbouring invocations read 128 consecutive bytes (no
//    bank conflicts, CUDA Handbook 8.1).
// Split-K: the launch covers `splits` copies of the output blocks; copy s multiplies the slice
// k in [s·k_split, (s+1)·k_split) and writes its own partial product, summed by `sum_splits`.
// Stream-K, in two forms (below): the last wave's blocks split into heads and tails
// (`pipelined_sk`), or every block's slices shared out evenly (`pipelined_stream`).
// The global loads of A and of B each come from one of two files joined after this one, the
// same kernel either way: `matmul_pipelined_a_wide.wgsl` where K is a multiple of 4 (each load
// 128 bits wide, 64 for f16), else `matmul_pipelined_a_ragged.wgsl` (each vec4 gathered from four
// scalar loads); `matmul_pipelined_b_wide.wgsl` or `matmul_pipelined_b_ragged.wgsl` by N alike.
// The stores of the output (`store_block`, `store_c`) come from one of two files joined last:
// `matmul_pipelined_c_wide.wgsl` (one vec4 each, into rows of `ld`, a multiple of 4: C where N
// is, else split-K partials) or, where one slice of K writes a C whose N is ragged,
// `matmul_pipelined_c_ragged.wgsl` (the block staged through workgroup memory and stored element
// by element in order, straight into C's rows of N).
// Element types from the prelude: A and B are `Elem4` (f32, or f16 kept as f16 in registers and
// widened to f32 as it is stored to workgroup memory: the scalar-unit f16 kernel), the output
// `Out4`; workgroup memory and the accumulators are f32 either way.

struct Params {
    m: u32,        // rows of A and C
    k: u32,        // columns of A = rows of B
    n: u32,        // B's row length: N, or N rounded up to 4 where B was copied (wide loads)
    tiles_x: u32,  // output blocks per row: ceil(ld / BN)
    tiles: u32,    // output blocks per split
    k_split: u32,  // K per split (a multiple of 2·BK: slices run in pairs)
    splits: u32,
    ld: u32,       // columns of the output: n rounded up to a multiple of 4
    lda: u32,      // A's row length: K, or K rounded up to 4 where A was copied (wide loads)
    // Stream-K (`pipelined_sk`, `sk_fixup`): the blocks from `sk_first` on are the last, partly
    // filled wave's, each split into a head (slices before `sk_per`) and a tail.
    sk_first: u32,
    sk_per: u32,
    // Even shares (`pipelined_stream`, `stream_fixup`): this many workgroups, each block's K
    // counted in this many units of two slices.
    sh_workgroups: u32,
    sh_units: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// A and B are bound by the files of loads (binding 0 and 1), the output by the file of stores
// (binding 2).
@group(0) @binding(3) var<uniform> p: Params;
// Stream-K's partial blocks, two of BM×BN per block of the last wave (its head's and its
// tail's), summed into C by `sk_fixup`.
@group(0) @binding(4) var<storage, read_write> sk_part: array<vec4<f32>>;

override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 16u;  // a multiple of 8
// How the block is fed, set per block by the host (pipelined.rs): AHEAD slices fetched from
// global memory ahead of the one multiplied (1 or 2), and with EARLY = 1 each k step's operands
// read from workgroup memory before the previous step's multiply-adds (one ahead only).
override AHEAD: u32 = 2u;
override EARLY: u32 = 0u;
// Each invocation computes 8×8 outputs; the workgroup is (BN/8)×(BM/8).
const MAX_LOADS: u32 = 4u;  // vec4 loads per invocation per slice, per operand (BK <= BM/4, BN/4)

var<workgroup> a_s: array<vec4<f32>, 2u * BK * BM / 4u>;  // [buffer][kk][BM/4]: A transposed
var<workgroup> b_s: array<vec4<f32>, 2u * BK * BN / 4u>;  // [buffer][kk][BN/4]

fn threads() -> u32 {
    return (BN / 8u) * (BM / 8u);
}

// Widened to f32 here, as it goes into workgroup memory.
fn store_a(buf: u32, me: u32, i: u32, raw: Elem4) {
    let v = vec4<f32>(raw);
    let e = me + i * threads();
    if (e < BM * BK / 4u) {
        let r = e / (BK / 4u);
        let kk = 4u * (e % (BK / 4u));
        let base = buf * BK * BM / 4u + r / 4u;
        a_s[base + kk * (BM / 4u)][r % 4u] = v.x;
        a_s[base + (kk + 1u) * (BM / 4u)][r % 4u] = v.y;
        a_s[base + (kk + 2u) * (BM / 4u)][r % 4u] = v.z;
        a_s[base + (kk + 3u) * (BM / 4u)][r % 4u] = v.w;
    }
}

fn store_b(buf: u32, me: u32, i: u32, raw: Elem4) {
    let e = me + i * threads();
    if (e < BK * BN / 4u) {
        b_s[buf * BK * BN / 4u + e] = vec4<f32>(raw);
    }
}

// One slice's global loads of an invocation: its vec4s of A and of B.
struct Slice {
    a: array<Elem4, MAX_LOADS>,
    b: array<Elem4, MAX_LOADS>,
}

// The loads of the slice at k0 (zeros past k_end).
fn fetch(me: u32, row0: u32, col0: u32, k0: u32, k_end: u32) -> Slice {
    var s: Slice;
    for (var i = 0u; i < (BM * BK / 4u + threads() - 1u) / threads(); i++) {
        s.a[i] = load_a(me, i, row0, k0, k_end);
    }
    for (var i = 0u; i < (BK * BN / 4u + threads() - 1u) / threads(); i++) {
        s.b[i] = load_b(me, i, col0, k0, k_end);
    }
    return s;
}

// A fetched slice into workgroup buffer `buf`.
fn stage(buf: u32, me: u32, s: Slice) {
    for (var i = 0u; i < (BM * BK / 4u + threads() - 1u) / threads(); i++) {
        store_a(buf, me, i, s.a[i]);
    }
    for (var i = 0u; i < (BK * BN / 4u + threads() - 1u) / threads(); i++) {
        store_b(buf, me, i, s.b[i]);
    }
}

// The multiply-adds of the slice in buffer `buf`: per k, one vec4 from each half of the
// invocation's rows of A and of its columns of B, 64 multiply-adds (fig 4.16's inner loop, on a
// register tile). In runs of 8 steps: NVIDIA's compiler unrolls a loop of 8 such steps and not
// one of 16, and a loop left rolled indexes the accumulators dynamically (40.6 against 31.9
// TFLOP/s at 128×128×16, 4096³).
fn multiply(acc: ptr<function, array<vec4<f32>, 16>>, buf: u32, lid: vec3<u32>) {
    let abase = buf * BK * BM / 4u;
    let bbase = buf * BK * BN / 4u;
    for (var k8 = 0u; k8 < BK; k8 += 8u) {
        if (EARLY == 1u) {
            // Each step's operands read a step early, so that the reads of workgroup memory
            // overlap the multiply-adds before them (with the operands in registers the 64
            // multiply-adds run 57.6 TFLOP/s on the H100, read every step 45.0: BENCHMARKS.md,
            // "The f32 kernel is held by its reads of workgroup memory"). It takes 16 more registers, which the 128×256 blocks' 128 have only
            // with one slice fetched ahead. The multiply-adds are written out in each branch, as
            // in the tested kernels: the driver's schedule follows how the loop is written.
            var a_lo = a_s[abase + k8 * (BM / 4u) + lid.y];
            var a_hi = a_s[abase + k8 * (BM / 4u) + BM / 8u + lid.y];
            var b_lo = b_s[bbase + k8 * (BN / 4u) + lid.x];
            var b_hi = b_s[bbase + k8 * (BN / 4u) + BN / 8u + lid.x];
            for (var kk = k8; kk < k8 + 8u; kk++) {
                let nk = min(kk + 1u, k8 + 7u);  // the run's last step reads its own again
                let na_lo = a_s[abase + nk * (BM / 4u) + lid.y];
                let na_hi = a_s[abase + nk * (BM / 4u) + BM / 8u + lid.y];
                let nb_lo = b_s[bbase + nk * (BN / 4u) + lid.x];
                let nb_hi = b_s[bbase + nk * (BN / 4u) + BN / 8u + lid.x];
                for (var i = 0u; i < 4u; i++) {
                    (*acc)[2u * i] += a_lo[i] * b_lo;
                    (*acc)[2u * i + 1u] += a_lo[i] * b_hi;
                    (*acc)[2u * (i + 4u)] += a_hi[i] * b_lo;
                    (*acc)[2u * (i + 4u) + 1u] += a_hi[i] * b_hi;
                }
                a_lo = na_lo;
                a_hi = na_hi;
                b_lo = nb_lo;
                b_hi = nb_hi;
            }
        } else {
            for (var kk = k8; kk < k8 + 8u; kk++) {
                let a_lo = a_s[abase + kk * (BM / 4u) + lid.y];
                let a_hi = a_s[abase + kk * (BM / 4u) + BM / 8u + lid.y];
                let b_lo = b_s[bbase + kk * (BN / 4u) + lid.x];
                let b_hi = b_s[bbase + kk * (BN / 4u) + BN / 8u + lid.x];
                for (var i = 0u; i < 4u; i++) {
                    (*acc)[2u * i] += a_lo[i] * b_lo;
                    (*acc)[2u * i + 1u] += a_lo[i] * b_hi;
                    (*acc)[2u * (i + 4u)] += a_hi[i] * b_lo;
                    (*acc)[2u * (i + 4u) + 1u] += a_hi[i] * b_hi;
                }
            }
        }
    }
}

// The slices [k_begin, k_end) of the block at (row0, col0) multiplied into `acc`: `slices` of
// them (0: none), in pairs.
fn block(acc: ptr<function, array<vec4<f32>, 16>>, row0: u32, col0: u32, k_begin: u32,
         k_end: u32, slices: u32, me: u32, lid: vec3<u32>) {
    // Two slices ahead (AHEAD = 2), two register sets take turns, one for the even slices and
    // one for the odd: each holds a slice from its global loads until it is stored to
    // workgroup memory a slice later. The loop body is written twice, once per set; copying
    // one set into the other every slice instead measured slower (39.1 against 42.6 TFLOP/s
    // at 64×128×8, 4096³). Either way the loads are unconditional: past the last slice they
    // give zeros, stored where nobody reads or multiplied into nothing. Behind an `if`,
    // NVIDIA's compiler merged the loads with the stores' identical `if` after the
    // multiply-adds, and no load hid behind arithmetic (35.2 TFLOP/s at 4096³ against 41.6
    // without the branch, BENCHMARKS.md). An odd number of slices runs one more slice of
    // zeros; the host makes split-K's share of K an even number of slices.

    if (AHEAD == 1u) {
        // One slice ahead: slice s+1 fetched as slice s is multiplied, then stored. The
        // registers this frees let EARLY read operands a step early; on the H100 the 128×256
        // blocks ran faster so, timed as variants of this shader (BENCHMARKS.md, "The f32 kernel is held by its reads of workgroup memory",
        // call p9: 4096³ 2812 µs against 2951 with EARLY, 128×4096×4096 at 128×256×8 107
        // against 114 without), the others slower.
        stage(0u, me, fetch(me, row0, col0, k_begin, k_end));
        workgroupBarrier();
        for (var s = 0u; s < slices; s += 2u) {
            let next_odd = fetch(me, row0, col0, k_begin + (s + 1u) * BK, k_end);
            multiply(acc, 0u, lid);
            stage(1u, me, next_odd);
            workgroupBarrier();
            let next_even = fetch(me, row0, col0, k_begin + (s + 2u) * BK, k_end);
            multiply(acc, 1u, lid);
            stage(0u, me, next_even);
            workgroupBarrier();
        }
    } else {
        // Prologue: slice 0 into buffer 0, slice 1 fetched.
        stage(0u, me, fetch(me, row0, col0, k_begin, k_end));
        var odd = fetch(me, row0, col0, k_begin + BK, k_end);
        var even: Slice;
        workgroupBarrier();

        for (var s = 0u; s < slices; s += 2u) {
            // Slice s (even) from buffer 0; slice s+2 fetched; slice s+1 stored to buffer 1.
            even = fetch(me, row0, col0, k_begin + (s + 2u) * BK, k_end);
            multiply(acc, 0u, lid);
            stage(1u, me, odd);
            // One barrier per slice: the next slice is stored, and nobody still reads the
            // buffer that the slice after it will overwrite (it was read before this barrier).
            workgroupBarrier();
            // Slice s+1 (odd) from buffer 1; slice s+3 fetched; slice s+2 stored to buffer 0.
            odd = fetch(me, row0, col0, k_begin + (s + 3u) * BK, k_end);
            multiply(acc, 1u, lid);
            stage(0u, me, even);
            workgroupBarrier();
        }
    }
}

// An invocation's 8×8 of the block at (row0, col0) into C, or into split `split`'s partial
// product, one `store_c` (from the file of stores) per vec4: rows past M are not stored.
fn store_tile(acc: ptr<function, array<vec4<f32>, 16>>, split: u32, row0: u32, col0: u32,
              lid: vec3<u32>) {
    for (var i = 0u; i < 8u; i++) {
        var r = row0 + 4u * lid.y + i;
        if (i >= 4u) {
            r = row0 + BM / 2u + 4u * lid.y + i - 4u;
        }
        if (r < p.m) {
            let c_lo = col0 + 4u * lid.x;
            store_c(split, r, c_lo, (*acc)[2u * i]);
            store_c(split, r, c_lo + BN / 2u, (*acc)[2u * i + 1u]);
        }
    }
}

@compute @workgroup_size(BN / 8u, BM / 8u)
fn pipelined(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = wid.x + wid.y * nwg.x;
    let split = t / p.tiles;
    let tile = t % p.tiles;
    let row0 = (tile / p.tiles_x) * BM;
    let col0 = (tile % p.tiles_x) * BN;
    let me = lid.y * (BN / 8u) + lid.x;
    let k_begin = min(split * p.k_split, p.k);
    let k_end = min(k_begin + p.k_split, p.k);
    // Workgroups past the last split (the 2-D fold rounds up) run no slices and store nothing.
    let idle = split >= p.splits;
    var slices = (k_end - k_begin + BK - 1u) / BK;
    if (idle) {
        slices = 0u;
    }

    var acc: array<vec4<f32>, 16>;  // row i (0..8) × column half h: acc[2i + h]
    for (var i = 0u; i < 16u; i++) {
        acc[i] = vec4<f32>(0.0);
    }
    block(&acc, row0, col0, k_begin, k_end, slices, me, lid);

    if (idle) {
        return;
    }
    store_block(&acc, split, row0, col0, lid);
}

// Stream-K (the last wave): where the blocks of C are not a whole number of waves of the
// workgroups resident at once, the blocks of the last, partly filled wave are each split in two,
// a head (slices [0, sk_per)) and a tail (the rest), each a workgroup that writes a partial
// block. The heads take a multiprocessor each and walk K together as a whole wave does; the
// tails, short, run on the multiprocessors the heads leave free, several one after another on
// each, so that the last wave ends about when the heads do instead of when whole blocks would.
// The workgroups before `sk_first` are the full waves' blocks, as in `pipelined`, in the same
// launch; the heads come next, then the tails. `sk_fixup` adds each head and tail into C. On the
// H100, f32 4096³ in 128×256 blocks (512 on 132 one-workgroup multiprocessors: 3.9 waves) ran as
// long as 4224×4096×4096 (528 blocks, 4 full waves): 2790 against 2788 µs. So split, 4096³ ran
// in 2773 µs against 2809, 6144³ in 9225 against 9432 (BENCHMARKS.md, "The last wave in heads and tails (stream-K)"). Each
// workgroup runs one range of slices: shares that crossed blocks, looped over in one workgroup,
// ran 10% slower at 4096³.
@compute @workgroup_size(BN / 8u, BM / 8u)
fn pipelined_sk(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = wid.x + wid.y * nwg.x;
    let me = lid.y * (BN / 8u) + lid.x;
    let heads = p.tiles - p.sk_first;
    // A full wave's block (all of K, into C), or the head (part 0) or tail (part 1) of the last
    // wave's block `sk_first + r`.
    var tile = t;
    var k_begin = 0u;
    var k_end = p.k;
    let x = t - p.sk_first;  // meaningful only past sk_first
    let part = x / heads;
    let r = x % heads;
    if (t >= p.sk_first) {
        tile = p.sk_first + r;
        if (part == 0u) {
            k_end = min(p.sk_per * BK, p.k);
        } else {
            k_begin = min(p.sk_per * BK, p.k);
        }
    }
    let idle = t >= p.sk_first && part >= 2u;  // past the last tail (the 2-D fold rounds up)
    var slices = (k_end - k_begin + BK - 1u) / BK;
    if (idle) {
        slices = 0u;
    }
    let row0 = (tile / p.tiles_x) * BM;
    let col0 = (tile % p.tiles_x) * BN;

    var acc: array<vec4<f32>, 16>;
    for (var i = 0u; i < 16u; i++) {
        acc[i] = vec4<f32>(0.0);
    }
    block(&acc, row0, col0, k_begin, k_end, slices, me, lid);

    if (idle) {
        return;
    }
    // The two kinds of block store apart, each in its own loop: with the choice made inside one
    // loop, for every row, NVIDIA's driver spilled the 256×128×8 block's registers into workgroup
    // memory and it ran slower than the 128×256 blocks (BENCHMARKS.md, "The f32 kernel is held by
    // its reads of workgroup memory").
    if (t < p.sk_first) {
        store_block(&acc, 0u, row0, col0, lid);
        return;
    }
    store_part(&acc, 2u * r + part, lid);
}

// An invocation's 8×8 of a partial block into slot `slot` of `sk_part` (BM×BN f32 each).
fn store_part(acc: ptr<function, array<vec4<f32>, 16>>, slot: u32, lid: vec3<u32>) {
    let at = slot * (BM * BN / 4u);
    for (var i = 0u; i < 8u; i++) {
        var lr = 4u * lid.y + i;
        if (i >= 4u) {
            lr = BM / 2u + 4u * lid.y + i - 4u;
        }
        sk_part[at + lr * (BN / 4u) + lid.x] = (*acc)[2u * i];
        sk_part[at + lr * (BN / 4u) + BN / 8u + lid.x] = (*acc)[2u * i + 1u];
    }
}

// Stream-K in even shares (`pipelined_stream`, then `stream_fixup`; Osama et al., PPoPP 2023):
// the blocks' units of K (two slices each: the pipeline runs slices in pairs) laid end to end,
// block after block, and cut into `sh_workgroups` even shares, one workgroup each, as many as the
// GPU holds at once (`share_start` and `share_of` in matmul_support.wgsl). Where the blocks fall
// short of whole waves (1500³ in 128×256 blocks: 72 blocks on 132 multiprocessors, or 216
// workgroups in three splits of K, a wave and two thirds), every multiprocessor still works to
// the end: 1500³ ran in 165 µs against 197 in three splits on the H100 (BENCHMARKS.md,
// "Even shares for mid-size products").
// A share, block after block: a block it holds whole goes into C as `pipelined` stores it; the
// piece at either end that holds part of a block goes to the workgroup's own partial block (slot
// 2w for its first piece, 2w + 1 for its last).
@compute @workgroup_size(BN / 8u, BM / 8u)
fn pipelined_stream(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_id) lid: vec3<u32>) {
    // Workgroups past the last share (the 2-D fold rounds up) get an empty one.
    let w = min(wid.x + wid.y * nwg.x, p.sh_workgroups);
    let me = lid.y * (BN / 8u) + lid.x;
    let units = p.sh_units;
    let first = share_start(w, p.tiles, units, p.sh_workgroups);
    let end = share_start(min(w + 1u, p.sh_workgroups), p.tiles, units, p.sh_workgroups);
    var it = first;
    loop {
        if (it >= end) {
            break;
        }
        let tile = it / units;
        let u0 = it % units;
        let u1 = min(units, u0 + (end - it));
        let k_begin = min(u0 * 2u * BK, p.k);
        let k_end = min(u1 * 2u * BK, p.k);
        let slices = (k_end - k_begin + BK - 1u) / BK;
        let row0 = (tile / p.tiles_x) * BM;
        let col0 = (tile % p.tiles_x) * BN;
        var acc: array<vec4<f32>, 16>;
        for (var i = 0u; i < 16u; i++) {
            acc[i] = vec4<f32>(0.0);
        }
        block(&acc, row0, col0, k_begin, k_end, slices, me, lid);
        if (u0 == 0u && u1 == units) {
            store_block(&acc, 0u, row0, col0, lid);
        } else {
            store_part(&acc, 2u * w + select(1u, 0u, it == first), lid);
        }
        it += u1 - u0;
    }
}

// The sum of even shares: each vec4 of every block that more than one share holds, its pieces
// added in the order of K, into C.
@compute @workgroup_size(SUPPORT_WG)
fn stream_fixup(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let q4 = BM * BN / 4u;
    let i = linear_id(wid, nwg, lid);
    if (i >= p.tiles * q4) {
        return;
    }
    let tile = i / q4;
    let q = i % q4;
    let lo = tile * p.sh_units;
    let held = shares_of_block(lo, p.tiles, p.sh_units, p.sh_workgroups);
    if (held.x == held.y) {
        return;  // one share held it whole and stored it
    }
    var v = vec4<f32>(0.0);
    for (var w = held.x; w <= held.y; w++) {
        v += sk_part[piece_slot(w, held.x, lo, p.tiles, p.sh_units, p.sh_workgroups) * q4 + q];
    }
    let row = (tile / p.tiles_x) * BM + q / (BN / 4u);
    let col = (tile % p.tiles_x) * BN + 4u * (q % (BN / 4u));
    if (row < p.m) {
        store_c(0u, row, col, v);
    }
}

// Stream-K's sum: each vec4 of the last wave's blocks, head plus tail (the order of K), into C.
@compute @workgroup_size(SUPPORT_WG)
fn sk_fixup(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_id) lid: vec3<u32>) {
    let q4 = BM * BN / 4u;  // vec4s per block
    let i = linear_id(wid, nwg, lid);
    if (i >= (p.tiles - p.sk_first) * q4) {
        return;
    }
    let r = i / q4;
    let q = i % q4;
    let v = sk_part[2u * r * q4 + q] + sk_part[(2u * r + 1u) * q4 + q];
    let tile = p.sk_first + r;
    let row = (tile / p.tiles_x) * BM + q / (BN / 4u);
    let col = (tile % p.tiles_x) * BN + 4u * (q % (BN / 4u));
    if (row < p.m) {
        store_c(0u, row, col, v);
    }
}
