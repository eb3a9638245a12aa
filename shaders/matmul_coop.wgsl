// The cooperative-matrix matmul (joined after the prelude, which enables f16 and
// wgpu_cooperative_matrix, and matmul_support.wgsl): the tiling of lesson 02 feeding the matrix
// units (tensor cores) instead of the scalar FMA units.
//
// The same three levels as the blocked kernel, one level up in size:
// - a workgroup owns a BM×BN block of C and walks K in slices of BK, staging each slice of A
//   (BM×BK) and of B (BK×BN) in workgroup memory as f16, double-buffered with one barrier per
//   slice, while the global loads of the slice after next are in flight in registers (one
//   slice ahead, as in matmul_pipelined.wgsl, is not enough for the matrix units); the blocks
//   for few columns or few rows, and the 32×512 block where its splits are deep (GROUP = 4, set
//   by the host: coop.rs, `BLOCKS` and `group_at`), issue the loads of four slices at once, a
//   group ahead;
// - each subgroup owns a 32×64 part of the block: 2×4 accumulator fragments of 16×16 f32 held in
//   its registers for the whole of K (the register tile of the blocked kernel, spread over the
//   subgroup's invocations by the hardware);
// - per 16-deep step, the subgroup loads 2 fragments of A and 4 of B from workgroup memory
//   (`coopLoadT`: row-major) and issues 8 `coopMultiplyAdd`s, 16·16·16 multiply-adds each, on the
//   matrix units: 6 fragment loads for 8 products.
// The fragment grid is written out (named members of `Acc`), not an array indexed in a loop: on
// the H100 an array of fragments ran at a quarter of the speed (28 against 87-131 TFLOP/s at
// 4096³, BENCHMARKS.md), the driver keeping it in memory instead of registers. 2×4 per subgroup
// beat 4×4 and 4×2: a 128×256 block is then 16 subgroups, and more subgroups per multiprocessor
// hide the latency of the loads (the residency lesson, PMPP 4.7).
// Rows of the staged slices are padded by 8 halves (16 bytes), so that the 8 rows one load phase
// reads start in different banks (CUDA Handbook 8.1, the padded transpose of lesson 05).
// The staged slices are arrays of vec4<f16>, as they are loaded: each vec4 is staged by one
// store, and `coopLoadT` reads the fragments from them with strides counted in vec4s (a
// cooperative load from an array of vectors counts in its elements, as SPIR-V's does). The
// driver had already merged the four f16 stores of the scalar layout into one, but the vector
// layout still ran faster, its addressing simpler (BENCHMARKS.md, "What holds the f16 kernel").
// The global loads of every slice that lies wholly inside K are unmasked: their addresses are
// computed once (`origins`), rows past M and columns past N clamped to the last one, so they only
// ever reach rows and columns of C that are not stored. Only the slices at the end of K go
// through the masked loads (`fetch_edge`: zeros outside, PMPP fig 4.20). Masking every load cost
// a quarter of the speed on the H100 (186 against 243–247 TFLOP/s at 4096³, BENCHMARKS.md): a
// bounds-checked value is a select after the load, and the driver placed the selects, waiting
// for the loads, before the barrier of the slice that issued them.
// The epilogue stores each fragment to the subgroup's 16×16 f32 scratch in workgroup memory, and
// the subgroup's invocations copy it to C with bounds checks (any M and N; f16 or f32 out), each
// reading its whole share before storing any (`store_frag`): a vec4 at a time into rows of a
// multiple of 4 (`matmul_coop_c_wide.wgsl`: C where N is a multiple of 4, and the partial
// products), else element by element (`_c_ragged.wgsl`: a C of ragged N in one slice).
// Split-K as in the pipelined kernel: copy s of the output blocks multiplies the slice
// [s·k_split, (s+1)·k_split) of K into its own f32 partial product, summed by `sum_splits`; or
// even shares (`coop_stream`, `stream_fixup`), where the blocks fall short of whole waves.
// The global loads are joined after this file, one file for A (`a_origin`, `fetch_a`,
// `load_a_edge`) and one for B (`b_origin`, `fetch_b`, `load_b_edge`): `matmul_coop_a_wide.wgsl`
// where K is a multiple of 4 and `matmul_coop_b_wide.wgsl` where N is (every load 64 bits wide;
// elsewhere the host copies a ragged K or N into such rows with `pad`), or `_a_ragged.wgsl` and
// `_b_ragged.wgsl`, which read a ragged K or N where it lies, four scalar loads per vec4 (skinny
// products, where the copies would cost more than the product).

struct CoopParams {
    m: u32,        // rows of A and C
    k: u32,        // columns of A = rows of B
    n: u32,        // columns of B
    tiles_x: u32,  // output blocks per row: ceil(n / BN)
    tiles: u32,    // output blocks per split
    k_split: u32,  // K per split (a multiple of BK)
    splits: u32,
    n_out: u32,    // columns of C to store (<= n)
    ld: u32,       // row length of the output (C's N, or the partials' row)
    // Even shares (`coop_stream`, `stream_fixup`): this many workgroups, each block's K counted
    // in this many slices.
    sh_workgroups: u32,
    sh_units: u32,
    _p2: u32,
}

@group(0) @binding(3) var<uniform> cp: CoopParams;
// Even shares' partial blocks: two of BM×BN f32 per workgroup (its share's first and last piece),
// summed into C by `stream_fixup`.
@group(0) @binding(4) var<storage, read_write> sh_part: array<f32>;

override BM: u32 = 128u;  // rows of the workgroup's block of C
override BN: u32 = 128u;  // columns of the block
override BK: u32 = 32u;   // depth of a slice (a multiple of 16)
const WM: u32 = 32u;      // rows of C per subgroup: 2 fragments
const WN: u32 = 64u;      // columns of C per subgroup: 4 fragments
override SG: u32 = 32u;   // the adapter's subgroup size
override GROUP: u32 = 1u; // slices whose loads go out together: 1, or 4 (the loop in groups)
const FRAG: u32 = 16u;    // the fragment: 16×16×16 (coop_mat16x16)
const MAX_LOADS: u32 = 8u;  // vec4 loads per invocation per slice, per operand
const LANE_VALUES_MAX: u32 = 32u;  // a fragment's values per invocation: 256 / SG, SG >= 8
const VEC_VALUES_MAX: u32 = 8u;    // its vec4s per invocation: 64 / SG rounded up

// Row strides of the staged slices, in vec4s of halves: padded by 8 halves (16 bytes).
override AS4: u32 = (BK + 8u) / 4u;
override BS4: u32 = (BN + 8u) / 4u;
override SUBGROUPS_N: u32 = BN / WN;
override INVOCATIONS: u32 = (BM / WM) * (BN / WN) * SG;
// Every override comes before the arrays below: naga 30.0.1 panics applying the pipeline
// constants of a module that declares one after an override-sized array (docs/wgpu-notes.md 15).

// The fragment loads need rows that start on 16 bytes. The driver lays the workgroup variables
// out one after the other (on the H100 the last declared first), so a further variable must be a
// multiple of 16 bytes: one more u32 among them shifted a_s and b_s by 8 bytes, and the products
// came out wrong.
var<workgroup> a_s: array<vec4<f16>, 2u * BM * (BK + 8u) / 4u>;   // [buffer][row][k / 4]
var<workgroup> b_s: array<vec4<f16>, 2u * BK * (BN + 8u) / 4u>;   // [buffer][k][column / 4]
var<workgroup> c_s: array<f32, (BM / WM) * (BN / WN) * 256u>;  // one fragment per subgroup

// One slice's global loads of an invocation: its vec4s of A and of B. An array indexed by the
// loop variable costs nothing here (no local memory, the same speed as named members on the
// H100, BENCHMARKS.md): the loops' bounds are constants once the planner's overrides are set,
// and the driver unrolls them.
struct Slice {
    a: array<vec4<f16>, MAX_LOADS>,
    b: array<vec4<f16>, MAX_LOADS>,
}

// Where an invocation's loads of the slice at k = 0 are (in vec4s of A and of B, or in elements
// where K or N is ragged): the same for every slice but for the step in k, so computed once.
// Rows past M and columns past N are clamped to the last: what they load only reaches rows and
// columns of C that are not stored.
// An invocation with no load of its own (more invocations than vec4s) repeats the last one.
struct Origins {
    a: array<u32, MAX_LOADS>,
    b: array<u32, MAX_LOADS>,
}

fn origins(me: u32, row0: u32, col0: u32) -> Origins {
    var o: Origins;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BM * BK / 4u % INVOCATIONS != 0u) {
            e = min(e, BM * BK / 4u - 1u);
        }
        o.a[i] = a_origin(row0 + e / (BK / 4u), e % (BK / 4u));
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BK * BN / 4u % INVOCATIONS != 0u) {
            e = min(e, BK * BN / 4u - 1u);
        }
        o.b[i] = b_origin(e / (BN / 4u), col0 / 4u + e % (BN / 4u));
    }
    return o;
}

// The loads of the slice at k0, which lies wholly inside K: unmasked.
fn fetch(o: Origins, k0: u32) -> Slice {
    var s: Slice;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.a[i] = fetch_a(o.a[i], k0);
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.b[i] = fetch_b(o.b[i], k0);
    }
    return s;
}

// The loads of a slice at the end of K: zeros past k_end and outside the matrices (a slice
// beyond the last adds nothing).
fn fetch_edge(me: u32, row0: u32, col0: u32, k0: u32, k_end: u32) -> Slice {
    var s: Slice;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.a[i] = load_a_edge(me, i, row0, k0, k_end);
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.b[i] = load_b_edge(me, i, col0, k0, k_end);
    }
    return s;
}

// A fetched slice into workgroup buffer `buf`.
fn stage(buf: u32, me: u32, s: Slice) {
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        let e = me + i * INVOCATIONS;
        if (e < BM * BK / 4u) {
            a_s[buf * BM * AS4 + (e / (BK / 4u)) * AS4 + e % (BK / 4u)] = s.a[i];
        }
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        let e = me + i * INVOCATIONS;
        if (e < BK * BN / 4u) {
            b_s[buf * BK * BS4 + (e / (BN / 4u)) * BS4 + e % (BN / 4u)] = s.b[i];
        }
    }
}

// Four slices' loads, issued together (GROUP = 4): each row of A is then read 4·BK deep at once
// instead of BK deep (32 bytes at BK = 16) every slice.
struct Group {
    s0: Slice,
    s1: Slice,
    s2: Slice,
    s3: Slice,
}

// The group of four slices at k0, which lie wholly inside K: unmasked.
fn fetch_group(o: Origins, k0: u32) -> Group {
    return Group(fetch(o, k0), fetch(o, k0 + BK), fetch(o, k0 + 2u * BK), fetch(o, k0 + 3u * BK));
}

// The group at k0 at the end of K: masked (zeros past k_end).
fn fetch_group_edge(me: u32, row0: u32, col0: u32, k0: u32, k_end: u32) -> Group {
    return Group(fetch_edge(me, row0, col0, k0, k_end),
                 fetch_edge(me, row0, col0, k0 + BK, k_end),
                 fetch_edge(me, row0, col0, k0 + 2u * BK, k_end),
                 fetch_edge(me, row0, col0, k0 + 3u * BK, k_end));
}

// The first group of a split: either of the two. Chosen here, by a return from each branch; the
// same choice written in the loop's caller as an `if` around two assignments to the group made
// the whole loop slower than even the one-loop form below (106 against 85 µs at 8192×8192×64 on
// the H100, BENCHMARKS.md, "What holds the f16 kernel"), though its disassembly shows no repacking: the driver's
// schedule depends on how the branch is written, so the form that ran fast is kept.
fn fetch_first_group(o: Origins, me: u32, row0: u32, col0: u32, k0: u32, k_end: u32) -> Group {
    if (k0 + 4u * BK <= k_end) {
        return fetch_group(o, k0);
    }
    return fetch_group_edge(me, row0, col0, k0, k_end);
}

// A subgroup's 2×4 accumulator fragments: rows i, columns j of 16×16 f32.
struct Acc {
    c00: coop_mat16x16<f32, C>,
    c01: coop_mat16x16<f32, C>,
    c02: coop_mat16x16<f32, C>,
    c03: coop_mat16x16<f32, C>,
    c10: coop_mat16x16<f32, C>,
    c11: coop_mat16x16<f32, C>,
    c12: coop_mat16x16<f32, C>,
    c13: coop_mat16x16<f32, C>,
}

// The subgroup's share of the staged slice in buffer `buf`: its fragments of A and of B, loaded
// from workgroup memory, multiplied into its accumulators on the matrix units.
fn multiply(acc: ptr<function, Acc>, buf: u32, sub_row: u32, sub_col: u32) {
    let abase = buf * BM * AS4 + sub_row * AS4;
    let bbase = buf * BK * BS4 + sub_col / 4u;
    // [lesson] the lines the tour quotes
    for (var kf = 0u; kf < BK / FRAG; kf++) {
        let fa0 = coopLoadT<coop_mat16x16<f16, A>>(&a_s[abase + kf * FRAG / 4u], AS4);
        let fa1 = coopLoadT<coop_mat16x16<f16, A>>(
            &a_s[abase + FRAG * AS4 + kf * FRAG / 4u], AS4);
        let fb0 = coopLoadT<coop_mat16x16<f16, B>>(&b_s[bbase + kf * FRAG * BS4], BS4);
        let fb1 = coopLoadT<coop_mat16x16<f16, B>>(
            &b_s[bbase + kf * FRAG * BS4 + 1u * FRAG / 4u], BS4);
        let fb2 = coopLoadT<coop_mat16x16<f16, B>>(
            &b_s[bbase + kf * FRAG * BS4 + 2u * FRAG / 4u], BS4);
        let fb3 = coopLoadT<coop_mat16x16<f16, B>>(
            &b_s[bbase + kf * FRAG * BS4 + 3u * FRAG / 4u], BS4);
        (*acc).c00 = coopMultiplyAdd(fa0, fb0, (*acc).c00);
        (*acc).c01 = coopMultiplyAdd(fa0, fb1, (*acc).c01);
        (*acc).c02 = coopMultiplyAdd(fa0, fb2, (*acc).c02);
        (*acc).c03 = coopMultiplyAdd(fa0, fb3, (*acc).c03);
        (*acc).c10 = coopMultiplyAdd(fa1, fb0, (*acc).c10);
        (*acc).c11 = coopMultiplyAdd(fa1, fb1, (*acc).c11);
        (*acc).c12 = coopMultiplyAdd(fa1, fb2, (*acc).c12);
        (*acc).c13 = coopMultiplyAdd(fa1, fb3, (*acc).c13);
    }
    // [/lesson]
}

// One slice: its multiply-adds from buffer `buf`, the next slice (`next`, fetched earlier)
// staged into the other buffer, then the one barrier per slice, as in the pipelined kernel: the
// next slice is stored, and nobody still reads the buffer that the slice after it overwrites.
fn step(acc: ptr<function, Acc>, buf: u32, me: u32, sub_row: u32, sub_col: u32, next: Slice) {
    multiply(acc, buf, sub_row, sub_col);
    stage(1u - buf, me, next);
    workgroupBarrier();
}

// A group's four slices: its slices 1–3, then the first of the group after it (`next`, fetched
// a group earlier), staged as the slice before each is multiplied.
fn group_steps(acc: ptr<function, Acc>, me: u32, sub_row: u32, sub_col: u32, g: Group,
               next: Slice) {
    step(acc, 0u, me, sub_row, sub_col, g.s1);
    step(acc, 1u, me, sub_row, sub_col, g.s2);
    step(acc, 0u, me, sub_row, sub_col, g.s3);
    step(acc, 1u, me, sub_row, sub_col, next);
}

// One accumulator fragment to the output (rows r0.., columns c0..) through the subgroup's
// scratch: `store_share` (in `_c_wide.wgsl` or `_c_ragged.wgsl`) copies it out. The fragment is
// bound with `let` first: naga 30's SPIR-V writer panicked on an argument expression passed
// straight to coopStore (docs/wgpu-notes.md 7).
// Each invocation reads all of its share of the scratch before it stores any, in loops of a
// constant count, so that the reads can go out together rather than each store waiting for its
// read (the likely cause, from the timings; the compiled code was not read). With one loop of
// read-then-store whose start depends on the invocation, the epilogue was most of a short-K
// block's time (H100, BENCHMARKS.md, "The cooperative kernel's epilogue": f16 2944×128×9280 85.3 → 70.0 µs,
// 640×128×14080 35.7 → 29.2, 4096³ 548 → 544).
fn store_frag(frag: coop_mat16x16<f32, C>, scratch: u32, out: u32, r0: u32, c0: u32, lane: u32) {
    let f = frag;
    coopStoreT(f, &c_s[scratch], FRAG);
    workgroupBarrier();
    store_share(scratch, out, r0, c0, lane);
    workgroupBarrier();
}

// The block's multiply-adds over K from k_begin to k_end into the subgroup's accumulators.
fn block(acc: ptr<function, Acc>, me: u32, row0: u32, col0: u32, k_begin: u32, k_end: u32,
         sub_row: u32, sub_col: u32) {
    let slices = (k_end - k_begin + BK - 1u) / BK;
    if (GROUP == 4u) {
        // In groups of four slices (the blocks for few columns, where the product is bound by
        // reading A, and those for few rows, 32×512 over deep splits among them, bound by reading
        // B): the loads of group g+1 go out together as group g starts, so each row of A is read
        // 4·BK halves deep at once, not 32 bytes at a time, and they have three slices of work to
        // arrive in before the first of them is staged. Past the last slice a group's loads give
        // zeros, multiplied into nothing. H100 (BENCHMARKS.md, "What holds the f16 kernel"), µs against a slice at
        // a time: 8192×8192×64 103 against 124, 16384×8192×64 182 against 229; but 1000×4104×60,
        // in 29 splits of 9 slices that the groups pad to 12, 22.9 against 21.2. Running only the
        // slices there are (uniform branches around the last three) cost 3% at 8192×8192×64, and
        // choosing the loop by the split's depth (both loops in one pipeline) 2–4% on the shapes
        // that group.
        let o = origins(me, row0, col0);
        let inside = (k_end - k_begin) / BK;  // slices wholly inside K
        var group = fetch_first_group(o, me, row0, col0, k_begin, k_end);
        stage(0u, me, group.s0);
        workgroupBarrier();
        // The loop twice, as in the other path: unmasked while the group ahead lies wholly
        // inside K, then masked. One loop whose fetch chose between the two (a branch in it) ran
        // 95 µs at 8192×8192×64 against 85, and 166 against 144 at 16384×8192×64 (H100,
        // BENCHMARKS.md, "What holds the f16 kernel"): where its branches joined, the driver repacked the loaded
        // halves into the registers it had given the group right after issuing the loads (its
        // disassembly: 24 loads, then 48 byte permutes of their results), so each group's loads
        // were waited for at once, not three slices later.
        var s = 0u;
        for (; s + 8u <= inside; s += 4u) {
            let ahead = fetch_group(o, k_begin + (s + 4u) * BK);
            group_steps(acc, me, sub_row, sub_col, group, ahead.s0);
            group = ahead;
        }
        for (; s < slices; s += 4u) {
            let ahead = fetch_group_edge(me, row0, col0, k_begin + (s + 4u) * BK, k_end);
            group_steps(acc, me, sub_row, sub_col, group, ahead.s0);
            group = ahead;
        }
    } else {
        // Prologue: slice 0 into buffer 0, slice 1 fetched into registers.
        stage(0u, me, fetch_edge(me, row0, col0, k_begin, k_end));
        var next = fetch_edge(me, row0, col0, k_begin + BK, k_end);
        workgroupBarrier();

        // Two slices ahead: the loads of slice s+2 have this slice's and the next slice's
        // multiply-adds to arrive in, not just this one's. One slice ahead, the matrix units
        // finish a 128×256×16 slice long before its successor's loads return, and wait
        // (133 against 186 TFLOP/s at 4096³ on the H100, BENCHMARKS.md).
        // The loop twice: while slice s+2 lies wholly inside K its loads are unmasked, then
        // the last slices' are masked (past the last slice they give zeros, never used).
        let o = origins(me, row0, col0);
        let inside = (k_end - k_begin) / BK;
        var s = 0u;
        for (; s + 2u < inside; s++) {
            let ahead = fetch(o, k_begin + (s + 2u) * BK);
            step(acc, s % 2u, me, sub_row, sub_col, next);
            next = ahead;
        }
        for (; s < slices; s++) {
            let ahead = fetch_edge(me, row0, col0, k_begin + (s + 2u) * BK, k_end);
            step(acc, s % 2u, me, sub_row, sub_col, next);
            next = ahead;
        }
    }

}

// The subgroup's accumulators into the output at rows r0.., columns c0.., each fragment through
// the subgroup's scratch (`store_frag`), with bounds checks.
fn store_acc(acc: ptr<function, Acc>, out: u32, r0: u32, c0: u32, scratch: u32, lane: u32) {
    store_frag((*acc).c00, scratch, out, r0, c0, lane);
    store_frag((*acc).c01, scratch, out, r0, c0 + 1u * FRAG, lane);
    store_frag((*acc).c02, scratch, out, r0, c0 + 2u * FRAG, lane);
    store_frag((*acc).c03, scratch, out, r0, c0 + 3u * FRAG, lane);
    store_frag((*acc).c10, scratch, out, r0 + FRAG, c0, lane);
    store_frag((*acc).c11, scratch, out, r0 + FRAG, c0 + 1u * FRAG, lane);
    store_frag((*acc).c12, scratch, out, r0 + FRAG, c0 + 2u * FRAG, lane);
    store_frag((*acc).c13, scratch, out, r0 + FRAG, c0 + 3u * FRAG, lane);
}

@compute @workgroup_size(INVOCATIONS)
fn coop(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) me: u32) {
    let t = wid.x + wid.y * nwg.x;
    let split = t / cp.tiles;
    let tile = t % cp.tiles;
    if (split >= cp.splits) {
        return;  // past the last split (the 2-D fold rounds up): the whole workgroup leaves
    }
    let row0 = (tile / cp.tiles_x) * BM;
    let col0 = (tile % cp.tiles_x) * BN;
    let k_begin = min(split * cp.k_split, cp.k);
    let k_end = min(k_begin + cp.k_split, cp.k);

    let sub = me / SG;     // this invocation's subgroup
    let lane = me % SG;
    let sub_row = (sub / SUBGROUPS_N) * WM;
    let sub_col = (sub % SUBGROUPS_N) * WN;

    let zero = coop_mat16x16<f32, C>();
    var acc = Acc(zero, zero, zero, zero, zero, zero, zero, zero);
    block(&acc, me, row0, col0, k_begin, k_end, sub_row, sub_col);
    // Epilogue: each fragment through the subgroup's scratch, then to C with bounds checks.
    store_acc(&acc, split * cp.m * cp.ld, row0 + sub_row, col0 + sub_col, sub * 256u, lane);
}

// One accumulator fragment into a partial block of `sh_part` at `at`, rows `stride` apart (a
// stride passed in: read from the uniform in the call, it panicked naga's SPIR-V writer,
// docs/wgpu-notes.md 7). A partial block is whole (BM×BN), so no bounds and no scratch.
fn piece_frag(frag: coop_mat16x16<f32, C>, at: u32, stride: u32) {
    let f = frag;
    coopStoreT(f, &sh_part[at], stride);
}

// The subgroup's accumulators into partial block `slot`.
fn store_piece(acc: ptr<function, Acc>, slot: u32, sub_row: u32, sub_col: u32) {
    let at = slot * BM * BN + sub_row * BN + sub_col;
    piece_frag((*acc).c00, at, BN);
    piece_frag((*acc).c01, at + 1u * FRAG, BN);
    piece_frag((*acc).c02, at + 2u * FRAG, BN);
    piece_frag((*acc).c03, at + 3u * FRAG, BN);
    piece_frag((*acc).c10, at + FRAG * BN, BN);
    piece_frag((*acc).c11, at + FRAG * BN + 1u * FRAG, BN);
    piece_frag((*acc).c12, at + FRAG * BN + 2u * FRAG, BN);
    piece_frag((*acc).c13, at + FRAG * BN + 3u * FRAG, BN);
}

// Even shares (`coop_stream`, then `stream_fixup`), as the pipelined kernel's `pipelined_stream`
// (`share_start` in matmul_support.wgsl): every block's slices laid end to end, block after
// block, and cut into `sh_workgroups` even shares, one workgroup each, as many as the GPU holds
// at once, so that where the blocks fall short of whole waves every multiprocessor still works
// to the end. A block a share holds whole goes into C as `coop` stores it; the piece at either
// end that holds part of a block goes to the workgroup's own partial block (slot 2w for its first
// piece, 2w + 1 for its last). Loads in groups (GROUP = 4) are not used here: the host sets
// GROUP = 1.
@compute @workgroup_size(INVOCATIONS)
fn coop_stream(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) me: u32) {
    // Workgroups past the last share (the 2-D fold rounds up) get an empty one.
    let w = min(wid.x + wid.y * nwg.x, cp.sh_workgroups);
    let units = cp.sh_units;
    let first = share_start(w, cp.tiles, units, cp.sh_workgroups);
    let end = share_start(min(w + 1u, cp.sh_workgroups), cp.tiles, units, cp.sh_workgroups);
    let sub = me / SG;
    let lane = me % SG;
    let sub_row = (sub / SUBGROUPS_N) * WM;
    let sub_col = (sub % SUBGROUPS_N) * WN;
    let zero = coop_mat16x16<f32, C>();
    var it = first;
    loop {
        if (it >= end) {
            break;
        }
        let tile = it / units;
        let u0 = it % units;
        let u1 = min(units, u0 + (end - it));
        let row0 = (tile / cp.tiles_x) * BM;
        let col0 = (tile % cp.tiles_x) * BN;
        var acc = Acc(zero, zero, zero, zero, zero, zero, zero, zero);
        block(&acc, me, row0, col0, min(u0 * BK, cp.k), min(u1 * BK, cp.k), sub_row, sub_col);
        if (u0 == 0u && u1 == units) {
            store_acc(&acc, 0u, row0 + sub_row, col0 + sub_col, sub * 256u, lane);
        } else {
            store_piece(&acc, 2u * w + select(1u, 0u, it == first), sub_row, sub_col);
        }
        it += u1 - u0;
    }
}

// The sum of even shares: each vec4 of every block that more than one share holds, its pieces
// added in the order of K, into C (`store_c4`, in the file of stores).
@compute @workgroup_size(SUPPORT_WG)
fn stream_fixup(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let q4 = BM * BN / 4u;
    let i = linear_id(wid, nwg, lid);
    if (i >= cp.tiles * q4) {
        return;
    }
    let tile = i / q4;
    let q = i % q4;
    let lo = tile * cp.sh_units;
    let held = shares_of_block(lo, cp.tiles, cp.sh_units, cp.sh_workgroups);
    if (held.x == held.y) {
        return;  // one share held it whole and stored it
    }
    var v = vec4<f32>(0.0);
    for (var w = held.x; w <= held.y; w++) {
        let slot = piece_slot(w, held.x, lo, cp.tiles, cp.sh_units, cp.sh_workgroups);
        let at = slot * BM * BN + 4u * q;
        v += vec4<f32>(sh_part[at], sh_part[at + 1u], sh_part[at + 2u], sh_part[at + 3u]);
    }
    let row = (tile / cp.tiles_x) * BM + q / (BN / 4u);
    let col = (tile % cp.tiles_x) * BN + 4u * (q % (BN / 4u));
    store_c4(row, col, v);
}
