//! What a trace reports: the mistakes it found (each naming its source lines and invocations),
//! the traffic it counted and the pictures' data; as text here, as JSON through serde.

use super::memory::{How, Traffic};
use super::Binding;
use serde::Serialize;

/// One access as a report names it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Touch {
    /// Source line.
    pub line: u32,
    /// `local_invocation_id`.
    pub invocation: [u32; 3],
    /// `workgroup_id`.
    pub workgroup: [u32; 3],
    /// Read, write or atomic.
    #[serde(serialize_with = "how_word")]
    pub how: How,
    /// Barriers of the memory's space its workgroup had passed.
    pub epoch: u32,
}

fn how_word<S: serde::Serializer>(h: &How, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(h.word())
}

/// A mistake found by running.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// Two unordered accesses to one location, one a write.
    Race {
        /// The variable.
        variable: String,
        /// Its address space.
        space: &'static str,
        /// The element's index.
        element: u32,
        /// The earlier access.
        first: Touch,
        /// The later one.
        second: Touch,
    },
    /// An index past the end (WGSL reads zero or clamps, so the answer may still look right).
    OutOfBounds {
        /// The variable.
        variable: String,
        /// The index.
        index: i64,
        /// Its length.
        length: u32,
        /// Who.
        at: Touch,
    },
    /// Workgroup memory read before any invocation of the workgroup wrote it.
    Uninitialised {
        /// The variable.
        variable: String,
        /// The element.
        element: u32,
        /// Who read it.
        at: Touch,
    },
    /// A barrier some invocations of a workgroup reached and others did not.
    DivergentBarrier {
        /// The barrier's line.
        line: u32,
        /// Invocations that reached it.
        reached: u32,
        /// Invocations in the workgroup.
        of: u32,
        /// Where the others were (a line, or 0 when they had returned).
        others_at: u32,
        /// The workgroup.
        workgroup: [u32; 3],
    },
}

impl Finding {
    /// Whether two findings say the same thing (one report line per mistake).
    pub(super) fn same_as(&self, o: &Finding) -> bool {
        match (self, o) {
            (
                Finding::Race {
                    variable: v,
                    first: a,
                    second: b,
                    ..
                },
                Finding::Race {
                    variable: w,
                    first: c,
                    second: d,
                    ..
                },
            ) => {
                v == w
                    && ((a.line, b.line) == (c.line, d.line)
                        || (a.line, b.line) == (d.line, c.line))
            }
            (
                Finding::OutOfBounds {
                    at: a, variable: v, ..
                },
                Finding::OutOfBounds {
                    at: b, variable: w, ..
                },
            ) => a.line == b.line && v == w,
            (Finding::Uninitialised { at: a, .. }, Finding::Uninitialised { at: b, .. }) => {
                a.line == b.line
            }
            (
                Finding::DivergentBarrier { line: a, .. },
                Finding::DivergentBarrier { line: b, .. },
            ) => a == b,
            _ => false,
        }
    }

    /// The lines it names.
    pub fn lines(&self) -> Vec<u32> {
        match self {
            Finding::Race { first, second, .. } => vec![first.line, second.line],
            Finding::OutOfBounds { at, .. } | Finding::Uninitialised { at, .. } => vec![at.line],
            Finding::DivergentBarrier { line, .. } => vec![*line],
        }
    }

    /// One paragraph, naming `path`'s lines.
    pub fn render(&self, path: &str) -> String {
        let who = |t: &Touch| {
            format!(
                "invocation ({}, {}, {}) of workgroup ({}, {}, {})",
                t.invocation[0],
                t.invocation[1],
                t.invocation[2],
                t.workgroup[0],
                t.workgroup[1],
                t.workgroup[2]
            )
        };
        match self {
            Finding::Race {
                variable,
                space,
                element,
                first,
                second,
            } => {
                let stretch = if second.epoch == 0 {
                    "both before the first".to_string()
                } else {
                    format!("both between barrier {} and the next", second.epoch)
                };
                let why = if first.workgroup != second.workgroup {
                    "they are in different workgroups, and nothing orders those (no barrier reaches across workgroups)".to_string()
                } else if *space == "workgroup" {
                    format!(
                        "no workgroupBarrier() orders them ({stretch} workgroupBarrier()){}",
                        if first.how.atomic() && second.how.atomic() {
                            ": atomic updates commute, but an atomic load or store beside them sees, or overwrites, whichever came first"
                        } else {
                            ""
                        }
                    )
                } else {
                    format!(
                        "nothing orders them: one workgroup, {stretch} storageBarrier() (workgroupBarrier() orders workgroup memory only)"
                    )
                };
                let why = if first.how.writes() && second.how.writes() && !(first.how.atomic() && second.how.atomic()) {
                    format!("{why}; two invocations write the same element, and only one value survives")
                } else {
                    why
                };
                format!(
                    "race on {variable}[{element}] ({space} memory):\n  {path}:{}: {} by {}\n  {path}:{}: {} by {}\n  {why}",
                    first.line,
                    first.how.word(),
                    who(first),
                    second.line,
                    second.how.word(),
                    who(second)
                )
            }
            Finding::OutOfBounds {
                variable,
                index,
                length,
                at,
            } => format!(
                "{path}:{}: index {index} is out of bounds of {variable} (length {length}), by {}: WGSL reads zero (or clamps) and skips the write, so the answer may still look right",
                at.line,
                who(at)
            ),
            Finding::Uninitialised {
                variable,
                element,
                at,
            } => format!(
                "{path}:{}: {variable}[{element}] is read by {} before any invocation of its workgroup wrote it (workgroup memory starts undefined)",
                at.line,
                who(at)
            ),
            Finding::DivergentBarrier {
                line,
                reached,
                of,
                others_at,
                workgroup,
            } => format!(
                "{path}:{line}: {reached} of the {of} invocations of workgroup ({}, {}, {}) reached this barrier; the others {}: every invocation must reach each barrier",
                workgroup[0],
                workgroup[1],
                workgroup[2],
                if *others_at == 0 {
                    "had returned".to_string()
                } else {
                    format!("waited at line {others_at}")
                }
            ),
        }
    }
}

/// Bank conflicts of one workgroup-memory access in the source: 32 banks of 4 bytes, 32
/// invocations (by local index) at a time, each such request served in as many passes as the
/// most distinct words any one bank holds among them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Banks {
    /// Source line.
    pub line: u32,
    /// The variable.
    pub variable: String,
    /// Requests of 32 invocations.
    pub requests: u64,
    /// Passes they took (requests when nothing conflicts).
    pub passes: u64,
    /// The worst request's passes (1 to 32).
    pub worst: u32,
    /// Requests by bank: how many distinct words of that bank, summed.
    pub by_bank: Vec<u64>,
}

/// One count over the invocations: the least, the most and the mean.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Spread {
    /// The least any invocation made.
    pub min: u64,
    /// The most.
    pub max: u64,
    /// The mean over every invocation.
    pub mean: f64,
}

/// Each invocation's own traffic (instructions), over the invocations.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PerInvocation {
    /// Global (storage) loads.
    pub global_loads: Spread,
    /// Global stores.
    pub global_stores: Spread,
    /// Workgroup-memory loads.
    pub workgroup_loads: Spread,
    /// Workgroup-memory stores.
    pub workgroup_stores: Spread,
}

impl PerInvocation {
    /// Folds in every invocation's counts.
    pub(super) fn of(counts: &[[u64; 4]]) -> PerInvocation {
        let spread = |i: usize| {
            let v = counts.iter().map(|c| c[i]);
            Spread {
                min: v.clone().min().unwrap_or(0),
                max: v.clone().max().unwrap_or(0),
                mean: v.sum::<u64>() as f64 / counts.len().max(1) as f64,
            }
        };
        PerInvocation {
            global_loads: spread(0),
            global_stores: spread(1),
            workgroup_loads: spread(2),
            workgroup_stores: spread(3),
        }
    }
}

/// A variable's traffic, named.
#[derive(Clone, Debug, Serialize)]
pub struct VariableTraffic {
    /// The variable.
    pub variable: String,
    /// Its space.
    pub space: &'static str,
    /// Its length in words.
    pub words: u64,
    /// The counts.
    #[serde(flatten)]
    pub traffic: Traffic,
}

/// Workgroup memory in one epoch of the pictured workgroup: for each word, who wrote it last
/// (local index) and how many invocations read it.
#[derive(Clone, Debug, Serialize)]
pub struct EpochPicture {
    /// The variable.
    pub variable: String,
    /// Its words.
    pub words: u32,
    /// Words per row when drawn (the workgroup's x size, or 32).
    pub row: u32,
    /// Per epoch, per word: the last writer's local index, if any.
    pub writers: Vec<Vec<Option<u32>>>,
    /// Per epoch, per word: readers.
    pub readers: Vec<Vec<u32>>,
    /// The word a race names, if any.
    pub raced: Option<u32>,
}

/// What a trace found and counted.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The entry point.
    pub entry: String,
    /// Workgroups and invocations run.
    pub workgroups: [u32; 3],
    /// Invocations per workgroup.
    pub workgroup_size: [u32; 3],
    /// Mistakes, races first.
    pub findings: Vec<Finding>,
    /// Traffic per module-scope variable (storage and workgroup).
    pub traffic: Vec<VariableTraffic>,
    /// Each invocation's own traffic: the least, the most, the mean.
    pub per_invocation: PerInvocation,
    /// Bank conflicts per workgroup-memory access site.
    pub banks: Vec<Banks>,
    /// Barrier lines reached (each once).
    pub barriers: Vec<u32>,
    /// Barriers each workgroup passed.
    pub epochs: u32,
    /// Barrier-to-barrier steps in which a warp (32 invocations by local index) had some, not
    /// all, of its invocations touch workgroup memory: divergence, the idle ones waiting.
    pub partial_warps: u64,
    /// Interpreter steps taken.
    pub steps: u64,
    /// The pictured workgroup (the first with a race, else the first).
    pub pictured: [u32; 3],
    /// Its workgroup memory, epoch by epoch.
    pub pictures: Vec<EpochPicture>,
    /// The buffers after the dispatch, by (group, binding).
    #[serde(skip)]
    pub buffers: Vec<Binding>,
}

impl Report {
    /// Whether nothing was found.
    pub fn clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// A variable's traffic.
    pub fn traffic_of(&self, name: &str) -> Option<&Traffic> {
        self.traffic
            .iter()
            .find(|t| t.variable == name)
            .map(|t| &t.traffic)
    }

    /// Global (storage) loads, all variables.
    pub fn global_loads(&self) -> u64 {
        self.traffic
            .iter()
            .filter(|t| t.space == "storage")
            .map(|t| t.traffic.loads)
            .sum()
    }

    /// Workgroup-memory store instructions, all variables.
    pub fn workgroup_stores(&self) -> u64 {
        self.traffic
            .iter()
            .filter(|t| t.space == "workgroup")
            .map(|t| t.traffic.stores)
            .sum()
    }

    /// Bank passes over requests, all workgroup accesses (1.0: no conflicts).
    pub fn bank_passes(&self) -> (u64, u64) {
        (
            self.banks.iter().map(|b| b.passes).sum(),
            self.banks.iter().map(|b| b.requests).sum(),
        )
    }

    /// A buffer's words after the dispatch.
    pub fn buffer(&self, group: u32, binding: u32) -> Option<&[u32]> {
        self.buffers
            .iter()
            .find(|b| b.group == group && b.binding == binding)
            .map(|b| b.words.as_slice())
    }

    /// The report as text: findings, then counts.
    pub fn render(&self, path: &str) -> String {
        let mut s = String::new();
        let invocations: u32 = self.workgroup_size.iter().product();
        let groups: u32 = self.workgroups.iter().product();
        let plural = |n: u32, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        s += &format!(
            "traced {} with {} of {} ({}×{}×{}), {}\n",
            self.entry,
            plural(groups, "workgroup", "workgroups"),
            plural(invocations, "invocation", "invocations"),
            self.workgroup_size[0],
            self.workgroup_size[1],
            self.workgroup_size[2],
            match self.epochs {
                0 => "no barrier".to_string(),
                n => format!("{} each", plural(n, "barrier", "barriers")),
            }
        );
        if self.findings.is_empty() {
            s += "no races, no out-of-bounds index, no read of unwritten workgroup memory, every barrier reached by all\n";
        }
        for f in &self.findings {
            s += &f.render(path);
            s.push('\n');
        }
        s += "traffic (loads and stores are instructions; words are 4 bytes):\n";
        for t in &self.traffic {
            let per = if t.traffic.distinct_read > 0 {
                format!(
                    ", each word read {:.2} times",
                    t.traffic.words_read as f64 / t.traffic.distinct_read as f64
                )
            } else {
                String::new()
            };
            s += &format!(
                "  {} ({}, {} words): {} loads, {} stores{per}\n",
                t.variable, t.space, t.words, t.traffic.loads, t.traffic.stores
            );
        }
        let p = &self.per_invocation;
        let show = |x: &Spread| {
            if x.min == x.max {
                format!("{}", x.min)
            } else {
                format!("{}–{} (mean {:.1})", x.min, x.max, x.mean)
            }
        };
        s += &format!(
            "  per invocation: global loads {}, stores {}; workgroup loads {}, stores {}\n",
            show(&p.global_loads),
            show(&p.global_stores),
            show(&p.workgroup_loads),
            show(&p.workgroup_stores)
        );
        if self.partial_warps > 0 {
            s += &format!(
                "  {} barrier-to-barrier steps with a warp only partly busy\n",
                self.partial_warps
            );
        }
        for b in &self.banks {
            s += &format!(
                "  {path}:{}: {} requests of 32 invocations to {}, {} passes (worst {}-way)\n",
                b.line, b.requests, b.variable, b.passes, b.worst
            );
        }
        s
    }
}
