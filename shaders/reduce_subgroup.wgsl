// The subgroup reduction: appended to reduce.wgsl (whose functions and bindings it uses) only on
// adapters with Features::SUBGROUP.

// ---- subgroup: the lesson unrolls the last 32 steps without barriers through a `volatile`
// pointer, relying on warp lock-step. WGSL promises no lock-step, so that trick is not allowed;
// subgroup operations are the portable answer: one instruction reduces a whole subgroup.
fn subgroup_combine(v: Elem) -> Elem {
    var r: Elem;
    if (OP == 0u) {
        r = subgroupAdd(v);
    } else if (OP == 1u) {
        r = subgroupMin(v);
    } else {
        r = subgroupMax(v);
    }
    // Hardware min/max need not propagate NaN; keep combine()'s rule.
    let any_nan = subgroupMax(select(0u, 1u, is_nan(v)));
    if (OP != 0u && any_nan != 0u) {
        r = bitcast<Elem>(0x7fc00000u);
    }
    return r;
}

// Where an invocation sits in its workgroup and its subgroup. The workgroup's id stays a
// parameter of its own: WGSL's uniformity analysis judges a parameter as a whole, not by its
// members, and the one-pass entry leaves on the workgroup id before its barriers.
struct Place {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) sg_count: u32,
}

// One value per invocation to one per workgroup (every invocation gets it): each subgroup
// reduces its own, then every subgroup folds the per-subgroup partials (more than one
// subgroup's worth when subgroups are narrow: lavapipe's are 8 wide).
fn workgroup_combine(v: Elem, at: Place) -> Elem {
    let s = subgroup_combine(v);
    if (at.lane == 0u) {
        dyn_data[at.sg_id] = s;
    }
    workgroupBarrier();
    var w = identity();
    for (var i = at.lane; i < at.sg_count; i += at.sg_size) {
        w = combine(w, dyn_data[i]);
    }
    return subgroup_combine(w);
}

@compute @workgroup_size(WG)
fn subgroup_tree(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 at: Place) {
    let g = group_index(wid, nwg);
    let w = workgroup_combine(gather_any(g, at.lid), at);
    if (at.lid == 0u && g < params.groups) {
        output[g] = w;
    }
}

// ---- one pass: the subgroup variant in a single launch. Each workgroup publishes its partial
// and counts itself in; the workgroup that counts last combines every partial and resets the
// count (the CUDA C++ Programming Guide's example for memory fences: a sum in one launch, the
// last block to finish doing the final step). No second launch, and no barrier between
// launches, in a small call's wall time.
// The partials go through atomics, and a storage barrier (naga emits a device-scope fence for
// it) orders each workgroup's partial before its count and the last workgroup's reads after the
// count: WGSL guarantees nothing across workgroups for plain loads and stores, while atomics
// always meet in the device's coherent memory.
// The last workgroup reads the partials in index order, so the value does not depend on which
// workgroup finished last: the same input gives the same bits on every call.
// The partials' bits, then the count of workgroups done.
@group(0) @binding(5) var<storage, read_write> tally: array<atomic<u32>>;
var<workgroup> counted: u32;

@compute @workgroup_size(WG)
fn one_pass(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            at: Place) {
    let g = group_index(wid, nwg);
    if (g >= params.groups) {
        return;  // past the last workgroup (the 2-D fold rounds up): not counted
    }
    let w = workgroup_combine(gather_any(g, at.lid), at);
    if (at.lid == 0u) {
        atomicStore(&tally[g], bitcast<u32>(w));
    }
    storageBarrier();  // the partial, then the count (__threadfence() in the guide)
    if (at.lid == 0u) {
        counted = atomicAdd(&tally[params.groups], 1u) + 1u;
    }
    if (workgroupUniformLoad(&counted) != params.groups) {
        return;
    }
    storageBarrier();  // the count, then the other workgroups' partials
    var acc = identity();
    for (var i = at.lid; i < params.groups; i += WG) {
        acc = combine(acc, bitcast<Elem>(atomicLoad(&tally[i])));
    }
    let total = workgroup_combine(acc, at);
    if (at.lid == 0u) {
        output[0] = total;
        atomicStore(&tally[params.groups], 0u);  // ready for the next call
    }
}
