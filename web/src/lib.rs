//! tilekit in a web page: the tour's lessons and the exercises' checker, run on the visitor's
//! GPU through the browser's WebGPU. Everything here calls the library's public API and its async
//! forms (a browser cannot block); the page (`web/static/app.js`) calls these through
//! wasm-bindgen. Lessons render with the same function as `tilekit tour --html`.

use std::cell::RefCell;
use std::rc::Rc;
use tilekit::Gpu;
use tilekit_course::tour::{self, Size};
use tilekit_course::{exercise, trace};
use wasm_bindgen::prelude::*;

thread_local! {
    /// The page's GPU, opened on first use and again after the device is lost.
    static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
    /// The adapter's name as the browser gives it (`GPUAdapterInfo`'s vendor and architecture:
    /// wgpu's summary carries only its description, which browsers leave empty).
    static NAME: RefCell<String> = const { RefCell::new(String::new()) };
    /// The running lesson's lines so far (its progress), and whether the learner asked it to
    /// stop, with the waker of the lesson waiting on that.
    static LINES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static STOP: RefCell<(bool, Option<std::task::Waker>)> = const { RefCell::new((false, None)) };
}

/// The running lesson's progress: `{lines, last}` as JSON (the page polls it).
#[wasm_bindgen]
pub fn progress() -> String {
    LINES.with(|l| {
        let l = l.borrow();
        serde_json::json!({"lines": l.len(), "last": l.last()}).to_string()
    })
}

/// Ask the running lesson to stop: it ends at its next wait on the GPU, and its answer says
/// `"stopped": true`.
#[wasm_bindgen]
pub fn stop() {
    STOP.with(|s| {
        let mut s = s.borrow_mut();
        s.0 = true;
        if let Some(w) = s.1.take() {
            w.wake();
        }
    });
}

/// Runs `work` until it ends or [`stop`] is called (`None`): dropped at its next await, it
/// leaves nothing half-done that the next lesson would see (each lesson makes its own buffers).
async fn stoppable<T>(work: impl std::future::Future<Output = T>) -> Option<T> {
    STOP.with(|s| *s.borrow_mut() = (false, None));
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(v) = work.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(v));
        }
        STOP.with(|s| {
            let mut s = s.borrow_mut();
            if s.0 {
                std::task::Poll::Ready(None)
            } else {
                s.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        })
    })
    .await
}

fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The page's GPU: the one open, or a new one when there is none or it was lost (a learner's
/// runaway kernel, the driver's watchdog, a device reset).
async fn gpu() -> Result<Rc<Gpu>, JsValue> {
    if let Some(g) = GPU.with(|g| g.borrow().clone()) {
        if !g.is_lost() {
            return Ok(g);
        }
    }
    let mut g = Gpu::with_options(tilekit::GpuOptions {
        // Every result here is checked against the CPU: poison outputs first.
        poison_outputs: true,
        ..Default::default()
    })
    .await
    .map_err(err)?;
    if g.summary.name.is_empty() {
        g.summary.name = NAME.with(|n| n.borrow().clone());
    }
    let g = Rc::new(g);
    GPU.with(|slot| *slot.borrow_mut() = Some(g.clone()));
    Ok(g)
}

/// Open the GPU and describe it: the adapter, its limits, features and profile, as JSON. `name`
/// is what the browser calls the adapter (the lessons print it).
#[wasm_bindgen]
pub async fn adapter(name: String) -> Result<String, JsValue> {
    NAME.with(|n| *n.borrow_mut() = name);
    let g = gpu().await?;
    Ok(serde_json::json!({
        "summary": g.summary,
        "profile": g.profile.name,
        "clock": tilekit::Clock::of(&g).to_string(),
        "cpu": g.is_cpu(),
        // What a CPU adapter cannot show, said once at the top of the tour.
        "cpu_note": g.is_cpu().then_some(tilekit_course::lesson::CPU_CAVEAT),
    })
    .to_string())
}

/// Every lesson of the tour: `[{number, label}]` as JSON.
#[wasm_bindgen]
pub fn lessons() -> String {
    let all: Vec<_> = tour::lessons()
        .iter()
        .map(|l| serde_json::json!({"number": l.number, "label": l.label()}))
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// Run lesson `number` (small inputs when `quick`) and answer `{label, verified, key, html,
/// error}` as JSON (`{stopped: true, …}` when [`stop`] ended it); `html` is its section of the tour's report, the same as `tilekit tour
/// --html` writes.
#[wasm_bindgen]
pub async fn run_lesson(number: u32, quick: bool) -> Result<String, JsValue> {
    let lesson = tour::lesson(number).ok_or_else(|| err(format!("no lesson {number}")))?;
    let g = gpu().await?;
    let size = if quick { Size::Quick } else { Size::Full };
    LINES.with(|l| l.borrow_mut().clear());
    tilekit_course::lesson::on_line(Some(Box::new(|line| {
        LINES.with(|l| l.borrow_mut().push(line.to_string()))
    })));
    let ran = stoppable((lesson.run)(&g, size)).await;
    tilekit_course::lesson::on_line(None);
    let label = lesson.label();
    let Some(result) = ran else {
        return Ok(serde_json::json!({
            "label": label,
            "verified": false,
            "stopped": true,
            "key": "",
            "html": format!("<p class=\"meta\">{label}: stopped after {} lines.</p>", LINES.with(|l| l.borrow().len())),
            "error": null,
            "lost": g.is_lost(),
        })
        .to_string());
    };
    let html = tilekit_course::report::lesson_html(&label, &result);
    let (verified, not_run, key, error) = match &result {
        Ok(r) => (r.verified, r.not_run.clone(), r.key.clone(), None),
        Err(e) => (false, None, String::new(), Some(e.to_string())),
    };
    Ok(serde_json::json!({
        "label": label,
        "verified": verified,
        "not_run": not_run,
        "key": key,
        "html": html,
        "error": error,
        "lost": g.is_lost(),
    })
    .to_string())
}

/// The report's style sheet, for the lessons' sections.
#[wasm_bindgen]
pub fn report_style() -> String {
    tilekit_course::report::style().to_string()
}

/// Every exercise: `[{name, task, starter}]` as JSON.
#[wasm_bindgen]
pub fn exercises() -> String {
    let all: Vec<_> = exercise::exercises()
        .iter()
        .map(|e| serde_json::json!({"name": e.name, "task": e.task, "starter": e.starter_source}))
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// The lines of the barriers exercise `name`'s solution reaches (each removed or weakened is a
/// race the check names), as a JSON array.
#[wasm_bindgen]
pub fn barriers(name: &str) -> Result<String, JsValue> {
    let ex = exercise::exercise(name).map_err(err)?;
    Ok(serde_json::json!(exercise::reached_barriers(&ex)).to_string())
}

/// The project's own shader that solves exercise `name` (what "show the solution" shows).
#[wasm_bindgen]
pub fn solution(name: &str) -> Result<String, JsValue> {
    Ok(exercise::exercise(name)
        .map_err(err)?
        .solution_source
        .to_string())
}

/// Check the learner's `source` for exercise `name` with the same checker as `tilekit exercise
/// check`: `{passed, verdict, text, lines, pictures, lost}` as JSON (`lines`: those the verdict
/// names; `pictures`: the trace's SVGs when it found a mistake). When the learner's kernel lost the device (an
/// endless loop the browser stopped), the answer says so and the next call opens a new one.
#[wasm_bindgen]
pub async fn check(name: &str, source: &str) -> Result<String, JsValue> {
    let ex = exercise::exercise(name).map_err(err)?;
    let g = gpu().await?;
    let verdict = exercise::check_async(&g, &ex, source, &format!("{name}.wgsl")).await;
    let lost = g.is_lost();
    let kind = verdict.kind().replace('_', "-");
    // The trace's pictures (workgroup memory by epoch, bank conflicts), as SVG text.
    let pictures: Vec<String> = match &verdict {
        exercise::Verdict::Traced { report, path, .. } => {
            let invocations = report.workgroup_size.iter().product();
            let mut p: Vec<String> = report
                .pictures
                .iter()
                .filter(|p| p.raced.is_some())
                .map(|p| trace::epochs_svg(p, invocations))
                .collect();
            if !report.banks.is_empty() {
                p.push(trace::banks_svg(&report.banks, path));
            }
            p
        }
        _ => Vec::new(),
    };
    let mut text = verdict.render(&ex);
    if lost {
        text += "\nThe GPU device was lost while your kernel ran (the browser stops a kernel that runs too long, an endless loop for instance): a new device is opened for the next check.";
    }
    Ok(serde_json::json!({
        "passed": verdict.passed(),
        "verdict": kind,
        "text": text,
        "lines": verdict.lines(),
        "pictures": pictures,
        "lost": lost,
    })
    .to_string())
}

/// The panic hook: a panic's message to the browser's console (and so to the test's log)
/// instead of "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_log(&format!("tilekit panicked: {info}"));
    }));
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn web_log(s: &str);
}
