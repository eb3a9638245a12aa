//! The self-contained HTML report of `tilekit tour --html`, and each lesson's section as the web
//! page shows it (the same function): the explanation, the shader lines that carry the lesson,
//! what it predicted beside what it measured, its charts as inline SVG. No script, no network.
//! `tilekit bench --html` and its roofline are the command line's, on these helpers.

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A value with three significant digits, without exponent for the usual ranges.
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{v:.digits$}")
}

/// One lesson chart as inline SVG: a horizontal bar per label (measured, dark), and beside it
/// the lesson's prediction where it makes one (light, outlined). Labels sit in their own column
/// left of the bars and values right of them, so nothing can overlap; the scale is linear from 0,
/// or logarithmic when the bars span more than 50×.
pub fn bar_chart(chart: &crate::lesson::Chart) -> String {
    const LABEL_W: f64 = 190.0;
    const BAR_W: f64 = 440.0;
    const VALUE_W: f64 = 170.0;
    const ROW: f64 = 26.0;
    let max = chart
        .bars
        .iter()
        .flat_map(|(_, m, p)| std::iter::once(*m).chain(*p))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let min_pos = chart
        .bars
        .iter()
        .flat_map(|(_, m, p)| std::iter::once(*m).chain(*p))
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let log = max > 0.0 && min_pos.is_finite() && max / min_pos > 50.0;
    let scale = |v: f64| -> f64 {
        if v.is_nan() || v <= 0.0 || max <= 0.0 {
            return 0.0;
        }
        if log {
            let lo = (min_pos / 2.0).log10();
            ((v.log10() - lo) / (max.log10() - lo)).clamp(0.0, 1.0) * BAR_W
        } else {
            (v / max).clamp(0.0, 1.0) * BAR_W
        }
    };
    let rows: f64 = chart
        .bars
        .iter()
        .map(|(_, _, p)| if p.is_some() { 2.0 } else { 1.0 })
        .sum();
    let width = LABEL_W + BAR_W + VALUE_W;
    let height = 34.0 + rows * ROW + 8.0;
    let mut svg = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\"><title>{t}</title><text x=\"0\" y=\"18\" class=\"ct\">{t} ({u}{l})</text>",
        t = escape(&chart.title),
        u = escape(&chart.unit),
        l = if log { ", log scale" } else { "" },
    );
    let mut y = 34.0;
    for (label, measured, predicted) in &chart.bars {
        let label = if label.chars().count() > 26 {
            format!("{}…", label.chars().take(25).collect::<String>())
        } else {
            label.clone()
        };
        svg += &format!(
            "<text x=\"{x}\" y=\"{ty}\" class=\"lb\" text-anchor=\"end\">{}</text><rect x=\"{LABEL_W}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" class=\"m\"/><text x=\"{vx:.1}\" y=\"{ty}\" class=\"v\">{} {}</text>",
            escape(&label),
            short(*measured),
            escape(&chart.unit),
            x = LABEL_W - 8.0,
            ty = y + 14.0,
            w = scale(*measured),
            vx = LABEL_W + BAR_W + 6.0,
        );
        y += ROW;
        if let Some(p) = predicted {
            svg += &format!(
                "<text x=\"{x}\" y=\"{ty}\" class=\"lb p\" text-anchor=\"end\">{}</text><rect x=\"{LABEL_W}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" class=\"pr\"/><text x=\"{vx:.1}\" y=\"{ty}\" class=\"v p\">{} {}</text>",
                escape(chart.against),
                short(*p),
                escape(&chart.unit),
                x = LABEL_W - 8.0,
                ty = y + 14.0,
                w = scale(*p),
                vx = LABEL_W + BAR_W + 6.0,
            );
            y += ROW;
        }
    }
    // In a box of its own that scrolls sideways: on a phone the chart keeps its size (its labels
    // stay readable) instead of shrinking to the screen.
    format!("<div class=\"chart-box\">{svg}</svg></div>")
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:0 16px 48px;color:#1d2430}h1{margin:24px 0 4px}h2{margin:36px 0 6px;border-bottom:1px solid #ccd;padding-bottom:4px}.meta{color:#556}table{border-collapse:collapse;margin:12px 0}td,th{padding:3px 10px;border-bottom:1px solid #e3e6ec;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}pre{background:#f4f6f9;padding:10px;overflow-x:auto;font-size:13px}.ok{color:#0a7d32;font-weight:600}.bad{color:#b3261e;font-weight:600}.key{font-weight:600}p.cpu-note{border-left:4px solid #b3261e;padding:4px 12px;background:#f4f6f9}div.chart-box{overflow-x:auto;max-width:100%}svg.chart{display:block;margin:10px 0;max-width:none;height:auto}svg text{font:12px system-ui,sans-serif;fill:#1d2430}svg .ct{font-weight:600;font-size:13px}svg .p{fill:#667}svg .m{fill:#3b6fb6}svg .pr{fill:#dfe8f5;stroke:#3b6fb6;stroke-dasharray:3 2}.roof svg{max-width:100%;height:auto}";

/// A whole HTML page: `body` under `title`, with the report's inline style.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

/// The adapter, its back end and driver, and tilekit's version, as the report's subtitle.
pub fn adapter_line(summary: &tilekit::gpu::AdapterSummary) -> String {
    format!(
        "<p class=\"meta\">{} · {} · {} {} · tilekit {}</p>",
        escape(&summary.name),
        escape(&summary.backend),
        escape(&summary.driver),
        escape(&summary.driver_info),
        env!("CARGO_PKG_VERSION")
    )
}

/// A lesson's [`status`](crate::lesson::Report::status), marked up.
pub fn status(rep: &crate::lesson::Report) -> String {
    match &rep.not_run {
        Some(why) if rep.verified => format!(
            "<span class=\"meta\" title=\"{}\">not run here</span>",
            escape(why)
        ),
        _ => verified(rep.verified).to_string(),
    }
}

/// "verified" or "WRONG", marked up.
pub fn verified(ok: bool) -> &'static str {
    if ok {
        "<span class=\"ok\">verified</span>"
    } else {
        "<span class=\"bad\">WRONG</span>"
    }
}

/// The HTML report of a tour: a summary table, then each lesson's section with its explanation,
/// the shader lines that carry it, what it predicted beside what was measured, and its charts
/// (lesson 03's are the residency pictures of PMPP 4.7 for the book's device D and this adapter).
/// One self-contained page: inline CSS and SVG, no script, no network.
pub fn tour_html(
    results: &[(String, tilekit::Result<crate::lesson::Report>)],
    gpu: &tilekit::Gpu,
) -> String {
    let mut b = format!(
        "<h1>tilekit tour</h1>{}<p>Every lesson runs its kernels on this adapter, checks them against a CPU reference and prints what the lesson predicts beside what was measured.</p>",
        adapter_line(&gpu.summary)
    );
    if gpu.is_cpu() {
        b += &format!(
            "<p class=\"cpu-note\">{}</p>",
            escape(crate::lesson::CPU_CAVEAT)
        );
    }
    b += "<table><tr><th>lesson</th><th>result</th><th>key figure</th></tr>";
    for (name, r) in results {
        let (status, key) = match r {
            Ok(rep) => (status(rep), escape(&rep.key)),
            Err(e) => (
                "<span class=\"bad\">error</span>".to_string(),
                escape(&e.to_string()),
            ),
        };
        b += &format!(
            "<tr><td><a href=\"#{}\">{}</a></td><td>{status}</td><td>{key}</td></tr>",
            anchor(name),
            escape(name)
        );
    }
    b += "</table>";
    for (name, r) in results {
        b += &lesson_html(name, r);
    }
    page("tilekit tour", &b)
}

/// One lesson's section: its explanation, the shader lines that carry it, what it predicted
/// beside what it measured, and its charts (lesson 03's are the residency pictures of PMPP 4.7).
/// The tour's HTML report is these in order; the web page shows each as its lesson finishes.
pub fn lesson_html(name: &str, result: &tilekit::Result<crate::lesson::Report>) -> String {
    let mut b = format!(
        "<section class=\"lesson\" id=\"{}\"><h2>{}</h2>",
        anchor(name),
        escape(name)
    );
    match result {
        Err(e) => b += &format!("<p class=\"bad\">{}</p>", escape(&e.to_string())),
        Ok(rep) => {
            b += &format!("<p>{}</p>", escape(&rep.explanation));
            if let Some((file, line, text)) = &rep.excerpt {
                b += &format!(
                    "<p class=\"meta\">{}, from line {line}:</p><pre><code>{}</code></pre>",
                    escape(file),
                    escape(text)
                );
            }
            let clock = rep
                .clock
                .as_ref()
                .map(|c| format!(" · timed by {c}"))
                .unwrap_or_default();
            b += &format!(
                "<pre>{}</pre><p>{} · <span class=\"key\">{}</span>{clock}</p>",
                escape(&rep.lines.join("\n")),
                status(rep),
                escape(&rep.key)
            );
            for c in &rep.charts {
                b += &bar_chart(c);
            }
        }
    }
    b + "</section>"
}

/// The report's style sheet (the web page uses it too).
pub fn style() -> &'static str {
    STYLE
}

/// `02 tiled matmul` → `lesson-02`.
fn anchor(name: &str) -> String {
    format!("lesson-{}", name.split_whitespace().next().unwrap_or("x"))
}
