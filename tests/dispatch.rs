//! A kernel of one's own (`Gpu::dispatch`, `Gpu::params`): a WGSL entry point run with one's own
//! buffers over an x, y, z grid, against a CPU reference; and what is refused before it runs.

mod common;
use common::{gpu, random_f32};
use tilekit::{Error, Shader, POISON};

fn shader() -> Shader {
    Shader::file(
        "checks/scale_by_layer",
        include_str!("../shaders/checks/scale_by_layer.wgsl"),
    )
}

#[test]
fn a_kernel_of_ones_own_runs_over_an_x_y_z_grid() {
    let g = gpu();
    let (nx, ny, nz) = (37u32, 5u32, 3u32);
    let n = (nx * ny * nz) as usize;
    let a = random_f32(n, 41);
    let da = g.upload("a", &a).wait().unwrap();
    let out = g
        .upload("out", &vec![f32::from_bits(POISON); n])
        .wait()
        .unwrap();
    let scale = 1.5f32;
    let params = g.params(&[nx, ny, nz, scale.to_bits()]).unwrap();
    let grid = [nx.div_ceil(8), ny.div_ceil(4), nz];
    g.dispatch(
        &shader(),
        "main",
        &[],
        &[(0, da.bind()), (1, out.bind()), (2, params.bind())],
        grid,
    )
    .wait()
    .unwrap();
    let got = g.read(&out).wait().unwrap();
    for (i, (&x, &y)) in a.iter().zip(&got).enumerate() {
        let z = i / (nx * ny) as usize;
        let want = scale as f64 * x as f64 + z as f64;
        assert!(
            (y as f64 - want).abs() <= 1e-6 * want.abs().max(1.0),
            "element {i}: got {y}, expected {want}"
        );
    }
}

#[test]
fn a_grid_over_the_adapters_limit_is_refused_before_anything_is_built() {
    let g = gpu();
    let most = g.limits().max_compute_workgroups_per_dimension;
    let out = g.alloc::<f32>("out", 4).wait().unwrap();
    let err = g
        .dispatch(&shader(), "main", &[], &[(1, out.bind())], [1, most + 1, 1])
        .wait()
        .unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, Error::OutOfRange { .. })
            && message.contains(&(most + 1).to_string())
            && message.contains("max_compute_workgroups_per_dimension")
            && message.contains("along y"),
        "{message}"
    );
}

#[test]
fn a_grid_without_workgroups_is_refused() {
    let g = gpu();
    let out = g.alloc::<f32>("out", 4).wait().unwrap();
    let err = g
        .dispatch(&shader(), "main", &[], &[(1, out.bind())], [1, 1, 0])
        .wait()
        .unwrap_err();
    assert!(
        matches!(&err, Error::ZeroSize { what } if what.contains("along z")),
        "{err}"
    );
}

#[test]
fn a_uniform_block_over_the_adapters_limit_is_refused() {
    let g = gpu();
    let words = vec![0u32; (1 << 20) / 4];
    let err = g.params(&words).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BufferTooLarge {
                limit_name: "max_uniform_buffer_binding_size",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_binding_the_shader_does_not_declare_is_wgpus_error_typed() {
    let g = gpu();
    let n = 8;
    let a = g.upload("a", &random_f32(n, 42)).wait().unwrap();
    let out = g.alloc::<f32>("out", n).wait().unwrap();
    let params = g.params(&[2u32, 2, 2, 0]).unwrap();
    let err = g
        .dispatch(
            &shader(),
            "main",
            &[],
            &[
                (0, a.bind()),
                (1, out.bind()),
                (2, params.bind()),
                (7, a.bind()),
            ],
            [1, 1, 1],
        )
        .wait()
        .unwrap_err();
    assert!(matches!(err, Error::Gpu { .. }), "{err}");
}

#[test]
fn array_length_is_the_length_uploaded_not_the_buffers_padding() {
    // tilekit pads buffers to 16 bytes: 3 floats live in a buffer of 4.
    let g = gpu();
    let shader = Shader::file(
        "checks/array_length",
        include_str!("../shaders/checks/array_length.wgsl"),
    );
    let x = g.upload("x", &[1.0f32, 2.0, 3.0]).wait().unwrap();
    let n = g.upload("n", &[POISON; 5]).wait().unwrap();
    g.dispatch(
        &shader,
        "main",
        &[],
        &[(0, x.bind()), (1, n.bind())],
        [1, 1, 1],
    )
    .wait()
    .unwrap();
    assert_eq!(g.read(&n).wait().unwrap()[..2], [3, 5]);
}
