//! Shaders and the pipeline cache: one `.wgsl` file serves every tile size, because tile sizes are
//! `override` constants and the cache keys pipelines by (shader, entry point, constants).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A WGSL source with a name (the cache key). Most are a file under `shaders/`; a family whose
/// element type varies (the reduction) substitutes its `alias` line, which is part of the name;
/// a variant that needs an optional feature lives in its own file, appended to the family's
/// common one ([`Shader::join`]), so that an adapter without the feature still builds the rest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shader {
    /// Cache key, e.g. `matmul` or `reduce<i32>`.
    pub name: Cow<'static, str>,
    /// WGSL source.
    pub source: Cow<'static, str>,
    /// Keep wgpu's runtime checks whatever the [`crate::Gpu`] says (a learner's shader, whose indices
    /// nobody has proven: `tilekit exercise check`).
    pub checked: bool,
    /// Its loops are bounded and flag the cap (`exercise::bound_loops`): every entry point binds
    /// `@group(1) @binding(0)`, the flag that [`crate::Gpu::substitute`]
    /// binds and reads.
    pub watched: bool,
}

impl Shader {
    /// A shader from a file included with `include_str!`.
    pub const fn file(name: &'static str, source: &'static str) -> Shader {
        Shader {
            name: Cow::Borrowed(name),
            source: Cow::Borrowed(source),
            checked: false,
            watched: false,
        }
    }

    /// A shader made of several files, in order (one module; later parts use the functions and
    /// bindings of earlier ones).
    pub fn join(name: impl Into<String>, parts: &[&str]) -> Shader {
        Shader {
            name: Cow::Owned(name.into()),
            source: Cow::Owned(parts.concat()),
            checked: false,
            watched: false,
        }
    }

    /// A shader built at run time (a specialisation, a learner's file).
    pub fn owned(name: impl Into<String>, source: impl Into<String>) -> Shader {
        Shader {
            name: Cow::Owned(name.into()),
            source: Cow::Owned(source.into()),
            checked: false,
            watched: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) shader: String,
    pub(crate) entry: String,
    // Constants by name, values as bit patterns so that the key is hashable.
    pub(crate) constants: Vec<(String, u64)>,
}

/// Compiled modules and pipelines, built once per key.
#[derive(Default)]
pub struct PipelineCache {
    pub(crate) modules: Mutex<HashMap<String, Arc<wgpu::ShaderModule>>>,
    pub(crate) pipelines: Mutex<HashMap<Key, Arc<wgpu::ComputePipeline>>>,
}

/// The shader substituted for `name` on this thread, if any ([`crate::Gpu::substitute`]).
pub(crate) fn substitute_for(name: &str) -> Option<Shader> {
    SUBSTITUTES.with(|m| m.borrow().get(name).cloned())
}

/// Substitute `shader` for the module `name` on this thread until the guard is dropped.
pub(crate) fn substitute(name: &str, shader: Shader) -> SubstituteGuard {
    SUBSTITUTES.with(|m| m.borrow_mut().insert(name.to_string(), shader));
    SubstituteGuard(name.to_string())
}

/// Ends a substitution when dropped.
pub(crate) struct SubstituteGuard(String);

impl Drop for SubstituteGuard {
    fn drop(&mut self) {
        let _ = SUBSTITUTES.try_with(|m| m.borrow_mut().remove(&self.0));
    }
}

thread_local! {
    /// Modules replaced by another shader on this thread (a learner's file, `tilekit exercise
    /// check`), by name: see [`crate::Gpu::substitute`].
    static SUBSTITUTES: std::cell::RefCell<HashMap<String, Shader>> = Default::default();
    /// The loop-cap flag of the watched substitution in force, and the pipelines built from a
    /// watched shader meanwhile (by address): each of their steps binds the flag as group 1.
    static WATCH: std::cell::RefCell<(Option<wgpu::Buffer>, Vec<usize>)> = Default::default();
}

/// The flag buffer to bind as group 1 of `pipeline`, if it was built from a watched shader while
/// the watch is on.
pub(crate) fn watch_flag(pipeline: &Arc<wgpu::ComputePipeline>) -> Option<wgpu::Buffer> {
    let at = Arc::as_ptr(pipeline) as usize;
    WATCH.with(|w| {
        let w = w.borrow();
        w.1.contains(&at).then(|| w.0.clone()).flatten()
    })
}

/// Note that `pipeline` comes from a watched shader.
pub(crate) fn watched_pipeline(pipeline: &Arc<wgpu::ComputePipeline>) {
    WATCH.with(|w| w.borrow_mut().1.push(Arc::as_ptr(pipeline) as usize));
}

/// Bind `flag` to the watched pipelines until the guard is dropped.
pub(crate) fn watch(flag: wgpu::Buffer) -> WatchGuard {
    WATCH.with(|w| *w.borrow_mut() = (Some(flag), Vec::new()));
    WatchGuard
}

/// Ends a watch when dropped.
pub(crate) struct WatchGuard;

impl Drop for WatchGuard {
    fn drop(&mut self) {
        let _ = WATCH.try_with(|w| *w.borrow_mut() = (None, Vec::new()));
    }
}

impl PipelineCache {
    /// Pipelines built so far.
    pub(crate) fn len(&self) -> usize {
        self.pipelines.lock().expect("pipeline cache").len()
    }
}

/// Whether this thread runs substituted shaders ([`Gpu::substitute`]): caches of prepared
/// launches (`pool::Inner::recipe`) are then neither read nor filled.
pub(crate) fn substituting() -> bool {
    SUBSTITUTES.with(|m| !m.borrow().is_empty())
}
