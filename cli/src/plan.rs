//! `tilekit plan`: a kernel's planner analysis under a preset's limits or the adapter's, and
//! the kernel a matmul call of that shape gets.

use super::commands::Globals;
use super::{print_json, usage, Fail};
use serde_json::{json, Map};
use tilekit::limits::{DeviceProfile, Limits, PRESETS};
use tilekit::plan::{Plan, Planner, Rates};
use tilekit::{Error, Gpu};

/// The plan `tilekit plan` prints: the kernel's planner analysis under a preset's limits (or,
/// with `gpu`, the adapter's), with the limits, the profile and where the limits came from. No
/// GPU is opened for a preset. `matmul` is the kernel a call of that shape gets: with the
/// adapter, the library's own selection (the autotuner's cache, else the planner's rules), and
/// who chose it; under a preset, the planner's rules.
pub fn plan_for(
    kernel: &str,
    sizes: &[u64],
    limits: &str,
    profile: Option<&str>,
    gpu: Option<&Gpu>,
) -> Result<PlanAnswer, Fail> {
    let kernels = tilekit::kernels::plan_kernels();
    let k = kernels
        .iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| Error::Unknown {
            what: "kernel",
            got: kernel.into(),
            choices: kernels.iter().map(|k| k.name.to_string()).collect(),
        })?;
    if sizes.len() > k.sizes.len() {
        return Err(usage(format!(
            "plan {} takes at most {} sizes ({}), got {}",
            k.name,
            k.sizes.len(),
            k.sizes.iter().map(|s| s.0).collect::<Vec<_>>().join(" "),
            sizes.len()
        )));
    }
    let full: Vec<u64> = k
        .sizes
        .iter()
        .enumerate()
        .map(|(i, (_, d))| sizes.get(i).copied().unwrap_or(*d))
        .collect();
    let (lim, profile, source, caps) = match (limits, gpu) {
        ("adapter", Some(gpu)) => (
            gpu.limits().clone(),
            gpu.profile.clone(),
            gpu.summary.name.clone(),
            gpu.caps(),
        ),
        ("adapter", None) => return Err(usage("plan --limits adapter needs the GPU".to_string())),
        _ => {
            let l = Limits::preset(limits)?;
            let p = DeviceProfile::named(profile.unwrap_or("default"))?;
            let about = PRESETS.iter().find(|p| p.0 == limits).map_or("", |p| p.1);
            let caps = tilekit::limits::Caps::preset(limits, &l);
            (l, p, format!("the {limits} preset ({about})"), caps)
        }
    };
    // A matmul on this adapter: what a call of this shape gets (the library's choice); for
    // `matmul` itself, that call's plan is the one shown.
    let call = match (gpu, kernel.ends_with("matmul"), full.as_slice()) {
        (Some(gpu), true, [m, kk, n]) => {
            use tilekit::kernels::matmul::{Precision, Selection, Shape};
            let shape = Shape::new(*m as usize, *kk as usize, *n as usize)?;
            Some(tilekit::kernels::matmul::select(
                gpu,
                shape,
                Precision::F32,
                &Selection::Auto,
            )?)
        }
        _ => None,
    };
    let plan = match (&call, kernel) {
        (Some(c), "matmul") if c.plan.is_some() => c.plan.as_deref().cloned().expect("checked"),
        _ => {
            let tiling = (k.make)(&full, &caps)?;
            let rates = matmul_rates(tiling.kernel(), &full, &caps, &profile, gpu);
            Planner::new(lim.clone(), profile.clone())
                .with_rates(rates)
                .plan(tiling.as_ref())?
        }
    };
    Ok(PlanAnswer {
        plan,
        limits: lim,
        profile,
        source,
        call: call.map(|c| {
            let tile = c.plan.map(|p| p.choice().label.clone());
            (c.variant.name().to_string(), tile, c.chosen_by)
        }),
    })
}

/// The measured rates the library scores a matmul kernel's candidates with: the variant whose
/// tiling `kernel` is (the f32 one where both precisions share it), on the adapter (its tune,
/// else its profile's) or, under a preset, the profile's shipped ones. None for other kernels.
fn matmul_rates(
    kernel: &str,
    sizes: &[u64],
    caps: &tilekit::limits::Caps,
    profile: &DeviceProfile,
    gpu: Option<&Gpu>,
) -> Rates {
    use tilekit::kernels::matmul::{tune, Precision, Shape, Variant};
    let [m, k, n] = sizes else {
        return Rates::new();
    };
    let Ok(shape) = Shape::new(*m as usize, *k as usize, *n as usize) else {
        return Rates::new();
    };
    let is = |v: &Variant| matches!(v.tiling(shape, caps), Ok(Some(t)) if t.kernel() == kernel);
    let variant = Variant::all()
        .filter(|v| v.precision() == Precision::F32)
        .find(is)
        .or_else(|| Variant::all().find(is));
    match (variant, gpu) {
        (None, _) => Rates::new(),
        (Some(v), Some(gpu)) => tilekit::kernels::matmul::measured_rates(gpu, v),
        (Some(v), None) => tune::shipped_rates(profile.name, v),
    }
}

/// What `tilekit plan` shows.
pub struct PlanAnswer {
    /// The plan.
    pub plan: Plan,
    /// The limits it was made under.
    pub limits: Limits,
    /// The device profile.
    pub profile: DeviceProfile,
    /// Whose limits.
    pub source: String,
    /// For a matmul on the adapter: the variant and tile a call of this shape gets, and who
    /// chose them.
    pub call: Option<(String, Option<String>, tilekit::plan::ChosenBy)>,
}

/// `tilekit plan`.
pub fn plan(
    g: &Globals,
    kernel: &str,
    sizes: &[u64],
    limits: &str,
    json: bool,
) -> Result<(), Fail> {
    let gpu = if limits == "adapter" {
        Some(g.open()?)
    } else {
        None
    };
    let a = plan_for(kernel, sizes, limits, g.profile.as_deref(), gpu.as_ref())?;
    let call = a
        .call
        .as_ref()
        .map(|(v, tile, by)| json!({"variant": v, "tile": tile, "chosen_by": by}));
    if json {
        let mut m = Map::new();
        m.insert("limits_of".into(), json!(a.source));
        m.insert("limits".into(), json!(a.limits));
        m.insert("profile".into(), json!(a.profile));
        m.insert("plan".into(), json!(a.plan));
        if let Some(c) = &call {
            m.insert("call".into(), c.clone());
        }
        print_json(m);
    } else {
        if let Some((v, tile, by)) = &a.call {
            println!(
                "a call of this shape gets {v} {} (chosen by the {})\n",
                tile.as_deref().unwrap_or(""),
                match by {
                    tilekit::plan::ChosenBy::Tuner => "autotuner's cache",
                    tilekit::plan::ChosenBy::Measured => "measured defaults of this device profile",
                    _ => "planner's rules",
                }
            );
        }
        println!(
            "{} {} under {}: max_compute_workgroup_storage_size {} B, max_compute_invocations_per_workgroup {}\nprofile {}: {}\n\n{}",
            a.plan.kernel,
            a.plan.size_text(),
            a.source,
            a.limits.max_compute_workgroup_storage_size,
            a.limits.max_compute_invocations_per_workgroup,
            a.profile.name,
            a.profile.source,
            a.plan.table()
        );
    }
    Ok(())
}
