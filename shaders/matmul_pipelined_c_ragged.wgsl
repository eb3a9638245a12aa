// The output's stores of the pipelined matmul where one slice of K writes a C whose N is not a
// multiple of 4 (joined after matmul_pipelined.wgsl and its loads): C's rows start at any
// element, so no vec4 of them can be bound as one, and every element is a scalar store (`ld` is N
// here). Written as a padded partial product instead, the result took a second pass
// (`sum_splits`) to copy into C: on the H100, f32 in one split, 4095³ 3074 against 2990 µs
// stored straight, 2048×2048×2047 402 against 394, 8191×4095×61 384 against 359 (BENCHMARKS.md,
// "Ragged operands: copied or read in place").
@group(0) @binding(2) var<storage, read_write> c1: array<Out>;

// The 4 columns from c of row r (one slice of K: `split` is 0), each up to N: the fixups' store.
fn store_c(split: u32, r: u32, c: u32, v: vec4<f32>) {
    for (var j = 0u; j < 4u; j++) {
        if (c + j < p.ld) {
            c1[r * p.ld + c + j] = Out(v[j]);
        }
    }
}

// The workgroup's block of C into C: staged through workgroup memory and stored in order,
// consecutive invocations on consecutive elements of a row, as `sum_splits` stores a ragged C.
// Each invocation's own vec4 of a row stored as four scalars puts a subgroup's stores 4 elements
// apart, each store instruction touching four times the memory it writes; where K is short that
// is most of the kernel's time (H100, µs: 4095×64×4095 140 against 78 staged, 8154×88×2993 225
// against 152, 6464×200×1001 120 against 93; 2048×2048×2047 384 against 370). A small C goes
// straight, four scalars per vec4 (`store_tile`): under 2^19 elements the staging's sixteen
// barriers at the end of every workgroup cost more than the order saves (70×142×3195 18.0 µs
// against 19.2 staged, 130×142×3195 18.0 against 18.8, 100×40×1001 8.6 against 9.8; but
// 300×88×3195 17.4 against 13.3), and where C has fewer than 4 columns there is nothing to put
// in order. Keep that branch a runtime one: with the staged store alone, NVIDIA's driver gave
// the main loop fewer registers (128×256×16: 116 against 128) and ran 4095³ 53% slower,
// 777×1234×2345 29% (BENCHMARKS.md, "Ragged operands: copied or read in place"). Each row of the register tile is staged by a
// call of its own with constant indices: staged in a loop over the rows, the kernel ran 10–25
// times slower (most likely the loop, with its barriers, stayed rolled, and the accumulators,
// indexed dynamically, went to memory: not read in the compiled code). The caller's
// control flow is uniform (a whole workgroup stores a block or none), as the barriers need.
const STAGE_FROM: u32 = 524288u;  // elements of C (2^19) from which it is staged

fn store_block(acc: ptr<function, array<vec4<f32>, 16>>, split: u32, row0: u32, col0: u32,
               lid: vec3<u32>) {
    if (p.ld < 4u || p.m < STAGE_FROM / p.ld) {
        store_tile(acc, 0u, row0, col0, lid);
        return;
    }
    store_rows(0u, (*acc)[0], (*acc)[1], row0, col0, lid);
    store_rows(1u, (*acc)[2], (*acc)[3], row0, col0, lid);
    store_rows(2u, (*acc)[4], (*acc)[5], row0, col0, lid);
    store_rows(3u, (*acc)[6], (*acc)[7], row0, col0, lid);
    store_rows(4u, (*acc)[8], (*acc)[9], row0, col0, lid);
    store_rows(5u, (*acc)[10], (*acc)[11], row0, col0, lid);
    store_rows(6u, (*acc)[12], (*acc)[13], row0, col0, lid);
    store_rows(7u, (*acc)[14], (*acc)[15], row0, col0, lid);
    // The next block's slices may be staged into the buffers after this.
    workgroupBarrier();
}

// Row i of every invocation's register tile (its two halves `lo` and `hi`) into C: BM/8 rows of
// BN staged in the slice buffers, free once the block's slices are multiplied: in `b_s`
// (2·BK·BN elements) where BM <= 16·BK, else in `a_s` (2·BK·BM, and BN <= 16·BK: the host
// offers no block with both sides over 16·BK), then 8 elements an invocation, in order.
fn store_rows(i: u32, lo: vec4<f32>, hi: vec4<f32>, row0: u32, col0: u32, lid: vec3<u32>) {
    let me = lid.y * (BN / 8u) + lid.x;
    let in_b = BM <= 16u * BK;
    // Nobody still reads the slice buffers, or the rows of the pass before.
    workgroupBarrier();
    let at = lid.y * (BN / 4u) + lid.x;
    if (in_b) {
        b_s[at] = lo;
        b_s[at + BN / 8u] = hi;
    } else {
        a_s[at] = lo;
        a_s[at + BN / 8u] = hi;
    }
    workgroupBarrier();
    // Staged row sr is row 4·sr + i of the block (BM/2 + 4·sr + i - 4 for the lower half).
    for (var j = 0u; j < 8u; j++) {
        let e = me + j * threads();
        let sr = e / BN;
        let col = col0 + e % BN;
        var r = row0 + 4u * sr + i;
        if (i >= 4u) {
            r = row0 + BM / 2u + 4u * sr + i - 4u;
        }
        var v: f32;
        if (in_b) {
            v = b_s[e / 4u][e % 4u];
        } else {
            v = a_s[e / 4u][e % 4u];
        }
        if (r < p.m && col < p.ld) {
            c1[r * p.ld + col] = Out(v);
        }
    }
}
