//! Loads and stores of module-scope memory: counted, checked against the race rule word by word,
//! and workgroup memory checked for reads of words nobody wrote.

use super::memory::{Access, How, Space};
use super::program::Program;
use super::state::{Inv, World};
use super::value::{Mem, Ptr, Val};
use super::{unsupported, Finding, Touch, R};

pub(super) fn touch(p: &Program, w: &World, inv: &Inv, site: u32, how: How, epoch: u32) -> Touch {
    Touch {
        line: p.line(site),
        invocation: inv.local,
        workgroup: w.workgroup_id,
        how,
        epoch,
    }
}

pub(super) fn push_finding(w: &mut World, f: Finding) {
    if w.findings.len() < w.max_findings && !w.findings.iter().any(|g| g.same_as(&f)) {
        w.findings.push(f);
    }
}

pub(super) fn read<'m>(
    p: &Program<'m>,
    w: &mut World,
    inv: &mut Inv<'m>,
    ptr: Ptr,
    n: u32,
    how: How,
    site: u32,
) -> R<Val> {
    if ptr.out_of_bounds {
        return Ok(Val::from_words(&vec![0; n as usize]));
    }
    let (start, end) = (ptr.word as usize, ptr.word as usize + n as usize);
    match ptr.mem {
        Mem::Local { frame, var } => {
            let l = &inv.frames[frame as usize].locals[var as usize];
            Ok(Val::from_words(
                l.get(start..end).unwrap_or(&vec![0; n as usize]),
            ))
        }
        Mem::Global(g) => {
            let gi = g as usize;
            if w.globals[gi].space == Space::Private {
                let d = &inv.private[gi];
                return Ok(Val::from_words(
                    d.get(start..end).unwrap_or(&vec![0; n as usize]),
                ));
            }
            if end > w.globals[gi].data.len() {
                return Ok(Val::from_words(&vec![0; n as usize]));
            }
            record(p, w, inv, gi, start, end, how, site);
            let words = &w.globals[gi].data[start..end];
            Ok(Val::from_words(words))
        }
    }
}

/// Counts an access to a module-scope variable and runs the race rule on each word.
#[allow(clippy::too_many_arguments)]
pub(super) fn record(
    p: &Program,
    w: &mut World,
    inv: &mut Inv,
    gi: usize,
    start: usize,
    end: usize,
    how: How,
    site: u32,
) {
    let space = w.globals[gi].space;
    if space == Space::Uniform {
        return;
    }
    let epoch = if space == Space::Workgroup {
        w.wg_epoch
    } else {
        w.st_epoch
    };
    {
        let t = &mut w.globals[gi].traffic;
        let at = if space == Space::Workgroup { 2 } else { 0 };
        if how.writes() {
            t.stores += 1;
            t.words_written += (end - start) as u64;
            inv.counts[at + 1] += 1;
        }
        if !how.writes() || how == How::AtomicUpdate {
            t.loads += 1;
            t.words_read += (end - start) as u64;
            inv.counts[at] += 1;
        }
    }
    for word in start..end {
        let g = &mut w.globals[gi];
        if (!how.writes() || how == How::AtomicUpdate) && !g.read_once[word] {
            g.read_once[word] = true;
            g.traffic.distinct_read += 1;
        }
        if space == Space::Workgroup {
            inv.wg_log.push((site, gi as u32, word as u32));
            if w.keep_touches {
                w.epoch_touches
                    .push((gi as u32, word as u32, inv.index, how));
            }
            let g = &mut w.globals[gi];
            if !how.writes() && !g.written[word] {
                let variable = g.name.clone();
                let element = word as u32 / g.element_words.max(1);
                let t = touch(p, w, inv, site, how, epoch);
                push_finding(
                    w,
                    Finding::Uninitialised {
                        variable,
                        element,
                        at: t,
                    },
                );
            }
            let g = &mut w.globals[gi];
            if how.writes() {
                g.written[word] = true;
            }
        }
        if !w.globals[gi].tracked() {
            continue;
        }
        let a = Access {
            invocation: inv.number,
            workgroup: w.workgroup,
            epoch,
            site,
            how,
        };
        if let Some(earlier) = w.globals[gi].cells[word].touch(a) {
            let g = &w.globals[gi];
            let variable = g.name.clone();
            let element = word as u32 / g.element_words.max(1);
            let second = touch(p, w, inv, site, how, epoch);
            let first = Touch {
                line: p.line(earlier.site),
                invocation: w.local_of(earlier.invocation, p),
                workgroup: w.workgroup_of(earlier.workgroup, p),
                how: earlier.how,
                epoch: earlier.epoch,
            };
            push_finding(
                w,
                Finding::Race {
                    variable,
                    space: space.name(),
                    element,
                    first,
                    second,
                },
            );
        }
    }
}

pub(super) fn write<'m>(
    p: &Program<'m>,
    w: &mut World,
    inv: &mut Inv<'m>,
    ptr: Ptr,
    words: &[u32],
    how: How,
    site: u32,
) -> R<()> {
    if ptr.out_of_bounds {
        return Ok(());
    }
    if let Mem::Global(g) = ptr.mem {
        let gi = g as usize;
        if w.globals[gi].space != Space::Private {
            let end = ptr.word as usize + words.len();
            if end <= w.globals[gi].data.len() {
                record(p, w, inv, gi, ptr.word as usize, end, how, site);
            }
        }
    }
    write_words(w, inv, ptr, words)
}

/// Stores `words` at `ptr` (the access already recorded).
pub(super) fn write_words(w: &mut World, inv: &mut Inv, ptr: Ptr, words: &[u32]) -> R<()> {
    if ptr.out_of_bounds {
        return Ok(());
    }
    let (start, end) = (ptr.word as usize, ptr.word as usize + words.len());
    let target = match ptr.mem {
        Mem::Local { frame, var } => &mut inv.frames[frame as usize].locals[var as usize],
        Mem::Global(g) => {
            let gi = g as usize;
            match w.globals[gi].space {
                Space::Private => &mut inv.private[gi],
                Space::Uniform | Space::Storage { writable: false } => {
                    return Err(unsupported("a store to read-only memory"))
                }
                _ => &mut w.globals[gi].data,
            }
        }
    };
    if let Some(t) = target.get_mut(start..end) {
        t.copy_from_slice(words);
    }
    Ok(())
}
