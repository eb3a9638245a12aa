// Several arrays carved from one workgroup allocation (Harris, "Using Shared Memory in CUDA C/C++": the
// `integerData`, `floatData`, `charData` pointers into one `extern __shared__ int s[]`).
// WGSL has no pointer casts, so the pool is u32 words: the i32 part and the f32 part go through
// bitcast, the byte part packs four chars per word. One workgroup reverses n records, each an
// i32, an f32 and four bytes, through the three parts.

override N: u32 = 64u;  // records; the pool is N words of i32, N of f32, N of packed bytes
// [lesson] the lines the tour quotes
var<workgroup> pool: array<u32, 3u * N>;

@group(0) @binding(0) var<storage, read> ints: array<i32>;
@group(0) @binding(1) var<storage, read> floats: array<f32>;
@group(0) @binding(2) var<storage, read> chars: array<u32>;  // 4 bytes per word, little-endian
@group(0) @binding(3) var<storage, read_write> out_ints: array<i32>;
@group(0) @binding(4) var<storage, read_write> out_floats: array<f32>;
@group(0) @binding(5) var<storage, read_write> out_chars: array<u32>;

fn int_part(i: u32) -> u32 { return i; }
fn float_part(i: u32) -> u32 { return N + i; }
fn char_word(i: u32) -> u32 { return 2u * N + i; }
// [/lesson]

// Byte b (0 .. 4N) of the char part.
fn char_at(b: u32) -> u32 {
    return (pool[char_word(b / 4u)] >> ((b % 4u) * 8u)) & 0xffu;
}

@compute @workgroup_size(N)
fn carved_reverse(@builtin(local_invocation_index) t: u32) {
    pool[int_part(t)] = bitcast<u32>(ints[t]);
    pool[float_part(t)] = bitcast<u32>(floats[t]);
    pool[char_word(t)] = chars[t];
    workgroupBarrier();
    out_ints[t] = bitcast<i32>(pool[int_part(N - 1u - t)]);
    out_floats[t] = bitcast<f32>(pool[float_part(N - 1u - t)]);
    // The byte string of 4N chars, reversed: output byte 4t+q is input byte 4N-1-(4t+q).
    var word = 0u;
    for (var q = 0u; q < 4u; q++) {
        word |= char_at(4u * N - 1u - (4u * t + q)) << (q * 8u);
    }
    out_chars[t] = word;
}
