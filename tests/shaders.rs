//! Every shader module the registry builds parses and validates with naga (the version wgpu
//! uses), on any machine, GPU or not: a broken shader fails `cargo test` here before it reaches a
//! device. Every `.wgsl` file under `shaders/` belongs to some module.

use std::path::Path;
use tilekit::kernels::{modules, Module};

fn all_modules() -> Vec<Module> {
    modules()
}

fn validate(name: &str, source: &str, needs: wgpu::Features) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
    // A module needs a capability only if it declares the feature that gives it.
    let mut caps = naga::valid::Capabilities::all();
    if !needs.contains(wgpu::Features::SUBGROUP) {
        caps -= naga::valid::Capabilities::SUBGROUP;
    }
    if !needs.contains(wgpu::Features::SHADER_F16) {
        caps -= naga::valid::Capabilities::SHADER_FLOAT16;
    }
    if !needs.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        caps -= naga::valid::Capabilities::COOPERATIVE_MATRIX;
    }
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name} ({needs:?}): {}", e.emit_to_string(source)));
}

#[test]
fn every_module_parses_and_validates_with_only_the_features_it_declares() {
    let modules = all_modules();
    assert!(modules.len() >= 10, "only {} modules", modules.len());
    for m in &modules {
        validate(&m.shader.name, &m.shader.source, m.needs);
    }
}

#[test]
fn every_shader_file_is_part_of_a_module() {
    let modules = all_modules();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let source = std::fs::read_to_string(&path).unwrap();
            // Its first comment line is in some module (specialisation only rewrites `alias`).
            let first = source.lines().next().unwrap();
            assert!(
                modules.iter().any(|m| m.shader.source.contains(first)),
                "{} is in no registered module",
                path.display()
            );
            count += 1;
        }
    }
    assert!(
        count >= 10,
        "found only {count} shaders in {}",
        dir.display()
    );
}
