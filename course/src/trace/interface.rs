//! What an entry point binds, read from the shader, so that a trace of any file can be set up by
//! name: each buffer's element type and length, each uniform's fields, and buffers made up when
//! none is given (inputs random from a fixed seed, outputs poisoned).

use super::{Binding, TraceError};
use naga::{AddressSpace, TypeInner};

/// One buffer an entry point uses.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Resource {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The variable's name.
    pub name: String,
    /// `storage` (read or read_write) or `uniform`.
    pub space: &'static str,
    /// Whether the kernel may write it.
    pub writable: bool,
    /// The element's scalar kind, for generated data: `f32`, `u32`, `i32`.
    pub scalar: &'static str,
    /// Words per element.
    pub element_words: u32,
    /// Whether its elements are atomic (generated as zeros, as a histogram's bins start).
    pub atomic: bool,
    /// Its length in words when fixed by its type (`None`: a runtime-sized array).
    pub words: Option<u32>,
    /// A uniform struct's scalar fields: name and word offset.
    pub fields: Vec<(String, u32)>,
}

/// The entry point `entry` of `source` (or its only compute entry point), its workgroup size with
/// the defaults of its override constants, and the buffers it uses.
pub fn resources(
    source: &str,
    path: &str,
    entry: Option<&str>,
) -> Result<(String, Vec<Resource>), TraceError> {
    let (module, info) = super::parse(source, path)?;
    let computes: Vec<(usize, &naga::EntryPoint)> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stage == naga::ShaderStage::Compute)
        .collect();
    let names = || {
        computes
            .iter()
            .map(|(_, e)| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (index, ep) = match entry {
        Some(name) => computes
            .iter()
            .find(|(_, e)| e.name == name)
            .copied()
            .ok_or_else(|| {
                TraceError::Setup(format!(
                    "{path} has no compute entry point `{name}` (it has: {})",
                    names()
                ))
            })?,
        None if computes.len() == 1 => computes[0],
        None => {
            return Err(TraceError::Setup(format!(
                "{path} has {} compute entry points ({}): name one with --entry",
                computes.len(),
                names()
            )))
        }
    };
    let ep_info = info.get_entry_point(index);
    let mut out = Vec::new();
    for (h, g) in module.global_variables.iter() {
        let Some(b) = &g.binding else { continue };
        if ep_info[h].is_empty() {
            continue;
        }
        let (space, writable) = match g.space {
            AddressSpace::Storage { access } => {
                ("storage", access.contains(naga::StorageAccess::STORE))
            }
            AddressSpace::Uniform => ("uniform", false),
            _ => {
                return Err(TraceError::Unsupported(format!(
                    "the binding `{}` (textures and samplers)",
                    g.name.as_deref().unwrap_or("?")
                )))
            }
        };
        let inner = &module.types[g.ty].inner;
        let (element, words) = match inner {
            TypeInner::Array { base, size, .. } => (
                &module.types[*base].inner,
                match size {
                    naga::ArraySize::Constant(n) => Some(n.get() * stride_words(inner)),
                    _ => None,
                },
            ),
            TypeInner::Struct { span, .. } => (inner, Some(span / 4)),
            other => (other, Some(1)),
        };
        let scalar = match element {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) | TypeInner::Vector { scalar: s, .. } => {
                match s.kind {
                    naga::ScalarKind::Float => "f32",
                    naga::ScalarKind::Sint => "i32",
                    _ => "u32",
                }
            }
            _ => "u32",
        };
        let fields = match inner {
            TypeInner::Struct { members, .. } => members
                .iter()
                .filter_map(|m| Some((m.name.clone()?, m.offset / 4)))
                .collect(),
            _ => Vec::new(),
        };
        out.push(Resource {
            group: b.group,
            binding: b.binding,
            name: g.name.clone().unwrap_or_else(|| "?".into()),
            space,
            writable,
            scalar,
            element_words: stride_words(inner),
            atomic: matches!(element, TypeInner::Atomic(_)),
            words,
            fields,
        });
    }
    Ok((ep.name.clone(), out))
}

fn stride_words(t: &TypeInner) -> u32 {
    match t {
        TypeInner::Array { stride, .. } => stride / 4,
        _ => 1,
    }
}

/// A buffer for `r` when none is given: `elements` elements of a runtime-sized array (its fixed
/// length otherwise), uniform in [-1, 1) (f32) from a fixed seed or 0, 1, 2, … (integers), read
/// and written alike (a kernel may work in place); atomics zero; a uniform's fields from
/// `fields` (by name, 0 when not named).
pub fn generated(r: &Resource, elements: u32, fields: &[(String, u32)]) -> Binding {
    let n = r.words.unwrap_or(elements * r.element_words) as usize;
    let words = if r.space == "uniform" {
        let mut w = vec![0u32; n];
        for (name, at) in &r.fields {
            if let Some((_, v)) = fields.iter().find(|(f, _)| f == name) {
                if let Some(slot) = w.get_mut(*at as usize) {
                    *slot = *v;
                }
            }
        }
        w
    } else if r.atomic {
        vec![0; n]
    } else if r.scalar == "f32" {
        tilekit::random::uniform_f32(n, 7)
            .iter()
            .map(|x| x.to_bits())
            .collect()
    } else {
        (0..n as u32).collect()
    };
    Binding {
        group: r.group,
        binding: r.binding,
        words,
    }
}
