//! What the Vulkan driver made of a kernel: the WGSL is translated by naga (the same translator
//! wgpu uses, pipeline constants applied), the pipeline created with raw Vulkan and the capture
//! flags of VK_KHR_pipeline_executable_properties, and its statistics printed (on NVIDIA:
//! registers, local memory, shared memory, binary size); internal representations, where the
//! driver gives any, are written to OUT_PREFIX-<executable>-<n>.txt. lavapipe lacks the extension.
//!
//! Usage, on the GPU machine (build here: `cargo build --release` in this folder):
//!   stats FULL_MODULE.wgsl ENTRY OUT_PREFIX NAME=VALUE...
//! FULL_MODULE is the module as tilekit builds it (prelude + support + kernel, e.g.
//! `cat prelude.wgsl shaders/matmul_support.wgsl shaders/matmul_pipelined.wgsl`), the constants
//! those of the plan (`BM=128 BN=128 BK=8`).
use ash::vk;
use std::ffi::CStr;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = &args[1];
    let entry_name = &args[2];
    let out_prefix = &args[3];
    let constants: naga::back::PipelineConstants = args[4..]
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.parse::<f64>().unwrap())
        })
        .collect();
    let src = std::fs::read_to_string(file).unwrap();
    let module =
        naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&src)));
    let caps = naga::valid::Capabilities::all();
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&src)));
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((naga::ShaderStage::Compute, entry_name)),
        &constants,
    )
    .unwrap();
    // The options wgpu's Vulkan back end uses for a module made with
    // `create_shader_module_trusted(.., ShaderRuntimeChecks::unchecked())`, as tilekit makes
    // them (src/pipeline.rs): no bounds checks, no loop bounding, no division checks, workgroup
    // memory not zeroed. naga's defaults differ, and the loop-bounding counter alone keeps the
    // driver from unrolling any loop: the statistics would describe another kernel.
    let mut options = naga::back::spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Unchecked,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        force_loop_bounding: false,
        zero_initialize_workgroup_memory: naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None,
        emit_int_div_checks: false,
        ..Default::default()
    };
    options.flags.remove(naga::back::spv::WriterFlags::DEBUG);
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry_name.clone(),
    };
    let spv = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline)).unwrap();
    // bindings of group 0
    let mut bindings = Vec::new();
    for (_, g) in module.global_variables.iter() {
        if let Some(rb) = &g.binding {
            let ty = match g.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                _ => continue,
            };
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(rb.binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
    }
    unsafe {
        let entry = ash::Entry::load().unwrap();
        let app = vk::ApplicationInfo::default().api_version(vk::make_api_version(0, 1, 3, 0));
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let pds = instance.enumerate_physical_devices().unwrap();
        let pd = *pds
            .iter()
            .find(|p| {
                let props = instance.get_physical_device_properties(**p);
                props.device_type == vk::PhysicalDeviceType::DISCRETE_GPU
            })
            .unwrap_or(&pds[0]);
        let props = instance.get_physical_device_properties(pd);
        println!("device: {:?}", CStr::from_ptr(props.device_name.as_ptr()));
        let exts = instance.enumerate_device_extension_properties(pd).unwrap();
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| CStr::from_ptr(e.extension_name.as_ptr()) == n)
        };
        let pep = ash::khr::pipeline_executable_properties::NAME;
        println!("pipeline_executable_properties: {}", has(pep));
        let mut ext_names = vec![pep.as_ptr()];
        let coop = ash::khr::cooperative_matrix::NAME;
        if has(coop) {
            ext_names.push(coop.as_ptr());
        }
        let mut f_pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true);
        let mut f_coop =
            vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default().cooperative_matrix(true);
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(true)
            .uniform_and_storage_buffer16_bit_access(true);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(true)
            .vulkan_memory_model(true)
            .vulkan_memory_model_device_scope(true);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(true)
            .compute_full_subgroups(true);
        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qci)
            .enabled_extension_names(&ext_names)
            .push_next(&mut f_pep)
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        if has(coop) {
            dci = dci.push_next(&mut f_coop);
        }
        let device = instance.create_device(pd, &dci, None).unwrap();
        let sm = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&spv), None)
            .unwrap();
        let dsl = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let layouts = [dsl];
        let pl = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                None,
            )
            .unwrap();
        let name = std::ffi::CString::new(entry_name.as_str()).unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(sm)
            .name(&name);
        let ci = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(pl)
            .flags(
                vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                    | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR,
            )];
        let pipe = device
            .create_compute_pipelines(vk::PipelineCache::null(), &ci, None)
            .map_err(|e| e.1)
            .unwrap()[0];
        let ext = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        let exes = ext
            .get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipe))
            .unwrap();
        for (i, e) in exes.iter().enumerate() {
            println!(
                "executable {i}: {:?} subgroup {}",
                CStr::from_ptr(e.name.as_ptr()),
                e.subgroup_size
            );
            let info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipe)
                .executable_index(i as u32);
            for s in ext.get_pipeline_executable_statistics(&info).unwrap() {
                let v = match s.format {
                    vk::PipelineExecutableStatisticFormatKHR::BOOL32 => format!("{}", s.value.b32),
                    vk::PipelineExecutableStatisticFormatKHR::INT64 => format!("{}", s.value.i64),
                    vk::PipelineExecutableStatisticFormatKHR::UINT64 => format!("{}", s.value.u64),
                    _ => format!("{}", s.value.f64),
                };
                println!("  {:?} = {v}", CStr::from_ptr(s.name.as_ptr()));
            }
            // internal representations: sizes first, then data
            let mut reps = ext
                .get_pipeline_executable_internal_representations(&info)
                .unwrap();
            let mut bufs: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
            for (r, b) in reps.iter_mut().zip(bufs.iter_mut()) {
                r.p_data = b.as_mut_ptr() as *mut _;
            }
            let mut count = reps.len() as u32;
            let _ = (ext
                .fp()
                .get_pipeline_executable_internal_representations_khr)(
                device.handle(),
                &info,
                &mut count,
                reps.as_mut_ptr(),
            );
            for (j, (r, b)) in reps.iter().zip(bufs.iter()).enumerate() {
                let nm = CStr::from_ptr(r.name.as_ptr())
                    .to_string_lossy()
                    .to_string();
                let path = format!("{out_prefix}-{i}-{j}.txt");
                std::fs::write(&path, b).unwrap();
                println!(
                    "  representation {nm:?} text={} {} bytes -> {path}",
                    r.is_text,
                    b.len()
                );
            }
        }
    }
}
