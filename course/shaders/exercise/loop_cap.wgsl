// What `tilekit::exercise::bound_loops` puts in front of a learner's shader, after its
// directives (src/exercise/bound.rs says why): the cap on the steps of each loop, the flag that
// says a loop reached it (group 1, which `Gpu::with_watched_substitute_async` binds and reads),
// and the check every loop body then starts with, on a counter of the loop's own declared just
// before it. The `splice` lines at the end are the text put into the learner's code, `{n}` the
// loop's number (the cap's line replaces the declaration below with the caller's cap); the
// `words` lines, the words of WGSL the rewriter looks for in the learner's code: where a loop
// starts, the directives the cap must come after, and the attribute and keyword that begin a
// compute entry point.
const TILEKIT_LOOP_CAP: u32 = 0u;
@group(1) @binding(0) var<storage, read_write> tilekit_loop_capped: atomic<u32>;

// One more step of the loop whose counter `steps` points at: past the cap, the flag is raised
// and the loop is told to leave.
fn tilekit_capped(steps: ptr<function, u32>) -> bool {
    *steps += 1u;
    if (*steps > TILEKIT_LOOP_CAP) {
        atomicStore(&tilekit_loop_capped, 1u);
        return true;
    }
    return false;
}

// splice cap: const TILEKIT_LOOP_CAP: u32 = {n}u;
// splice counter: var tilekit_steps_{n} = 0u;
// splice check: if (tilekit_capped(&tilekit_steps_{n})) { break; }
// splice entry: _ = atomicLoad(&tilekit_loop_capped);
// words loops: for while loop
// words directives: enable requires diagnostic
// words entry: @compute fn
