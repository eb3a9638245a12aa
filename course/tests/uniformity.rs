//! The exercise checker's uniformity rule holds for every shader the library ships: what a
//! learner is told to fix, tilekit never does itself.

/// naga does not check WGSL's uniformity rule for barriers (a `workgroupBarrier()` inside
/// `if (tx == 0u)` validates); tilekit's own check (the exercise checker's) holds every project
/// shader to it, so that what Chrome's compiler would refuse never ships.
#[test]
fn every_barrier_in_every_module_is_in_uniform_control_flow() {
    for m in tilekit::kernels::modules() {
        let source = &m.shader.source;
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let found = tilekit_course::exercise::divergent_barriers(&module, source);
        assert!(found.is_empty(), "{}: {found:?}", m.shader.name);
    }
}
