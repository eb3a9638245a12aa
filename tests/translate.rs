//! Every pipeline the planner can emit, under the limits of platforms this machine cannot run
//! (Metal on Apple M-series, DX12, WebGPU's baseline) and of those it can (GL, lavapipe, the
//! H100), goes through what wgpu does before a driver sees it: naga's pipeline-constant
//! processing, then the back end of that platform (MSL for Metal, HLSL for DX12, SPIR-V for
//! Vulkan, GLSL ES 3.1 for GL/GLES). No GPU is needed.
//!
//! A module that needs an optional feature is translated only for the back ends whose wgpu
//! adapters can offer that feature ([`offered`]): an adapter without it never builds the module
//! (the registry's `needs`), so it cannot reach that back end.

use naga::back::PipelineConstants;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use naga::ShaderStage;
use tilekit::kernels::{families, pipelines, plan_kernels, PipelineUse};
use tilekit::limits::{DeviceProfile, Limits, PRESETS};
use tilekit::plan::Planner;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Backend {
    Vulkan,
    Metal,
    Dx12,
    Gl,
}

const BACKENDS: [Backend; 4] = [Backend::Vulkan, Backend::Metal, Backend::Dx12, Backend::Gl];

/// Whether wgpu's adapters on `backend` can offer `feature` (wgpu 30's hal back ends), and the
/// reason when they cannot.
fn offered(backend: Backend, feature: wgpu::Features) -> Result<(), &'static str> {
    use wgpu::Features as F;
    match backend {
        Backend::Vulkan => Ok(()),
        Backend::Metal if feature == F::EXPERIMENTAL_COOPERATIVE_MATRIX => Ok(()), // simdgroup_matrix
        Backend::Metal => Ok(()),
        Backend::Dx12 if feature == F::EXPERIMENTAL_COOPERATIVE_MATRIX => {
            Err("wgpu 30's DX12 back end offers no cooperative matrices")
        }
        Backend::Dx12 => Ok(()),
        Backend::Gl if feature == F::SUBGROUP => Err("wgpu 30's GL back end offers no subgroups"),
        Backend::Gl if feature == F::SHADER_F16 => Err("wgpu 30's GL back end offers no f16"),
        Backend::Gl if feature == F::EXPERIMENTAL_COOPERATIVE_MATRIX => {
            Err("wgpu 30's GL back end offers no cooperative matrices")
        }
        Backend::Gl => Ok(()),
    }
}

fn capabilities(needs: wgpu::Features) -> Capabilities {
    let mut caps = Capabilities::empty();
    if needs.contains(wgpu::Features::SUBGROUP) {
        caps |= Capabilities::SUBGROUP;
    }
    if needs.contains(wgpu::Features::SHADER_F16) {
        caps |= Capabilities::SHADER_FLOAT16;
    }
    if needs.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        caps |= Capabilities::COOPERATIVE_MATRIX;
    }
    caps
}

/// Translate one pipeline for one back end; the error names the stage that failed.
fn translate(p: &PipelineUse, backend: Backend) -> Result<usize, String> {
    let source = &p.module.shader.source;
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = Validator::new(ValidationFlags::all(), capabilities(p.module.needs))
        .validate(&module)
        .map_err(|e| format!("validation: {}", e.emit_to_string(source)))?;
    let constants: PipelineConstants = p.constants.iter().cloned().collect();
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((ShaderStage::Compute, &p.entry)),
        &constants,
    )
    .map_err(|e| format!("pipeline constants {:?}: {e}", p.constants))?;
    let entry = p.entry.clone();
    let len = match backend {
        Backend::Vulkan => {
            let options = naga::back::spv::Options {
                lang_version: (1, 3),
                ..Default::default()
            };
            let pipeline = naga::back::spv::PipelineOptions {
                shader_stage: ShaderStage::Compute,
                entry_point: entry,
            };
            naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
                .map_err(|e| format!("SPIR-V: {e}"))?
                .len()
                * 4
        }
        Backend::Metal => {
            let options = naga::back::msl::Options {
                lang_version: (2, 4),
                ..Default::default()
            };
            let pipeline = naga::back::msl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry)),
                ..Default::default()
            };
            naga::back::msl::write_string(&module, &info, &options, &pipeline)
                .map_err(|e| format!("MSL: {e}"))?
                .0
                .len()
        }
        Backend::Dx12 => {
            let options = naga::back::hlsl::Options {
                shader_model: naga::back::hlsl::ShaderModel::V6_2,
                ..Default::default()
            };
            let pipeline = naga::back::hlsl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry)),
            };
            let mut out = String::new();
            naga::back::hlsl::Writer::new(&mut out, &options, &pipeline)
                .write(&module, &info, None)
                .map_err(|e| format!("HLSL: {e}"))?;
            out.len()
        }
        Backend::Gl => {
            let options = naga::back::glsl::Options {
                version: naga::back::glsl::Version::Embedded {
                    version: 310,
                    is_webgl: false,
                },
                ..Default::default()
            };
            let pipeline = naga::back::glsl::PipelineOptions {
                shader_stage: ShaderStage::Compute,
                entry_point: entry,
                multiview: None,
            };
            let mut out = String::new();
            naga::back::glsl::Writer::new(
                &mut out,
                &module,
                &info,
                &options,
                &pipeline,
                naga::proc::BoundsCheckPolicies::default(),
            )
            .and_then(|mut w| w.write())
            .map_err(|e| format!("GLSL ES 3.1: {e}"))?;
            out.len()
        }
    };
    Ok(len)
}

#[test]
fn every_pipeline_the_planner_can_emit_translates_for_every_back_end_under_every_preset() {
    let mut translated = 0;
    let mut unavailable = Vec::new();
    let mut failures = Vec::new();
    for (preset, _) in PRESETS {
        let profile = match preset {
            "h100" => "hopper",
            "apple-m" => "apple",
            "gl" | "lavapipe" => "cpu",
            _ => "default",
        };
        let planner = Planner::new(
            Limits::preset(preset).unwrap(),
            DeviceProfile::named(profile).unwrap(),
        );
        for (family, _) in families() {
            let pipelines = pipelines(family, &planner).unwrap();
            assert!(
                !pipelines.is_empty(),
                "{family} emits no pipeline under {preset}"
            );
            for p in &pipelines {
                for backend in BACKENDS {
                    let missing = wgpu::Features::all()
                        .iter()
                        .filter(|f| p.module.needs.contains(*f))
                        .find_map(|f| offered(backend, f).err());
                    if let Some(reason) = missing {
                        unavailable
                            .push(format!("{} on {backend:?}: {reason}", p.module.shader.name));
                        continue;
                    }
                    match translate(p, backend) {
                        Ok(len) => {
                            assert!(len > 0);
                            translated += 1;
                        }
                        Err(e) => failures.push(format!(
                            "{preset} / {} / {}:{} {:?} / {backend:?}: {e}",
                            family, p.module.shader.name, p.entry, p.constants
                        )),
                    }
                }
            }
        }
    }
    unavailable.sort();
    unavailable.dedup();
    println!("{translated} translations; unavailable by design:");
    for u in &unavailable {
        println!("  {u}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} translations failed:\n{}",
        failures.len(),
        failures.len() + translated,
        failures.join("\n")
    );
    assert!(translated > 200, "only {translated} translations");
}

#[test]
fn every_plannable_kernel_plans_under_every_preset_at_its_default_and_ragged_sizes() {
    let mut planned = 0;
    for (preset, _) in PRESETS {
        let limits = Limits::preset(preset).unwrap();
        let planner = Planner::new(limits.clone(), DeviceProfile::named("default").unwrap());
        {
            for kernel in plan_kernels() {
                let defaults: Vec<u64> = kernel.sizes.iter().map(|(_, v)| *v).collect();
                // Ragged: one less than each default, never a multiple of a tile.
                let ragged: Vec<u64> = defaults.iter().map(|v| (v - 1).max(1)).collect();
                let caps = tilekit::limits::Caps::preset(preset, &limits);
                for sizes in [defaults, ragged] {
                    let tiling = match (kernel.make)(&sizes, &caps) {
                        // The matrix units exist under the h100 preset only: elsewhere the
                        // cooperative kernel is a typed error, not a plan.
                        Err(tilekit::Error::Unsupported { .. })
                            if kernel.name == "coop-matmul" && caps.coop.is_empty() =>
                        {
                            continue
                        }
                        t => t.unwrap_or_else(|e| panic!("{} under {preset}: {e}", kernel.name)),
                    };
                    let plan = planner.plan(tiling.as_ref()).unwrap_or_else(|e| {
                        panic!("{} {sizes:?} under {preset}: {e}", kernel.name)
                    });
                    let c = plan.choice();
                    assert!(c.refused.is_none(), "{preset}: chose a refused candidate");
                    assert!(
                        c.usage.workgroup_bytes <= limits.max_compute_workgroup_storage_size,
                        "{} under {preset}: {} bytes",
                        kernel.name,
                        c.usage.workgroup_bytes
                    );
                    planned += 1;
                }
            }
        }
    }
    assert!(planned >= PRESETS.len() * 2 * 6, "only {planned} plans");
}

/// The cooperative-matrix kernel is built only where the adapter lists its fragment (16×16×16,
/// f16 → f32), so the registry's pipelines above leave it out. Here every candidate the planner
/// accepts under the H100's limits, with that configuration and a 32-wide subgroup, goes through
/// naga's SPIR-V back end (the one path wgpu 30 runs it on: Vulkan; wgpu's Metal back end offers
/// 8×8 f32 simdgroup matrices only, and DX12 and GL none).
#[test]
fn the_cooperative_matrix_kernel_translates_to_spirv_for_every_candidate() {
    use tilekit::kernels::matmul::{coop, Caps, Variant};
    let planner = Planner::new(
        Limits::preset("h100").unwrap(),
        DeviceProfile::named("hopper").unwrap(),
    );
    let caps = Caps {
        coop: vec![coop::FRAGMENT],
        subgroup_sizes: [32, 32],
        adapter: "H100 (preset)".into(),
    };
    let pipelines = Variant::COOP.pipelines(&planner, &caps);
    let main: Vec<_> = pipelines.iter().filter(|p| p.entry == "coop").collect();
    assert!(main.len() >= 8, "only {} coop pipelines", main.len());
    for p in &pipelines {
        let bytes = translate(p, Backend::Vulkan).unwrap_or_else(|e| {
            panic!(
                "{}:{} {:?}: {e}",
                p.module.shader.name, p.entry, p.constants
            )
        });
        println!(
            "{}:{} {:?}: {bytes} bytes of SPIR-V",
            p.module.shader.name, p.entry, p.constants
        );
    }
    // Without the configuration, or with a subgroup size that varies, there is no pipeline.
    for caps in [
        Caps {
            coop: vec![],
            ..caps.clone()
        },
        Caps {
            subgroup_sizes: [32, 64],
            ..caps.clone()
        },
    ] {
        assert!(Variant::COOP.pipelines(&planner, &caps).is_empty());
    }
}
