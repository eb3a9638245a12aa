//! The traced kernel run on an adapter with the trace's own buffers (`Gpu::dispatch`), and what
//! it leaves compared with what the trace left. The tracer decides races the same on every
//! adapter; this run shows what one GPU's compiler and hardware make of the same kernel.

use super::interface::Resource;
use super::{Binding, Setup};
use tilekit::{Gpu, Shader};

/// How far an f32 the GPU left may be from the trace's and still count as the same: relative to
/// the larger of the two magnitudes and 1. A GPU may fuse a multiply and an add, which rounds
/// once where the tracer rounds twice.
pub const F32_TOLERANCE: f64 = 1e-5;

/// Run `setup` on `gpu` with `shader` (`resources` as [`super::resources`] reads them): storage
/// bindings uploaded, uniform ones as uniform blocks, the grid dispatched. Returns the writable
/// storage bindings as the GPU left them, in the setup's order. Group 0 only: the group
/// `Gpu::dispatch` binds.
pub async fn run_on_gpu(
    gpu: &Gpu,
    shader: &Shader,
    resources: &[Resource],
    setup: &Setup,
) -> tilekit::Result<Vec<Binding>> {
    let of = |b: &Binding| {
        resources
            .iter()
            .find(|r| r.group == b.group && r.binding == b.binding)
    };
    let mut storage = Vec::new();
    let mut params = Vec::new();
    for b in &setup.bindings {
        if b.group != 0 {
            return Err(tilekit::Error::InvalidArgument {
                what: format!("@group({}) @binding({})", b.group, b.binding),
                why: "a kernel run on the GPU binds group 0 only".into(),
            });
        }
        match of(b) {
            Some(r) if r.space == "uniform" => params.push((b.binding, gpu.params(&b.words)?)),
            _ => {
                let name = format!("binding {}", b.binding);
                let writable = of(b).is_none_or(|r| r.writable);
                storage.push((b, writable, gpu.upload(&name, &b.words).await?));
            }
        }
    }
    let binds: Vec<_> = storage
        .iter()
        .map(|(b, _, d)| (b.binding, d.bind()))
        .chain(params.iter().map(|(i, u)| (*i, u.bind())))
        .collect();
    gpu.dispatch(
        shader,
        &setup.entry,
        &setup.overrides,
        &binds,
        setup.workgroups,
    )
    .await?;
    let mut out = Vec::new();
    for (b, writable, d) in &storage {
        if *writable {
            out.push(Binding {
                group: b.group,
                binding: b.binding,
                words: gpu.read(d).await?,
            });
        }
    }
    Ok(out)
}

/// What the GPU left against what the trace left.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Agreement {
    /// Words compared (every writable storage binding).
    pub compared: usize,
    /// The largest relative difference of an f32 within [`F32_TOLERANCE`] (0 where every word
    /// is the same).
    pub largest_f32_difference: f64,
    /// The first word that differs beyond it, if any.
    pub difference: Option<Difference>,
}

/// One word the GPU left otherwise than the trace.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Difference {
    /// The variable's name.
    pub variable: String,
    /// The element (in words).
    pub index: usize,
    /// What the trace left.
    pub traced: String,
    /// What the GPU left.
    pub ran: String,
}

/// Compare `ran` ([`run_on_gpu`]) with the trace's buffers `traced` (`Report::buffers`): words of
/// an f32 binding within [`F32_TOLERANCE`], any other exactly (NaNs of the same bits alike).
pub fn compare(resources: &[Resource], traced: &[Binding], ran: &[Binding]) -> Agreement {
    let mut agreement = Agreement {
        compared: 0,
        largest_f32_difference: 0.0,
        difference: None,
    };
    for r in ran {
        let Some(t) = traced
            .iter()
            .find(|t| t.group == r.group && t.binding == r.binding)
        else {
            continue;
        };
        let resource = resources
            .iter()
            .find(|x| x.group == r.group && x.binding == r.binding);
        let float = resource.is_some_and(|x| x.scalar == "f32" && !x.atomic);
        let name = resource.map_or_else(|| format!("binding {}", r.binding), |x| x.name.clone());
        for (i, (&a, &b)) in t.words.iter().zip(&r.words).enumerate() {
            agreement.compared += 1;
            let same = a == b || {
                let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
                let off = (x - y).abs() / x.abs().max(y.abs()).max(1.0);
                if float && off <= F32_TOLERANCE {
                    agreement.largest_f32_difference = agreement.largest_f32_difference.max(off);
                    true
                } else {
                    false
                }
            };
            if !same && agreement.difference.is_none() {
                let show = |w: u32| {
                    if float {
                        f32::from_bits(w).to_string()
                    } else {
                        w.to_string()
                    }
                };
                agreement.difference = Some(Difference {
                    variable: name.clone(),
                    index: i,
                    traced: show(a),
                    ran: show(b),
                });
            }
        }
    }
    agreement
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(binding: u32, name: &str, scalar: &'static str) -> Resource {
        Resource {
            group: 0,
            binding,
            name: name.into(),
            space: "storage",
            writable: true,
            scalar,
            element_words: 1,
            atomic: false,
            words: None,
            fields: Vec::new(),
        }
    }

    fn binding(binding: u32, words: Vec<u32>) -> Binding {
        Binding {
            group: 0,
            binding,
            words,
        }
    }

    #[test]
    fn f32_words_agree_within_the_tolerance_and_others_exactly() {
        let resources = [resource(0, "out", "f32"), resource(1, "counts", "u32")];
        let x = 1000.0f32;
        let near = x + x * 4e-6; // a relative 4e-6: the same
        let traced = [
            binding(0, vec![x.to_bits(), 2.0f32.to_bits()]),
            binding(1, vec![7, 8]),
        ];
        let ran = [
            binding(0, vec![near.to_bits(), 2.0f32.to_bits()]),
            binding(1, vec![7, 8]),
        ];
        let a = compare(&resources, &traced, &ran);
        assert_eq!(a.compared, 4);
        assert!(a.difference.is_none(), "{a:?}");
        assert!(a.largest_f32_difference > 3e-6 && a.largest_f32_difference < 5e-6);
        // One count off by one: named, with its variable and index.
        let off = [ran[0].clone(), binding(1, vec![7, 9])];
        let d = compare(&resources, &traced, &off)
            .difference
            .expect("a difference");
        assert_eq!((d.variable.as_str(), d.index), ("counts", 1));
        assert_eq!((d.traced.as_str(), d.ran.as_str()), ("8", "9"));
        // An f32 off by a relative 1e-3: beyond the tolerance.
        let far = [
            binding(0, vec![(x * 1.001).to_bits(), 2.0f32.to_bits()]),
            ran[1].clone(),
        ];
        let d = compare(&resources, &traced, &far)
            .difference
            .expect("a difference");
        assert_eq!((d.variable.as_str(), d.index), ("out", 0));
    }
}
