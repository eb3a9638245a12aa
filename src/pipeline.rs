//! Shaders and the pipeline cache: one `.wgsl` file serves every tile size, because tile sizes are
//! `override` constants and the cache keys pipelines by (shader, entry point, constants).

use crate::gpu::Gpu;
use crate::Result;
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
    /// Keep wgpu's runtime checks whatever the [`Gpu`] says (a learner's shader, whose indices
    /// nobody has proven: `tilekit exercise check`).
    pub checked: bool,
}

impl Shader {
    /// A shader from a file included with `include_str!`.
    pub const fn file(name: &'static str, source: &'static str) -> Shader {
        Shader {
            name: Cow::Borrowed(name),
            source: Cow::Borrowed(source),
            checked: false,
        }
    }

    /// A shader made of several files, in order (one module; later parts use the functions and
    /// bindings of earlier ones).
    pub fn join(name: impl Into<String>, parts: &[&str]) -> Shader {
        Shader {
            name: Cow::Owned(name.into()),
            source: Cow::Owned(parts.concat()),
            checked: false,
        }
    }

    /// A shader built at run time (a specialisation, a learner's file).
    pub fn owned(name: impl Into<String>, source: impl Into<String>) -> Shader {
        Shader {
            name: Cow::Owned(name.into()),
            source: Cow::Owned(source.into()),
            checked: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    shader: String,
    entry: String,
    // Constants by name, values as bit patterns so that the key is hashable.
    constants: Vec<(String, u64)>,
}

/// Compiled modules and pipelines, built once per key.
#[derive(Default)]
pub struct PipelineCache {
    modules: Mutex<HashMap<String, Arc<wgpu::ShaderModule>>>,
    pipelines: Mutex<HashMap<Key, Arc<wgpu::ComputePipeline>>>,
}

thread_local! {
    /// Modules replaced by another shader on this thread (a learner's file, `tilekit exercise
    /// check`), by name: see [`Gpu::with_substitute`].
    static SUBSTITUTES: std::cell::RefCell<HashMap<String, Shader>> = Default::default();
}

impl PipelineCache {
    /// Pipelines built so far.
    pub fn len(&self) -> usize {
        self.pipelines.lock().expect("pipeline cache").len()
    }

    /// Whether none has been built.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Gpu {
    fn module(&self, shader: &Shader) -> Result<Arc<wgpu::ShaderModule>> {
        let mut modules = self.pipelines.modules.lock().expect("module cache");
        if let Some(m) = modules.get(shader.name.as_ref()) {
            return Ok(m.clone());
        }
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&shader.name),
            source: wgpu::ShaderSource::Wgsl(shader.source.clone()),
        };
        let module = self.scoped(&format!("compiling shaders/{}.wgsl", shader.name), || {
            if self.runtime_checks || shader.checked {
                self.device.create_shader_module(desc)
            } else {
                // SAFETY: tilekit's kernels guard every global access with their own bounds
                // checks (tests cover the edge sizes of every family), and their loops are bounded
                // by uniform sizes; without the checks, loops run up to 3× faster (FINDINGS.md 3).
                unsafe {
                    self.device
                        .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            }
        })?;
        let module = Arc::new(module);
        modules.insert(shader.name.to_string(), module.clone());
        Ok(module)
    }

    /// The compute pipeline for `entry` of `shader` with these override constants, built on first
    /// use and cached. The caller must have checked the plan against the limits (the planner
    /// does): wgpu 30 does not (FINDINGS.md pitfalls 1, 2).
    pub fn pipeline(
        &self,
        shader: &Shader,
        entry: &str,
        constants: &[(String, f64)],
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let substitute = SUBSTITUTES.with(|m| m.borrow().get(shader.name.as_ref()).cloned());
        let shader = substitute.as_ref().unwrap_or(shader);
        let mut sorted: Vec<(String, u64)> = constants
            .iter()
            .map(|(k, v)| (k.clone(), v.to_bits()))
            .collect();
        sorted.sort();
        let key = Key {
            shader: shader.name.to_string(),
            entry: entry.to_string(),
            constants: sorted,
        };
        if let Some(p) = self
            .pipelines
            .pipelines
            .lock()
            .expect("pipeline cache")
            .get(&key)
        {
            return Ok(p.clone());
        }
        let module = self.module(shader)?;
        let consts: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let label = format!("{}::{entry}", shader.name);
        let pipeline = self.scoped(&format!("building pipeline {label} {constants:?}"), || {
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&label),
                    layout: None,
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &consts,
                        // Every tilekit kernel writes its workgroup arrays before reading them
                        // (after a barrier); zeroing them first costs about 4% (FINDINGS.md 3).
                        zero_initialize_workgroup_memory: self.runtime_checks || shader.checked,
                    },
                    cache: None,
                })
        })?;
        let pipeline = Arc::new(pipeline);
        self.pipelines
            .pipelines
            .lock()
            .expect("pipeline cache")
            .insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Pipelines built so far (for tests of the cache).
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.len()
    }
}

impl Gpu {
    /// Run `f` with the module named `module` (e.g. `matmul`, `reduce<f32>`) replaced by
    /// `shader`: every launch this thread makes of that module's entry points inside `f` builds
    /// them from `shader` instead, with the library's own host code, bindings and constants.
    /// This is how `tilekit exercise check` runs a learner's file; other threads are not
    /// affected. `shader` needs a name of its own (pipelines are cached by name).
    pub fn with_substitute<R>(&self, module: &str, shader: Shader, f: impl FnOnce() -> R) -> R {
        struct Restore(String);
        impl Drop for Restore {
            fn drop(&mut self) {
                let _ = SUBSTITUTES.try_with(|m| m.borrow_mut().remove(&self.0));
            }
        }
        SUBSTITUTES.with(|m| m.borrow_mut().insert(module.to_string(), shader));
        let _restore = Restore(module.to_string());
        f()
    }
}

/// Whether this thread runs substituted shaders ([`Gpu::with_substitute`]): caches of prepared
/// launches (`pool::Inner::recipe`) are then neither read nor filled.
pub(crate) fn substituting() -> bool {
    SUBSTITUTES.with(|m| !m.borrow().is_empty())
}
