//! The memories a trace touches and the race rule that decides, word by word, whether two
//! accesses are ordered. WGSL's definition: two accesses to one location by different
//! invocations, at least one a write, race unless a barrier of the location's address space
//! orders them, which only happens inside one workgroup (`workgroupBarrier` for workgroup
//! memory, `storageBarrier` for storage); accesses from different workgroups are never ordered.
//! Atomic updates (atomicAdd and friends) commute and do not race with each other; an atomic load
//! or store unordered with another invocation's atomic write does, in the sense that its value
//! (or the final one) then depends on the schedule.

/// How an access touches its word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// A plain load.
    Read,
    /// A plain store.
    Write,
    /// atomicLoad.
    AtomicRead,
    /// atomicStore.
    AtomicWrite,
    /// atomicAdd, atomicMax, …: a read-modify-write.
    AtomicUpdate,
}

impl How {
    /// Whether it changes the word.
    pub fn writes(self) -> bool {
        !matches!(self, How::Read | How::AtomicRead)
    }
    /// Whether it is an atomic access.
    pub fn atomic(self) -> bool {
        !matches!(self, How::Read | How::Write)
    }
    /// What a report calls it.
    pub fn word(self) -> &'static str {
        match self {
            How::Read => "read",
            How::Write => "write",
            How::AtomicRead => "atomicLoad",
            How::AtomicWrite => "atomicStore",
            How::AtomicUpdate => "atomic update",
        }
    }
}

/// One access, as the race rule needs it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Access {
    /// The invocation, numbered across the dispatch.
    pub invocation: u32,
    /// Its workgroup, numbered across the dispatch.
    pub workgroup: u32,
    /// Barriers of this memory's space its workgroup had passed.
    pub epoch: u32,
    /// Where in the source (a byte offset of the expression or statement).
    pub site: u32,
    pub how: How,
}

impl Access {
    /// Whether `self` happens before `later` (an access made after it in the trace).
    fn ordered_before(&self, later: &Access) -> bool {
        self.invocation == later.invocation
            || (self.workgroup == later.workgroup && self.epoch < later.epoch)
    }

    /// Whether `self` and `later` race.
    pub fn races(&self, later: &Access) -> bool {
        if self.ordered_before(later) || !(self.how.writes() || later.how.writes()) {
            return false;
        }
        // Two atomic updates commute.
        !(self.how == How::AtomicUpdate && later.how == How::AtomicUpdate)
    }
}

/// What one word remembers: the writes no later access is ordered after yet (one plain write,
/// or several atomic updates), and the reads since.
#[derive(Clone, Debug, Default)]
pub(super) struct Cell {
    writes: Vec<Access>,
    reads: Vec<Access>,
}

impl Cell {
    /// Record `a` and give the earlier access it races with, if any. Dropping an access that
    /// happens before `a` loses nothing: whatever races with it and comes later also races
    /// with `a`, or is ordered after `a` and so after it too (ordering inside a workgroup is
    /// transitive).
    pub fn touch(&mut self, a: Access) -> Option<Access> {
        let mut race = self.writes.iter().find(|w| w.races(&a)).copied();
        if a.how.writes() {
            if race.is_none() {
                race = self.reads.iter().find(|r| r.races(&a)).copied();
            }
            self.reads.clear();
            if a.how == How::AtomicUpdate {
                self.writes.retain(|w| !w.ordered_before(&a));
            } else {
                self.writes.clear();
            }
            self.writes.push(a);
        } else {
            self.reads.retain(|r| !r.ordered_before(&a));
            self.reads.push(a);
        }
        race
    }
}

/// The address spaces a trace keeps memory for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `var<storage>`, global memory.
    Storage {
        /// `read_write`.
        writable: bool,
    },
    /// `var<uniform>`.
    Uniform,
    /// `var<workgroup>`, CUDA's shared memory.
    Workgroup,
    /// `var<private>` (per invocation).
    Private,
}

impl Space {
    /// Its WGSL name.
    pub fn name(self) -> &'static str {
        match self {
            Space::Storage { .. } => "storage",
            Space::Uniform => "uniform",
            Space::Workgroup => "workgroup",
            Space::Private => "private",
        }
    }
}

/// Traffic to one module-scope variable over the whole trace.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Traffic {
    /// Load instructions executed (a vec4 load is one).
    pub loads: u64,
    /// Store instructions (atomic updates count as one load and one store).
    pub stores: u64,
    /// Words read.
    pub words_read: u64,
    /// Words written.
    pub words_written: u64,
    /// Distinct words read at least once.
    pub distinct_read: u64,
}

/// A module-scope variable's memory.
pub(super) struct Global {
    pub name: String,
    pub space: Space,
    pub data: Vec<u32>,
    /// Words per element of the variable's array (1 for a scalar), to name an element.
    pub element_words: u32,
    /// Race state, for memories more than one invocation may write.
    pub cells: Vec<Cell>,
    /// Workgroup memory: whether each word was written in this workgroup.
    pub written: Vec<bool>,
    pub read_once: Vec<bool>,
    pub traffic: Traffic,
}

impl Global {
    pub fn tracked(&self) -> bool {
        matches!(
            self.space,
            Space::Workgroup | Space::Storage { writable: true }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(invocation: u32, workgroup: u32, epoch: u32, how: How) -> Access {
        Access {
            invocation,
            workgroup,
            epoch,
            site: 0,
            how,
        }
    }

    #[test]
    fn a_write_after_another_invocations_read_in_one_epoch_races() {
        let mut c = Cell::default();
        assert!(c.touch(at(0, 0, 0, How::Read)).is_none());
        assert!(c.touch(at(1, 0, 0, How::Write)).is_some());
    }

    #[test]
    fn a_barrier_between_them_orders_them() {
        let mut c = Cell::default();
        c.touch(at(0, 0, 0, How::Read));
        assert!(c.touch(at(1, 0, 1, How::Write)).is_none());
        assert!(c.touch(at(2, 0, 2, How::Read)).is_none());
    }

    #[test]
    fn workgroups_are_never_ordered() {
        let mut c = Cell::default();
        c.touch(at(0, 0, 0, How::Write));
        assert!(c.touch(at(300, 1, 5, How::Read)).is_some());
    }

    #[test]
    fn atomic_updates_commute_but_an_atomic_store_does_not() {
        let mut c = Cell::default();
        assert!(c.touch(at(0, 0, 0, How::AtomicUpdate)).is_none());
        assert!(c.touch(at(1, 1, 0, How::AtomicUpdate)).is_none());
        assert!(c.touch(at(2, 0, 0, How::AtomicWrite)).is_some());
        let mut c = Cell::default();
        c.touch(at(0, 0, 0, How::AtomicUpdate));
        assert!(c.touch(at(1, 0, 0, How::AtomicRead)).is_some());
    }

    #[test]
    fn a_read_dropped_for_a_later_one_still_finds_the_race() {
        // Invocation 0 reads twice across a barrier, invocation 1 reads; then 0 writes in the
        // last epoch: the write races with 1's read.
        let mut c = Cell::default();
        c.touch(at(0, 0, 0, How::Read));
        c.touch(at(1, 0, 1, How::Read));
        c.touch(at(0, 0, 1, How::Read));
        assert_eq!(
            c.touch(at(0, 0, 1, How::Write)).map(|a| a.invocation),
            Some(1)
        );
    }
}
