//! Building pipelines: a shader module per source (with wgpu's runtime checks only where they are
//! wanted), a compute pipeline per (shader, entry point, override constants) from the planner,
//! both cached on the [`Gpu`]; and the substitution of a learner's shader for one of tilekit's.

use crate::gpu::Gpu;
use crate::pipeline::Shader;
use crate::Result;
use std::sync::Arc;

impl Gpu {
    async fn module(&self, shader: &Shader) -> Result<Arc<wgpu::ShaderModule>> {
        if let Some(m) = self
            .pipelines
            .modules
            .lock()
            .expect("module cache")
            .get(shader.name.as_ref())
        {
            return Ok(m.clone());
        }
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&shader.name),
            source: wgpu::ShaderSource::Wgsl(shader.source.clone()),
        };
        let module = self
            .scoped(&format!("compiling shaders/{}.wgsl", shader.name), || {
                if self.runtime_checks || shader.checked {
                    self.device.create_shader_module(desc)
                } else {
                    // SAFETY: tilekit's kernels guard every global access with their own bounds
                    // checks (tests cover the edge sizes of every family), and their loops are bounded
                    // by uniform sizes; without the checks, loops run up to 3× faster (docs/wgpu-notes.md 3).
                    unsafe {
                        self.device.create_shader_module_trusted(
                            desc,
                            wgpu::ShaderRuntimeChecks::unchecked(),
                        )
                    }
                }
            })
            .await?;
        let module = Arc::new(module);
        self.pipelines
            .modules
            .lock()
            .expect("module cache")
            .insert(shader.name.to_string(), module.clone());
        Ok(module)
    }

    /// The compute pipeline for `entry` of `shader` with these override constants, built on first
    /// use and cached. The caller must have checked the plan against the limits (the planner
    /// does): wgpu 30 does not (docs/wgpu-notes.md 1, 2).
    pub(crate) async fn pipeline(
        &self,
        shader: &Shader,
        entry: &str,
        constants: &[(String, f64)],
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let substitute = crate::pipeline::substitute_for(&shader.name);
        let shader = substitute.as_ref().unwrap_or(shader);
        let mut sorted: Vec<(String, u64)> = constants
            .iter()
            .map(|(k, v)| (k.clone(), v.to_bits()))
            .collect();
        sorted.sort();
        let key = crate::pipeline::Key {
            shader: shader.name.to_string(),
            entry: entry.to_string(),
            constants: sorted,
        };
        let cached = self
            .pipelines
            .pipelines
            .lock()
            .expect("pipeline cache")
            .get(&key)
            .cloned();
        if let Some(p) = cached {
            if shader.watched {
                crate::pipeline::watched_pipeline(&p);
            }
            return Ok(p);
        }
        let module = self.module(shader).await?;
        let consts: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let label = format!("{}::{entry}", shader.name);
        let pipeline = self
            .scoped(&format!("building pipeline {label} {constants:?}"), || {
                self.device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(&label),
                        layout: None,
                        module: &module,
                        entry_point: Some(entry),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &consts,
                            // Every tilekit kernel writes its workgroup arrays before reading them
                            // (after a barrier); zeroing them first costs about 4% (docs/wgpu-notes.md 3).
                            zero_initialize_workgroup_memory: self.runtime_checks || shader.checked,
                        },
                        cache: None,
                    })
            })
            .await?;
        // Two threads that missed the cache together have each built the pipeline: both take
        // the one cached first, and the other is dropped here, before anything binds to it.
        // Bind groups are kept by the pipeline's address (`launch::Step`); a pipeline handed
        // out and then dropped would free that address for another pipeline to be built at,
        // and its kept bind groups would then meet a pipeline they were not made for (seen
        // once in `tests/blur.rs`, two tests racing on one `Gpu`: "Exclusive pipelines don't
        // match").
        let pipeline = self
            .pipelines
            .pipelines
            .lock()
            .expect("pipeline cache")
            .entry(key)
            .or_insert_with(|| Arc::new(pipeline))
            .clone();
        if shader.watched {
            crate::pipeline::watched_pipeline(&pipeline);
        }
        Ok(pipeline)
    }

    /// Pipelines built so far.
    pub(crate) fn cached_pipelines(&self) -> usize {
        self.pipelines.len()
    }
}

impl Gpu {
    /// Run `f` with the module named `module` (e.g. `matmul`, `reduce<f32>`) replaced by
    /// `shader`: every launch this thread makes of that module's entry points inside `f` builds
    /// them from `shader` instead, with the library's own host code, bindings and constants.
    /// This is how `tilekit exercise check` runs a learner's file; other threads are not
    /// affected (in a browser, where every task shares the one thread, run nothing else
    /// meanwhile). `shader` needs a name of its own (pipelines are cached by name). Returns `f`'s
    /// output and, for a shader whose loops are bounded and flag their cap ([`Shader`]`::watched`,
    /// made by the course's `exercise::bound_loops`), whether a loop reached its cap (a loop that
    /// would not end); `false` for any other shader.
    pub fn substitute<'a, F: std::future::Future + 'a>(
        &'a self,
        module: &'a str,
        shader: Shader,
        f: F,
    ) -> crate::Call<'a, (F::Output, bool)> {
        crate::Call::new(async move {
            // The flag is bound to every pipeline built from a watched shader, and read after `f`.
            let flag = self.zeros::<u32>("loop-cap flag", 4).await?;
            let out = {
                let _watch = crate::pipeline::watch(flag.raw().clone());
                let _restore = crate::pipeline::substitute(module, shader);
                f.await
            };
            let capped = self.read(&flag).await?[0] != 0;
            Ok((out, capped))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::Shader;
    use crate::Gpu;
    use std::sync::{Arc, Barrier};

    /// Threads that ask for one pipeline at once all get the same one, the first cached. Needs
    /// an adapter (lavapipe in CI).
    #[test]
    fn threads_that_build_one_pipeline_together_get_the_same_one() {
        let gpu = Gpu::new().wait().expect("an adapter (lavapipe in CI)");
        let shader = Shader::file(
            "checks/pipeline_race",
            include_str!("../shaders/checks/pipeline_race.wgsl"),
        );
        let threads = 8;
        let start = Barrier::new(threads);
        let got: Vec<Arc<wgpu::ComputePipeline>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        pollster::block_on(gpu.pipeline(&shader, "main", &[])).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let cached = pollster::block_on(gpu.pipeline(&shader, "main", &[])).unwrap();
        for p in &got {
            assert!(Arc::ptr_eq(p, &cached));
        }
        assert_eq!(gpu.cached_pipelines(), 1);
    }
}
