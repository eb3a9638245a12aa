// Exercise reduction-tree (check: the page's Check button, or tilekit exercise check reduction-tree FILE).
// `workgroup_tree` adds 256 values per workgroup in a tree through workgroup memory; one line is missing.
// Only the TODO changes; the solution is the project's own shader (tilekit exercise list says which).

// Tree reduction (Professional CUDA C Programming §5.3, "Reducing global memory access"): in global memory
// (reduceGmem), in a fixed workgroup array (reduceSmem), with UNROLL loads added per invocation
// before the tree (reduceUnroll4Smem) in an override-sized array (the dynamic-shared-memory
// version), and with subgroup operations for the last steps. Each launch turns `n` values into one
// partial per workgroup; the host chains launches until one value is left. The subgroup variant
// is `reduce_subgroup.wgsl`, appended to this file only on adapters with Features::SUBGROUP: naga
// validates a whole module, so one subgroup entry point here would take every variant down on an
// adapter without subgroups (the GL backend, many WebGPU and DX12 setups).
//
// The element type is this alias; the host builds the file once per type (f32, i32, u32) by
// replacing this one line. WGSL has no generics, and override constants cannot choose a type.
alias Elem = f32;

override OP: u32 = 0u;            // 0 = sum, 1 = min, 2 = max
override IDENTITY_BITS: u32 = 0u; // the identity of OP as bits: 0, +inf / MAX, -inf / MIN
override KAHAN: bool = false;     // compensated per-invocation sums (f32 sum only)
override IS_FLOAT: bool = true;   // Elem is f32 (NaN exists)
override WG: u32 = 256u;          // invocations per workgroup, from the planner; a power of two
override UNROLL: u32 = 4u;        // loads combined per invocation per grid-stride step
override VEC4: bool = false;      // gather with 128-bit loads (the first launch of grid-stride)

struct Params {
    n: u32,       // values in
    groups: u32,  // workgroups with work (the launch may be folded into 2-D with a few more)
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> input: array<Elem>;
@group(0) @binding(1) var<storage, read_write> output: array<Elem>;
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read_write> scratch: array<Elem>;
// The input again, four values per load (CUDA Handbook 8.1: wide loads). On the H100 the 1 GiB
// sum ran at 1.6 TB/s with scalar loads and the 1 GiB vec4 copy at 2.8 (BENCHMARKS.md).
@group(0) @binding(4) var<storage, read> input4: array<vec4<Elem>>;

fn identity() -> Elem {
    return bitcast<Elem>(IDENTITY_BITS);
}

// Tested on the bits: drivers may fold `x != x` to false, as lavapipe does.
fn is_nan(x: Elem) -> bool {
    return IS_FLOAT && (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn combine(x: Elem, y: Elem) -> Elem {
    if (OP == 0u) {
        return x + y;  // NaN propagates; integer sums wrap (WGSL's i32/u32 arithmetic)
    }
    // min and max propagate NaN, as NumPy's do.
    if (is_nan(x)) {
        return x;
    }
    if (is_nan(y)) {
        return y;
    }
    if (OP == 1u) {
        return min(x, y);
    }
    return max(x, y);
}

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;  // the 2-D fold of src/dispatch.rs
}

// ---- global: reduceGmem. The tree runs in place in `scratch` (a copy of the input), each step
// separated by storageBarrier(); every step reads and writes global memory.
@compute @workgroup_size(WG)
fn global_tree(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    let base = g * WG;
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (g < params.groups && lid < s && base + lid + s < params.n) {
            scratch[base + lid] = combine(scratch[base + lid], scratch[base + lid + s]);
        }
        storageBarrier();
    }
    if (lid == 0u && g < params.groups) {
        output[g] = scratch[base];
    }
}

// ---- workgroup: reduceSmem. A fixed 256-element workgroup array, one value per invocation.
const STATIC_WG: u32 = 256u;
var<workgroup> static_data: array<Elem, STATIC_WG>;

@compute @workgroup_size(STATIC_WG)
fn workgroup_tree(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    let i = g * STATIC_WG + lid;
    var v = identity();
    if (g < params.groups && i < params.n) {
        v = input[i];
    }
    static_data[lid] = v;
    workgroupBarrier();
    for (var s = STATIC_WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            static_data[lid] = combine(static_data[lid], static_data[lid + s]);
        }
        // TODO (reduceSmem): a step may not read a partner before the partner's step is done.
    }
    if (lid == 0u && g < params.groups) {
        output[g] = static_data[0];
    }
}

// Add one step's values to an invocation's running value (Kahan-compensated when KAHAN).
fn accumulate(acc: Elem, carry: ptr<function, Elem>, local: Elem) -> Elem {
    if (KAHAN) {
        let y = local - *carry;
        let t = acc + y;
        *carry = (t - acc) - y;
        return t;
    }
    return combine(acc, local);
}

// Each invocation combines UNROLL values WG apart per step (reduceUnroll4Smem), striding over the
// whole launch, so a fixed number of workgroups covers any n.
fn gather(g: u32, lid: u32) -> Elem {
    var acc = identity();
    var carry = Elem(0);  // Kahan's compensation: the low bits lost by the last addition
    if (g >= params.groups) {
        return acc;
    }
    let stride = params.groups * WG * UNROLL;
    for (var base = g * WG * UNROLL + lid; base < params.n; base += stride) {
        var local = identity();
        for (var u = 0u; u < UNROLL; u++) {
            let i = base + u * WG;
            if (i < params.n) {
                local = combine(local, input[i]);
            }
        }
        acc = accumulate(acc, &carry, local);
    }
    return acc;
}

// The same with UNROLL 128-bit loads per step; the last n % 4 values are read one by one.
fn gather4(g: u32, lid: u32) -> Elem {
    var acc = identity();
    var carry = Elem(0);
    if (g >= params.groups) {
        return acc;
    }
    let n4 = params.n / 4u;
    let stride = params.groups * WG * UNROLL;
    for (var base = g * WG * UNROLL + lid; base < n4; base += stride) {
        var local = identity();
        for (var u = 0u; u < UNROLL; u++) {
            let i = base + u * WG;
            if (i < n4) {
                let v = input4[i];
                local = combine(local, combine(combine(v.x, v.y), combine(v.z, v.w)));
            }
        }
        acc = accumulate(acc, &carry, local);
    }
    if (g == 0u && lid < params.n % 4u) {
        acc = combine(acc, input[4u * n4 + lid]);
    }
    return acc;
}

fn gather_any(g: u32, lid: u32) -> Elem {
    if (VEC4) {
        return gather4(g, lid);
    }
    return gather(g, lid);
}

// ---- dynamic (and unroll, grid-stride): the tree in an array sized by the override WG, the
// analogue of `extern __shared__` sized by the launch's third parameter.
var<workgroup> dyn_data: array<Elem, WG>;

@compute @workgroup_size(WG)
fn dynamic_tree(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    dyn_data[lid] = gather_any(g, lid);
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            dyn_data[lid] = combine(dyn_data[lid], dyn_data[lid + s]);
        }
        workgroupBarrier();
    }
    if (lid == 0u && g < params.groups) {
        output[g] = dyn_data[0];
    }
}
