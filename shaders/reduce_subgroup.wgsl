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

@compute @workgroup_size(WG)
fn subgroup_tree(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32,
                 @builtin(subgroup_invocation_id) lane: u32,
                 @builtin(subgroup_size) sg_size: u32,
                 @builtin(subgroup_id) sg_id: u32,
                 @builtin(num_subgroups) sg_count: u32) {
    let g = group_index(wid, nwg);
    let v = subgroup_combine(gather_any(g, lid));
    if (lane == 0u) {
        dyn_data[sg_id] = v;
    }
    workgroupBarrier();
    // Every subgroup folds the per-subgroup partials (more than one subgroup's worth when
    // subgroups are narrow: lavapipe's are 8 wide); subgroup 0's answer is stored.
    var w = identity();
    for (var i = lane; i < sg_count; i += sg_size) {
        w = combine(w, dyn_data[i]);
    }
    w = subgroup_combine(w);
    if (lid == 0u && g < params.groups) {
        output[g] = w;
    }
}
