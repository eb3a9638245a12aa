//! Every `.wgsl` file under `shaders/` parses and validates with naga (the version wgpu uses), on
//! any machine, GPU or not: a broken shader fails `cargo test` here before it reaches a device.

use std::path::Path;

fn validate(name: &str, source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    v.validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
}

#[test]
fn every_shader_parses_and_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let source = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            validate(&name, &source);
            // Families whose element type varies are validated for every type they are built for.
            for (ty, specialised) in tilekit::kernels::specialisations(&name, &source) {
                validate(&format!("{name} as {ty}"), &specialised);
            }
            count += 1;
        }
    }
    assert!(
        count >= 2,
        "found only {count} shaders in {}",
        dir.display()
    );
}
