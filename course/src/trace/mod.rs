//! The tracer: a learner's WGSL compute entry point run on the CPU at a small shape, every
//! access of every invocation recorded, so that a race is decided by WGSL's rule instead of by a
//! GPU's schedule, and the lessons' claims become counts.
//!
//! It interprets naga's IR (`machine.rs`), one invocation at a time: each runs until it reaches a
//! barrier, and when every invocation of the workgroup has, the epoch ends and they go on.
//! Workgroups run one after another. Interpreting, rather than rewriting the shader to log its
//! accesses on the GPU, gives the same verdict on every adapter and in the page (no threads, no
//! GPU), counts exactly, and stops a loop that never ends without a driver's watchdog.
//!
//! The verdict does not depend on the order: until the first race, every order gives the same
//! values (that is what race-free means), so the first race of any schedule is met in this one;
//! and the race rule (`memory.rs`) reads the barrier epochs, not the order the trace ran in. The
//! one exception is a kernel whose atomic results steer it (an atomicAdd's old value used as an
//! index): the trace follows one schedule of those.

mod access;
mod expr;
mod interface;
mod machine;
mod memory;
mod on_gpu;
mod picture;
mod program;
mod pure;
mod report;
mod state;
mod value;

pub use interface::{generated, resources, Resource};
pub use memory::{How, Space, Traffic};
pub use on_gpu::{compare, run_on_gpu, Agreement, Difference, F32_TOLERANCE};
pub use picture::{banks_svg, epochs_svg};
pub(crate) use pure::for_each_operand;
pub use report::{
    Banks, EpochPicture, Finding, PerInvocation, Report, Spread, Touch, VariableTraffic,
};

use memory::{Cell, Global};
use program::Program;
use state::{Inv, Stop, World};
use value::Val;

type R<T> = Result<T, TraceError>;

fn unsupported(what: impl Into<String>) -> TraceError {
    TraceError::Unsupported(what.into())
}

/// What the tracer could not do.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum TraceError {
    /// The kernel uses something the tracer does not run.
    #[error("the tracer does not run {0}")]
    Unsupported(String),
    /// The setup does not fit the kernel.
    #[error("{0}")]
    Setup(String),
    /// More steps than the budget.
    #[error("the trace was stopped after {0} steps, more than a kernel at the checking shapes takes (a loop that does not end?)")]
    TooLong(u64),
    /// A loop ran `cap` times in one invocation.
    #[error("line {line}: a loop was stopped after {cap} steps in one invocation (it would not have ended)")]
    LoopStopped {
        /// Where the loop is.
        line: u32,
        /// Its cap.
        cap: u32,
    },
}

/// One buffer bound to the kernel: its words (f32, i32 or u32 bits), by group and binding.
#[derive(Clone, Debug)]
pub struct Binding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The contents.
    pub words: Vec<u32>,
}

/// What to trace: an entry point, its override constants, the workgroups and the buffers.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The entry point's name.
    pub entry: String,
    /// Override constants by name (numbers; `true`/`false` as 1/0).
    pub overrides: Vec<(String, f64)>,
    /// Workgroups in x, y, z.
    pub workgroups: [u32; 3],
    /// The buffers.
    pub bindings: Vec<Binding>,
}

/// The steps any one loop may take each time it starts, in a trace and in a checked file on the
/// GPU (`exercise::LOOP_CAP`): far more than the lessons' kernels take (a few thousand at
/// most), few enough that a loop that never ends stops in seconds on a CPU adapter, and below
/// the 65,535 at which Mesa's llvmpipe and lavapipe stop every loop themselves.
pub const LOOP_CAP: u32 = 1 << 15;

/// The most workgroups times invocations a trace runs: the checking shapes are a few thousand.
pub const MAX_INVOCATIONS: u64 = 1 << 18;

/// The most words of buffers a trace takes (16 MiB): each word it may race on keeps a record
/// of its accesses, so memory stays bounded (a few hundred MiB at most).
pub const MAX_WORDS: u64 = 1 << 22;

fn number(v: &Val) -> f64 {
    v.first() as f64
}

/// Traces `setup` on the WGSL in `source`. A parse or validation error is returned as
/// [`TraceError::Setup`] with naga's message.
pub fn trace(source: &str, path: &str, setup: &Setup) -> Result<Report, TraceError> {
    trace_with(source, path, setup, Limits::default())
}

/// How far a trace may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Interpreter steps over the whole trace.
    pub steps: u64,
    /// Iterations of one loop, each time it starts.
    pub loop_cap: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: 60_000_000,
            loop_cap: LOOP_CAP,
        }
    }
}

/// [`trace`] with explicit limits.
pub fn trace_with(
    source: &str,
    path: &str,
    setup: &Setup,
    limits: Limits,
) -> Result<Report, TraceError> {
    let (module, info) = parse(source, path)?;
    trace_module(&module, &info, source, setup, limits)
}

/// `source` parsed and validated by naga; its message, with `path` and the line, otherwise.
fn parse(source: &str, path: &str) -> R<(naga::Module, naga::valid::ModuleInfo)> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| TraceError::Setup(e.emit_to_string_with_path(source, path)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| TraceError::Setup(e.emit_to_string_with_path(source, path)))?;
    Ok((module, info))
}

/// [`trace`] on a module already parsed and validated from `source`.
pub fn trace_module(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    source: &str,
    setup: &Setup,
    limits: Limits,
) -> Result<Report, TraceError> {
    let (ep_index, entry) = module
        .entry_points
        .iter()
        .enumerate()
        .find(|(_, e)| e.name == setup.entry && e.stage == naga::ShaderStage::Compute)
        .ok_or_else(|| {
            TraceError::Setup(format!(
                "no compute entry point `{}` (the file has {})",
                setup.entry,
                module
                    .entry_points
                    .iter()
                    .map(|e| format!("`{}`", e.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let mut overrides = vec![None; module.overrides.len()];
    for (name, v) in &setup.overrides {
        let (h, o) = module
            .overrides
            .iter()
            .find(|(_, o)| o.name.as_deref() == Some(name.as_str()))
            .ok_or_else(|| {
                TraceError::Setup(format!("no override constant `{name}` in the file"))
            })?;
        let bits = match &module.types[o.ty].inner {
            naga::TypeInner::Scalar(s) => match s.kind {
                naga::ScalarKind::Float => (*v as f32).to_bits(),
                naga::ScalarKind::Sint => *v as i32 as u32,
                naga::ScalarKind::Bool => (*v != 0.0) as u32,
                _ => {
                    if *v < 0.0 || *v > u32::MAX as f64 || v.fract() != 0.0 {
                        return Err(TraceError::Setup(format!(
                            "override {name} = {v} is not a u32"
                        )));
                    }
                    *v as u32
                }
            },
            _ => {
                return Err(TraceError::Setup(format!(
                    "override {name} is not a scalar"
                )))
            }
        };
        overrides[h.index()] = Some(Val::scalar(bits));
    }
    let mut p = Program {
        module,
        info,
        source,
        overrides,
        consts: vec![None; module.global_expressions.len()],
        entry,
        entry_info: info.get_entry_point(ep_index),
        workgroup_size: entry.workgroup_size,
        num_workgroups: setup.workgroups,
    };
    for (h, _) in module.global_expressions.iter() {
        // Expressions the tracer cannot evaluate (ones it will never need) are left empty.
        let _ = pure::global_value(&mut p, h);
    }
    for (h, _) in module.overrides.iter() {
        if p.overrides[h.index()].is_none() {
            if let Some(init) = module.overrides[h].init {
                let v = pure::global_value(&mut p, init)?;
                p.overrides[h.index()] = Some(v);
            }
        }
    }
    if let Some(sizes) = entry.workgroup_size_overrides {
        for (i, s) in sizes.iter().enumerate() {
            if let Some(e) = s {
                p.workgroup_size[i] = number(&pure::global_value(&mut p, *e)?) as u32;
            }
        }
    }
    let size = p.workgroup_size;
    let per_group = size.iter().map(|x| *x as u64).product::<u64>();
    let groups = setup.workgroups.iter().map(|x| *x as u64).product::<u64>();
    if per_group == 0 || groups == 0 || per_group * groups > MAX_INVOCATIONS {
        return Err(TraceError::Setup(format!(
            "{groups} workgroups of {per_group} invocations: the tracer runs 1 to {MAX_INVOCATIONS} invocations"
        )));
    }
    let words: u64 = setup.bindings.iter().map(|b| b.words.len() as u64).sum();
    if words > MAX_WORDS {
        return Err(TraceError::Setup(format!(
            "{words} words of buffers: the tracer takes {MAX_WORDS} at most (trace a smaller shape)"
        )));
    }
    // Memories.
    let mut globals = Vec::new();
    for (_, g) in module.global_variables.iter() {
        let space = match g.space {
            naga::AddressSpace::Storage { access } => Space::Storage {
                writable: access.contains(naga::StorageAccess::STORE),
            },
            naga::AddressSpace::Uniform => Space::Uniform,
            naga::AddressSpace::WorkGroup => Space::Workgroup,
            _ => Space::Private,
        };
        let element_words = match &module.types[g.ty].inner {
            naga::TypeInner::Array { stride, .. } => stride / 4,
            _ => 1,
        };
        let data = match (space, &g.binding) {
            (Space::Storage { .. } | Space::Uniform, Some(b)) => {
                let words = setup
                    .bindings
                    .iter()
                    .find(|x| x.group == b.group && x.binding == b.binding)
                    .map(|x| x.words.clone());
                // A binding the entry point does not use needs no buffer.
                words.unwrap_or_default()
            }
            (Space::Workgroup, _) => vec![0; p.words_of(g.ty).unwrap_or(0) as usize],
            _ => Vec::new(),
        };
        let n = data.len();
        globals.push(Global {
            name: g.name.clone().unwrap_or_else(|| "?".into()),
            space,
            element_words,
            cells: if matches!(space, Space::Workgroup | Space::Storage { writable: true }) {
                vec![Cell::default(); n]
            } else {
                Vec::new()
            },
            written: vec![false; if space == Space::Workgroup { n } else { 0 }],
            read_once: vec![false; n],
            data,
            traffic: Traffic::default(),
        });
    }
    // Every binding the entry point uses must have a buffer.
    for (h, g) in module.global_variables.iter() {
        if let Some(b) = &g.binding {
            let used = !p.entry_info[h].is_empty();
            let given = setup
                .bindings
                .iter()
                .any(|x| x.group == b.group && x.binding == b.binding);
            if used && !given {
                return Err(TraceError::Setup(format!(
                    "`{}` (@group({}) @binding({})) is used by {} but no buffer was given for it",
                    g.name.as_deref().unwrap_or("?"),
                    b.group,
                    b.binding,
                    setup.entry
                )));
            }
            if used && matches!(g.space, naga::AddressSpace::Uniform) {
                let need = p.words_of(g.ty)? as usize;
                let have = globals[h.index()].data.len();
                if have < need {
                    return Err(TraceError::Setup(format!(
                        "the uniform `{}` needs {need} words, the buffer given has {have}",
                        g.name.as_deref().unwrap_or("?")
                    )));
                }
            }
        }
    }
    let mut w = World {
        globals,
        findings: Vec::new(),
        workgroup: 0,
        workgroup_id: [0; 3],
        wg_epoch: 0,
        st_epoch: 0,
        steps: 0,
        max_steps: limits.steps,
        loop_cap: limits.loop_cap,
        max_findings: 32,
        epoch_touches: Vec::new(),
        keep_touches: true,
    };
    let mut banks: Vec<Banks> = Vec::new();
    let mut barriers: Vec<u32> = Vec::new();
    let mut epochs = 0;
    let mut partial_warps = 0u64;
    let mut counts: Vec<[u64; 4]> = Vec::new();
    let mut pictured = [0u32; 3];
    let mut pictures: Vec<EpochPicture> = Vec::new();
    let [gx, gy, gz] = setup.workgroups;
    let mut number = 0u32;
    'groups: for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let wg = [x, y, z];
                w.workgroup_id = wg;
                w.wg_epoch = 0;
                w.st_epoch = 0;
                for g in w.globals.iter_mut().filter(|g| g.space == Space::Workgroup) {
                    g.data.iter_mut().for_each(|d| *d = 0);
                    g.written.iter_mut().for_each(|d| *d = false);
                    g.cells.iter_mut().for_each(|c| *c = Cell::default());
                }
                let races_before = race_count(&w.findings);
                let mut invs = Vec::with_capacity(per_group as usize);
                let mut index = 0;
                for lz in 0..size[2] {
                    for ly in 0..size[1] {
                        for lx in 0..size[0] {
                            invs.push(Inv::new(&p, [lx, ly, lz], index, number, wg)?);
                            index += 1;
                            number += 1;
                        }
                    }
                }
                let mut done = vec![false; invs.len()];
                let mut epoch_pictures: Vec<picture::Snapshot> = Vec::new();
                let mut wg_epochs = 0;
                loop {
                    let mut at: Vec<Option<(naga::Barrier, u32)>> = vec![None; invs.len()];
                    for (i, inv) in invs.iter_mut().enumerate() {
                        if done[i] {
                            continue;
                        }
                        match machine::run(&p, &mut w, inv)? {
                            Stop::Done => {
                                done[i] = true;
                                counts.push(inv.counts);
                            }
                            Stop::Barrier { flags, site } => at[i] = Some((flags, site)),
                        }
                    }
                    // The epoch's bank requests and picture.
                    partial_warps += count_banks(&p, &w, &mut invs, &mut banks);
                    if w.keep_touches {
                        epoch_pictures.push(picture::snapshot(&w));
                    }
                    w.epoch_touches.clear();
                    let waiting: Vec<usize> =
                        (0..invs.len()).filter(|i| at[*i].is_some()).collect();
                    if waiting.is_empty() {
                        break;
                    }
                    let (flags, site) = at[waiting[0]].expect("waiting");
                    let line = p.line(site);
                    if !barriers.contains(&line) {
                        barriers.push(line);
                    }
                    let elsewhere = (0..invs.len()).find(|i| match at[*i] {
                        None => true,
                        Some((_, s)) => s != site,
                    });
                    if let Some(other) = elsewhere {
                        let reached = at
                            .iter()
                            .filter(|a| matches!(a, Some((_, s)) if *s == site))
                            .count();
                        access::push_finding(
                            &mut w,
                            Finding::DivergentBarrier {
                                line,
                                reached: reached as u32,
                                of: invs.len() as u32,
                                others_at: at[other].map(|(_, s)| p.line(s)).unwrap_or(0),
                                workgroup: wg,
                            },
                        );
                        // The workgroup would hang or go wrong here: stop tracing it.
                        break 'groups;
                    }
                    if flags.contains(naga::Barrier::WORK_GROUP) {
                        w.wg_epoch += 1;
                    }
                    if flags.contains(naga::Barrier::STORAGE) {
                        w.st_epoch += 1;
                    }
                    wg_epochs += 1;
                }
                epochs = epochs.max(wg_epochs);
                let raced = race_count(&w.findings) > races_before;
                if w.keep_touches && (raced || number as u64 == per_group) {
                    pictured = wg;
                    pictures = picture::assemble(&w, epoch_pictures, size);
                }
                if raced {
                    // Keep the picture of the first workgroup with a race.
                    w.keep_touches = false;
                }
            }
        }
    }
    findings_sorted(&mut w.findings);
    if let Some(Finding::Race {
        variable, element, ..
    }) = w.findings.first()
    {
        for pic in pictures.iter_mut().filter(|p| &p.variable == variable) {
            let g = w.globals.iter().find(|g| &g.name == variable);
            pic.raced = Some(element * g.map(|g| g.element_words).unwrap_or(1));
        }
    }
    let traffic = w
        .globals
        .iter()
        .filter(|g| matches!(g.space, Space::Storage { .. } | Space::Workgroup))
        .filter(|g| g.traffic.loads + g.traffic.stores > 0)
        .map(|g| VariableTraffic {
            variable: g.name.clone(),
            space: g.space.name(),
            words: g.data.len() as u64,
            traffic: g.traffic.clone(),
        })
        .collect();
    let buffers = module
        .global_variables
        .iter()
        .filter_map(|(h, g)| {
            g.binding.as_ref().map(|b| Binding {
                group: b.group,
                binding: b.binding,
                words: w.globals[h.index()].data.clone(),
            })
        })
        .collect();
    Ok(Report {
        entry: setup.entry.clone(),
        workgroups: setup.workgroups,
        workgroup_size: size,
        findings: w.findings,
        traffic,
        banks,
        barriers,
        epochs,
        partial_warps,
        per_invocation: report::PerInvocation::of(&counts),
        steps: w.steps,
        pictured,
        pictures,
        buffers,
    })
}

fn race_count(f: &[Finding]) -> usize {
    f.iter()
        .filter(|f| matches!(f, Finding::Race { .. }))
        .count()
}

/// Races first, then barriers, bounds, unwritten reads.
fn findings_sorted(f: &mut [Finding]) {
    f.sort_by_key(|f| match f {
        Finding::Race { .. } => 0,
        Finding::DivergentBarrier { .. } => 1,
        Finding::OutOfBounds { .. } => 2,
        Finding::Uninitialised { .. } => 3,
    });
}

/// The epoch's workgroup-memory requests: for each 32 invocations by local index, their k-th
/// accesses to one site form one request. Gives the warps only some of whose invocations
/// touched workgroup memory.
fn count_banks(p: &Program, w: &World, invs: &mut [Inv], banks: &mut Vec<Banks>) -> u64 {
    let mut partial = 0;
    for warp in invs.chunks_mut(32) {
        let busy = warp.iter().filter(|i| !i.wg_log.is_empty()).count();
        if busy > 0 && busy < warp.len() {
            partial += 1;
        }
        let longest = warp.iter().map(|i| i.wg_log.len()).max().unwrap_or(0);
        for k in 0..longest {
            // Group this step's accesses by site.
            let mut sites: Vec<(u32, u32, Vec<u32>)> = Vec::new();
            for inv in warp.iter() {
                if let Some(&(site, var, word)) = inv.wg_log.get(k) {
                    match sites.iter_mut().find(|s| s.0 == site && s.1 == var) {
                        Some(s) => s.2.push(word),
                        None => sites.push((site, var, vec![word])),
                    }
                }
            }
            for (site, var, mut words) in sites {
                words.sort_unstable();
                words.dedup();
                let mut per_bank = [0u32; 32];
                for word in &words {
                    per_bank[(*word % 32) as usize] += 1;
                }
                let passes = *per_bank.iter().max().unwrap_or(&1);
                let line = p.line(site);
                let name = &w.globals[var as usize].name;
                let b = match banks
                    .iter_mut()
                    .position(|b| b.line == line && &b.variable == name)
                {
                    Some(i) => &mut banks[i],
                    None => {
                        banks.push(Banks {
                            line,
                            variable: name.clone(),
                            by_bank: vec![0; 32],
                            ..Banks::default()
                        });
                        banks.last_mut().expect("pushed")
                    }
                };
                b.requests += 1;
                b.passes += passes.max(1) as u64;
                b.worst = b.worst.max(passes);
                for (i, n) in per_bank.iter().enumerate() {
                    b.by_bank[i] += *n as u64;
                }
            }
        }
    }
    for inv in invs.iter_mut() {
        inv.wg_log.clear();
    }
    partial
}
