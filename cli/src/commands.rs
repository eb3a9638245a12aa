//! The subcommands of `tilekit` other than `run`'s kernels and `plan` (`plan.rs`): info, run's
//! shared steps, bench, tour, exercise and tune. `src/cli/mod.rs` parses and calls these.

use super::output::Output;
use super::read::read_capped;
use super::{finish, print_json, usage, Common, Ctx, Fail, RunCommand};
use crate::run::CliError;
use clap::FromArgMatches;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use tilekit::gpu::{adapter_summaries, matching, AdapterSummary};
use tilekit::limits::DeviceProfile;
use tilekit::{Error, Gpu, GpuOptions};

/// The global arguments: which adapter and profile, runtime checks.
#[derive(Clone, Debug, Default)]
pub struct Globals {
    /// `--adapter`.
    pub adapter: Option<String>,
    /// `--profile`.
    pub profile: Option<String>,
    /// `--checked`.
    pub checked: bool,
}

impl Globals {
    /// How to open the GPU.
    pub fn options(&self) -> GpuOptions {
        GpuOptions {
            adapter: self.adapter.clone(),
            runtime_checks: self.checked,
            profile: self.profile.clone(),
            poison_outputs: true,
            ..Default::default()
        }
    }

    /// Open the GPU.
    pub fn open(&self) -> Result<Gpu, Error> {
        Gpu::with_options(self.options()).wait()
    }

    /// `--adapter NAME` that matches no adapter on any backend is an error for every
    /// subcommand (listing the adapters there are), and so is an unknown `--profile`.
    pub fn check_adapter(&self) -> Result<(), Error> {
        if let Some(p) = &self.profile {
            DeviceProfile::named(p)?;
        }
        if let Some(w) = self.adapter.as_deref().filter(|w| !w.is_empty()) {
            matching(adapter_summaries()?, w, |a| {
                (a.name.clone(), a.backend.clone())
            })?;
        }
        Ok(())
    }
}

/// Print a failure as JSON on stdout (`--json` keeps stdout clean JSON whatever happens).
pub fn print_error(f: &Fail) {
    let mut m = Map::new();
    m.insert(
        "error".into(),
        json!({"exit_code": f.code(), "message": f.message()}),
    );
    print_json(m);
}

fn summary_text(i: usize, a: &AdapterSummary) -> String {
    let l = &a.limits;
    let coop = if a.cooperative_matrices.is_empty() {
        String::new()
    } else {
        format!(
            "\n    cooperative matrices: {}",
            a.cooperative_matrices
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    format!(
        "[{i}] {} ({}, {})\n    driver: {} {}\n    vendor 0x{:04x} device 0x{:04x}\n    max_compute_workgroup_storage_size: {}\n    max_compute_invocations_per_workgroup: {}\n    max_compute_workgroup_size_x/y/z: {}/{}/{}\n    max_compute_workgroups_per_dimension: {}\n    max_storage_buffer_binding_size: {}\n    max_buffer_size: {}\n    subgroup_min_size..subgroup_max_size: {}..{}\n    features: {}\n    profile: {}{coop}",
        a.name,
        a.backend,
        a.device_type,
        a.driver,
        a.driver_info,
        a.vendor,
        a.device,
        l.max_compute_workgroup_storage_size,
        l.max_compute_invocations_per_workgroup,
        l.max_compute_workgroup_size_x,
        l.max_compute_workgroup_size_y,
        l.max_compute_workgroup_size_z,
        l.max_compute_workgroups_per_dimension,
        l.max_storage_buffer_binding_size,
        l.max_buffer_size,
        l.subgroup_min_size,
        l.subgroup_max_size,
        if a.features.is_empty() { "none".to_string() } else { a.features.join(", ") },
        a.profile,
    )
}

/// `tilekit info`: every adapter on every backend (or those `--adapter` names).
pub fn info(g: &Globals, json: bool) -> Result<(), Fail> {
    let mut all = adapter_summaries()?;
    if all.is_empty() {
        return Err(Error::NoAdapter {
            backends: "all".into(),
        }
        .into());
    }
    if let Some(w) = g.adapter.as_deref().filter(|w| !w.is_empty()) {
        all = matching(all, w, |a| (a.name.clone(), a.backend.clone()))?;
    }
    if json {
        let mut m = Map::new();
        m.insert("adapters".into(), json!(all));
        print_json(m);
    } else {
        let text: Vec<String> = all
            .iter()
            .enumerate()
            .map(|(i, a)| summary_text(i, a))
            .collect();
        println!("{}", text.join("\n"));
    }
    Ok(())
}

/// `tilekit run KERNEL ...`: the family's run, then the shared last steps.
pub fn run(g: &Globals, command: &RunCommand, m: &clap::ArgMatches) -> Result<(), Fail> {
    let common = Common::from_arg_matches(m)?;
    let output: Option<PathBuf> = if command.writes {
        super::OutputArg::from_arg_matches(m)?.output
    } else {
        None
    };
    // The output's place is checked before the run, not after it.
    let output = output
        .as_deref()
        .map(super::output::Output::prepare)
        .transpose()?;
    let ctx = Ctx::new(g.options());
    let out = (command.run)(&ctx, m)?;
    finish(&common, output.as_ref(), out)
}

fn progress(len: Option<usize>) -> indicatif::ProgressBar {
    let pb = match len {
        Some(n) => indicatif::ProgressBar::new(n as u64),
        None => indicatif::ProgressBar::new_spinner(),
    };
    // indicatif draws on stderr and stays hidden when stderr is not a terminal.
    pb.set_style(
        indicatif::ProgressStyle::with_template(if len.is_some() {
            "{bar:30} {pos}/{len} {msg}"
        } else {
            "{spinner} {elapsed} {msg}"
        })
        .expect("a valid template"),
    );
    pb
}

fn io_err(p: &std::path::Path, e: std::io::Error) -> CliError {
    CliError::Io {
        path: p.display().to_string(),
        source: e,
    }
}

/// The most a shader a learner checks may have: a lesson's kernel is a few KiB.
const SHADER_CAP: u64 = 1 << 20;
/// The most an earlier `bench --json` file may have: a full run's is under 1 MiB.
const BENCH_JSON_CAP: u64 = 64 << 20;

/// Each of `paths` checked as a place to write before the work starts.
/// Two outputs on one path would leave only the last one written: refused before any work, as
/// `cp a b b` is.
fn prepare(paths: &[&Option<PathBuf>]) -> Result<Vec<Option<Output>>, CliError> {
    let given: Vec<&PathBuf> = paths.iter().filter_map(|p| p.as_ref()).collect();
    for (i, a) in given.iter().enumerate() {
        for b in &given[i + 1..] {
            if same_file(a, b) {
                return Err(CliError::Usage(format!(
                    "{} is given for two outputs: each needs a file of its own",
                    a.display()
                )));
            }
        }
    }
    paths
        .iter()
        .map(|p| p.as_deref().map(Output::prepare).transpose())
        .collect()
}

/// Whether `a` and `b` name one file: the same path once made absolute, or (where both exist)
/// the same file through links.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    let absolute = |p: &std::path::Path| std::path::absolute(p).ok();
    if absolute(a).is_some() && absolute(a) == absolute(b) {
        return true;
    }
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// `tilekit bench`.
pub fn bench(g: &Globals, a: super::args::BenchArgs) -> Result<(), Fail> {
    let [json_out, chart_out, html_out] =
        <[Option<Output>; 3]>::try_from(prepare(&[&a.json, &a.chart, &a.html])?)
            .expect("three outputs");
    // The earlier run is read before the GPU is opened: a file that is no bench JSON is bad
    // input, found at once.
    let earlier = match &a.compare {
        Some(p) => {
            let text = read_capped(p, BENCH_JSON_CAP, "a bench JSON file")?;
            Some(crate::bench::Report::from_json(&text).map_err(|e| {
                io_err(
                    p,
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("not a tilekit bench JSON file: {e}"),
                    ),
                )
            })?)
        }
        None => None,
    };
    let gpu = g.open()?;
    let mut cfg = crate::bench::Config::new(a.quick);
    if let Some(r) = a.repeats {
        cfg.repeats = r as usize;
    }
    cfg.filter = a.filter.clone();
    let pb = progress(None);
    let report = crate::bench::run(&gpu, cfg, |name| {
        pb.set_message(name.to_string());
        pb.tick();
    })?;
    pb.finish_and_clear();
    if let Some(f) = &a.filter {
        if !report
            .entries
            .iter()
            .any(|e| !e.name.starts_with("ceiling/") && e.name.contains(f.as_str()))
            && !report
                .skipped
                .iter()
                .any(|s| !s.starts_with("ceiling/") && s.contains(f.as_str()))
        {
            return Err(usage(format!(
                "no bench case matches {f:?} (--filter keeps the cases whose name contains it)"
            )));
        }
    }
    println!("{}", report.table());
    if let Some(o) = &json_out {
        o.write(
            serde_json::to_string_pretty(&report)
                .expect("JSON of plain data")
                .as_bytes(),
        )?;
        println!("wrote {}", o.path().display());
    }
    if let Some(o) = &chart_out {
        o.write(crate::bench::report::roofline(&report).as_bytes())?;
        println!("wrote {}", o.path().display());
    }
    if let Some(o) = &html_out {
        o.write(crate::bench::report::bench_html(&report, &gpu.summary).as_bytes())?;
        println!("wrote {}", o.path().display());
    }
    if let Some(e) = &earlier {
        println!("{}", report.compare(e));
    }
    if report.entries.iter().any(|e| !e.verified) {
        return Err(Fail::Wrong("a kernel's result did not verify".into()));
    }
    Ok(())
}

/// `tilekit tour`.
pub fn tour(
    g: &Globals,
    quick: bool,
    full: bool,
    json: bool,
    html: Option<PathBuf>,
) -> Result<(), Fail> {
    use tilekit_course::tour::{lessons, run_all, Size};
    let html_out = html.as_deref().map(Output::prepare).transpose()?;
    let gpu = g.open()?;
    let size = if quick || (gpu.is_cpu() && !full) {
        Size::Quick
    } else {
        Size::Full
    };
    if !json {
        let sizes = match size {
            Size::Quick => "small sizes (--full for GPU-sized inputs)",
            Size::Full => "GPU-sized inputs",
        };
        println!(
            "adapter: {} ({}); {sizes}\n",
            gpu.summary.name, gpu.summary.backend
        );
        if gpu.is_cpu() {
            println!("{}\n", tilekit_course::lesson::CPU_CAVEAT);
        }
    }
    let pb = progress(Some(lessons().len()));
    let results = run_all(&gpu, size, |name| {
        pb.set_message(name.to_string());
        pb.inc(1);
    });
    pb.finish_and_clear();
    let mut ok = true;
    let mut summary = String::from("\nsummary\n");
    let mut reports: Vec<Value> = vec![];
    for (name, r) in &results {
        match r {
            Ok(rep) => {
                ok &= rep.verified;
                if !json {
                    println!("{}", rep.render());
                }
                summary += &format!("  {:<22} {:<12} {}\n", name, rep.status(), rep.key);
                reports.push(json!(rep));
            }
            Err(e) => {
                ok = false;
                summary += &format!("  {name:<22} FAILED    {e}\n");
                reports.push(json!({"title": name, "error": e.to_string()}));
            }
        }
    }
    if let Some(o) = &html_out {
        o.write(tilekit_course::report::tour_html(&results, &gpu).as_bytes())?;
        if !json {
            println!("wrote {}", o.path().display());
        }
    }
    if json {
        let mut m = Map::new();
        m.insert("adapter".into(), json!(gpu.summary.name));
        m.insert("backend".into(), json!(gpu.summary.backend));
        m.insert("lessons".into(), json!(reports));
        m.insert("ok".into(), json!(ok));
        print_json(m);
    } else {
        println!("{summary}");
    }
    if ok {
        Ok(())
    } else {
        Err(Fail::Wrong("a lesson failed".into()))
    }
}

/// `tilekit exercise list` and `tilekit exercise check NAME FILE`: exit 0 when the learner's
/// kernel passes, 1 when it computes a wrong answer or does not compile, 2 on bad arguments.
pub fn exercise(g: &Globals, action: super::args::ExerciseAction) -> Result<(), Fail> {
    use super::args::ExerciseAction;
    match action {
        ExerciseAction::List => {
            for e in tilekit_course::exercise::exercises() {
                println!(
                    "{:<18} {}\n{:<18} start: tilekit exercise start {} (writes {}.wgsl); solution: the project's {}",
                    e.name, e.task, "", e.name, e.name, e.solution
                );
            }
            Ok(())
        }
        ExerciseAction::Start { name, file } => {
            let ex = tilekit_course::exercise::exercise(&name)?;
            let path = file.unwrap_or_else(|| PathBuf::from(format!("{name}.wgsl")));
            // A learner's file is never overwritten: a second `start` would erase their work.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| {
                    if e.kind() == std::io::ErrorKind::AlreadyExists {
                        CliError::Usage(format!(
                            "{} exists: tilekit does not overwrite it (your work); name another file or remove it",
                            path.display()
                        ))
                    } else {
                        io_err(&path, e)
                    }
                })?;
            std::io::Write::write_all(&mut f, ex.starter_source.as_bytes())
                .map_err(|e| io_err(&path, e))?;
            println!(
                "wrote {}: {}\nfill in its TODOs, then: tilekit exercise check {name} {}",
                path.display(),
                ex.task,
                path.display()
            );
            Ok(())
        }
        ExerciseAction::Check {
            name,
            file,
            json,
            svg,
        } => {
            use tilekit_course::exercise::Verdict;
            let ex = tilekit_course::exercise::exercise(&name)?;
            let source = read_capped(&file, SHADER_CAP, "a shader")?;
            let gpu = g.open()?;
            let path = file.display().to_string();
            let verdict = tilekit_course::exercise::check(&gpu, &ex, &source, &path);
            let svgs = match (&verdict, &svg) {
                (Verdict::Traced { report, .. }, Some(dir)) => {
                    crate::trace::write_svgs(report, dir, &path)?
                }
                _ => Vec::new(),
            };
            if json {
                let mut m = Map::new();
                m.insert("exercise".into(), json!(name));
                m.insert("file".into(), json!(path));
                m.insert("passed".into(), json!(verdict.passed()));
                m.insert("verdict".into(), json!(verdict.kind()));
                m.insert("text".into(), json!(verdict.render(&ex)));
                m.insert("lines".into(), json!(verdict.lines()));
                if let Verdict::Traced { report, .. } = &verdict {
                    m.insert("trace".into(), json!(report));
                }
                m.insert(
                    "svg".into(),
                    json!(svgs
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()),
                );
                print_json(m);
            } else {
                println!("{}", verdict.render(&ex));
                for s in &svgs {
                    println!("wrote {}", s.display());
                }
            }
            match (verdict.passed(), json) {
                (true, _) => Ok(()),
                (false, false) => Err(Fail::Wrong(format!("{name} did not pass"))),
                (false, true) => Err(Fail::Reported(Box::new(Fail::Wrong(format!(
                    "{name} did not pass"
                ))))),
            }
        }
    }
}

/// `tilekit tune`: every matmul candidate that fits, on the bench's shape set (f32, and f16 where
/// the adapter has SHADER_F16), the winners written to the cache `Gpu::choose_matmul` reads.
pub fn tune(g: &Globals, quick: bool, json: bool) -> Result<(), Fail> {
    use crate::bench::matmul as bench;
    use tilekit::kernels::matmul::{tune, Precision, Shape};
    // The cache must take the winners: checked before the tuning, not after it.
    let path = tune::cache_path().ok_or_else(|| {
        CliError::Usage("no cache directory: set TILEKIT_CACHE_DIR, XDG_CACHE_HOME or HOME".into())
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    }
    let cache = Output::prepare(&path)?;
    let gpu = g.open()?;
    let quick = quick || gpu.is_cpu();
    let mut work: Vec<(Shape, Precision)> = Vec::new();
    let f32_shapes: &[(usize, usize, usize)] = if quick {
        &bench::QUICK_SHAPES
    } else {
        &bench::SHAPES
    };
    for &(m, k, n) in f32_shapes {
        work.push((Shape::new(m, k, n)?, Precision::F32));
    }
    if gpu.features().contains(wgpu::Features::SHADER_F16) {
        let f16_shapes: &[(usize, usize, usize)] = if quick {
            &bench::QUICK_SHAPES[..2]
        } else {
            &bench::F16_SHAPES
        };
        for &(m, k, n) in f16_shapes {
            work.push((Shape::new(m, k, n)?, Precision::F16));
        }
    }
    let total: usize = work
        .iter()
        .map(|(s, p)| tune::candidates(&gpu, *s, *p).len())
        .sum();
    let pb = progress(Some(total));
    let mut results = Vec::new();
    for (shape, precision) in work {
        let r = tune::tune_shape(&gpu, shape, precision, |msg| {
            pb.set_message(msg.to_string());
            pb.inc(1);
        })?;
        results.push(r);
    }
    pb.finish_and_clear();
    cache.write(tune::merged(&gpu, &results)?.as_bytes())?;
    if json {
        let mut m = Map::new();
        m.insert("cache".into(), json!(path.display().to_string()));
        m.insert("tuned".into(), json!(results));
        m.insert("rates".into(), json!(tune::rates(&gpu, &results)));
        print_json(m);
        return Ok(());
    }
    println!(
        "{:<24} {:<24} {:>11} {:>11} {:>7}",
        "bucket", "winner", "time", "planner", "gain"
    );
    for r in &results {
        let w = &r.winner;
        println!(
            "{:<24} {:<24} {:>11} {:>11} {:>6.2}x",
            r.bucket,
            format!("{} {}", w.variant, w.tile.as_deref().unwrap_or("")),
            super::units::time(w.seconds),
            super::units::time(w.planner_seconds),
            w.planner_seconds / w.seconds
        );
    }
    println!("wrote {}", path.display());
    Ok(())
}
