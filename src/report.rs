//! Charts (SVG, drawn with plotters) and the self-contained HTML report of `tilekit tour --html`
//! and `tilekit bench --html`: no network, inline SVG and CSS.

use crate::bench::{Bound, Report as BenchReport};
use plotters::prelude::*;

/// Place `labels` (anchor pixel positions, text) so that no two overlap: each label sits right
/// of its point unless that runs past `right`, then left of it; labels are pushed down, in
/// order of height, until they clear each other and the chart's top. Returns the text's
/// top-left corners.
pub fn place_labels(
    points: &[(i32, i32, &str)],
    char_w: i32,
    line_h: i32,
    (top, right, bottom): (i32, i32, i32),
) -> Vec<(i32, i32)> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| (points[i].1, points[i].0));
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new(); // x0, y0, x1, y1
    let mut out = vec![(0, 0); points.len()];
    for i in order {
        let (px, py, text) = points[i];
        let w = char_w * text.chars().count() as i32;
        let x = if px + 8 + w <= right {
            px + 8
        } else {
            (px - 8 - w).max(0)
        };
        let mut y = (py - line_h / 2).max(top);
        loop {
            let hit = placed
                .iter()
                .find(|r| x < r.2 && x + w > r.0 && y < r.3 && y + line_h > r.1);
            match hit {
                Some(r) => y = r.3 + 1,
                None => break,
            }
        }
        y = y.min(bottom - line_h);
        placed.push((x, y, x + w, y + line_h));
        out[i] = (x, y);
    }
    out
}

/// The roofline of a bench report: operational intensity (operations per byte) against
/// achieved operations per second, the two ceilings measured in the same run, one labelled
/// point per kernel, labels placed so that none overlaps another or leaves the chart.
pub fn roofline(r: &BenchReport) -> String {
    let pts: Vec<(String, f64, f64)> = r
        .entries
        .iter()
        .filter(|e| e.bytes > 0 && e.ops > 0 && !e.name.starts_with("ceiling"))
        .map(|e| {
            (
                e.name.clone(),
                e.ops as f64 / e.bytes as f64,
                e.ops_per_second / 1e9,
            )
        })
        .collect();
    let bw = (r.bandwidth_ceiling / 1e9).max(1e-3);
    let fl = (r.compute_ceiling / 1e9).max(1e-3);
    let xmin = pts.iter().map(|p| p.1).fold(0.1f64, f64::min) / 2.0;
    let xmax = pts
        .iter()
        .map(|p| p.1)
        .fold(fl / bw * 10.0, f64::max)
        .max(1.0)
        * 2.0;
    let ymin = pts.iter().map(|p| p.2).fold(fl, f64::min).max(1e-3) / 2.0;
    let ymax = fl * 3.0;
    let mut svg = String::new();
    let (w, h) = (1000u32, 640u32);
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let chart = ChartBuilder::on(&root)
            .caption(format!("roofline: {}", r.adapter), ("sans-serif", 20))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((xmin..xmax).log_scale(), (ymin..ymax).log_scale());
        let Ok(mut chart) = chart else {
            return svg_error("the chart's ranges are empty");
        };
        let _ = chart
            .configure_mesh()
            .x_desc("operations per byte of global memory")
            .y_desc("G operations / s")
            .draw();
        let roof: Vec<(f64, f64)> = (0..=200)
            .map(|i| {
                let x = xmin * (xmax / xmin).powf(i as f64 / 200.0);
                (x, (x * bw).min(fl))
            })
            .collect();
        let _ = chart.draw_series(LineSeries::new(roof, BLACK.stroke_width(2)));
        let (px0, py0) = chart.backend_coord(&(xmin, ymax));
        let (px1, py1) = chart.backend_coord(&(xmax, ymin));
        let ceiling_label = format!(
            "ceilings measured in this run: copy {:.0} GB/s, f32 FMA {:.0} GFLOP/s (f16 on matrix units can pass it)",
            bw, fl
        );
        let anchors: Vec<(i32, i32, String)> = pts
            .iter()
            .map(|(name, x, y)| {
                let (px, py) = chart.backend_coord(&(*x, *y));
                (px, py, name.clone())
            })
            .collect();
        for (i, (_, x, y)) in pts.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let _ = chart.draw_series(std::iter::once(Circle::new((*x, *y), 5, color.filled())));
        }
        let refs: Vec<(i32, i32, &str)> = anchors
            .iter()
            .map(|(x, y, t)| (*x, *y, t.as_str()))
            .collect();
        let spots = place_labels(&refs, 7, 15, (py0 + 22, px1 - 4, py1));
        let area = chart.plotting_area().strip_coord_spec();
        let (ox, oy) = area.get_base_pixel();
        for ((px, py, text), (lx, ly)) in anchors.iter().zip(spots) {
            let style = ("sans-serif", 13).into_font().color(&BLACK);
            let _ = root.draw(&Text::new(text.clone(), (lx, ly), style));
            // A leader line when the label had to move away from its point.
            if (ly + 7 - py).abs() > 10 {
                let _ = root.draw(&PathElement::new(
                    vec![
                        (*px, *py),
                        (
                            if lx > *px {
                                lx
                            } else {
                                lx + 7 * text.len() as i32
                            },
                            ly + 7,
                        ),
                    ],
                    RGBColor(150, 150, 150),
                ));
            }
        }
        let _ = (ox, oy);
        let _ = root.draw(&Text::new(
            ceiling_label,
            (px0 + 10, py0 + 4),
            ("sans-serif", 13).into_font().color(&BLACK),
        ));
        let _ = root.present();
    }
    svg
}

fn svg_error(msg: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"40\"><text x=\"10\" y=\"25\">{msg}</text></svg>"
    )
}

/// Whether a bench entry is compute-bound (for the charts).
pub fn is_compute(b: Bound) -> bool {
    b == Bound::Compute
}

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
pub fn bar_chart(chart: &crate::tour::Chart) -> String {
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
                "<text x=\"{x}\" y=\"{ty}\" class=\"lb p\" text-anchor=\"end\">predicted</text><rect x=\"{LABEL_W}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" class=\"pr\"/><text x=\"{vx:.1}\" y=\"{ty}\" class=\"v p\">{} {}</text>",
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
    svg + "</svg>"
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:0 16px 48px;color:#1d2430}h1{margin:24px 0 4px}h2{margin:36px 0 6px;border-bottom:1px solid #ccd;padding-bottom:4px}.meta{color:#556}table{border-collapse:collapse;margin:12px 0}td,th{padding:3px 10px;border-bottom:1px solid #e3e6ec;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}pre{background:#f4f6f9;padding:10px;overflow-x:auto;font-size:13px}.ok{color:#0a7d32;font-weight:600}.bad{color:#b3261e;font-weight:600}.key{font-weight:600}svg.chart{display:block;margin:10px 0;max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#1d2430}svg .ct{font-weight:600;font-size:13px}svg .p{fill:#667}svg .m{fill:#3b6fb6}svg .pr{fill:#dfe8f5;stroke:#3b6fb6;stroke-dasharray:3 2}.roof svg{max-width:100%;height:auto}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

fn adapter_line(summary: &crate::gpu::AdapterSummary) -> String {
    format!(
        "<p class=\"meta\">{} · {} · {} {} · tilekit {}</p>",
        escape(&summary.name),
        escape(&summary.backend),
        escape(&summary.driver),
        escape(&summary.driver_info),
        env!("CARGO_PKG_VERSION")
    )
}

fn verified(ok: bool) -> &'static str {
    if ok {
        "<span class=\"ok\">verified</span>"
    } else {
        "<span class=\"bad\">WRONG</span>"
    }
}

/// The HTML report of a bench run: the ceilings, every kernel against them, what was skipped,
/// and the roofline. One self-contained page: inline CSS and SVG, no script, no network.
pub fn bench_html(r: &BenchReport, summary: &crate::gpu::AdapterSummary) -> String {
    use crate::cli::units;
    let mut b = format!(
        "<h1>tilekit bench</h1>{}<p>Ceilings measured in this run: copy {}, FMA {}. Timing: {}.</p>",
        adapter_line(summary),
        units::bandwidth(r.bandwidth_ceiling),
        units::flops(r.compute_ceiling),
        escape(&r.clock)
    );
    b += "<table><tr><th>kernel</th><th>size</th><th>median</th><th>bandwidth</th><th>rate</th><th>% of ceiling</th><th>result</th><th>plan</th></tr>";
    for e in &r.entries {
        b += &format!(
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}%</td><td>{}</td><td>{}</td></tr>",
            escape(&e.name),
            escape(&e.size),
            units::time(e.median_s),
            if e.bytes > 0 { units::bandwidth(e.bytes_per_second) } else { "–".into() },
            if is_compute(e.bound) { units::flops(e.ops_per_second) } else { units::ops(e.ops_per_second) },
            e.percent_of_ceiling,
            verified(e.verified),
            escape(&e.plan),
        );
    }
    b += "</table>";
    if !r.skipped.is_empty() {
        b += "<h2>Skipped on this adapter</h2><ul>";
        for s in &r.skipped {
            b += &format!("<li>{}</li>", escape(s));
        }
        b += "</ul>";
    }
    b += &format!(
        "<h2 id=\"roofline\">Roofline</h2><div class=\"roof\">{}</div>",
        roofline(r)
    );
    page("tilekit bench", &b)
}

/// The HTML report of a tour: a summary table, then each lesson's section with its explanation,
/// the shader lines that carry it, what it predicted beside what was measured, and its charts
/// (lesson 03's are the residency pictures of PMPP 4.7 for the book's device D and this adapter).
/// One self-contained page: inline CSS and SVG, no script, no network.
pub fn tour_html(
    results: &[(String, crate::Result<crate::tour::Report>)],
    gpu: &crate::Gpu,
) -> String {
    let mut b = format!(
        "<h1>tilekit tour</h1>{}<p>Every lesson runs its kernels on this adapter, checks them against a CPU reference and prints what the lesson predicts beside what was measured.</p>",
        adapter_line(&gpu.summary)
    );
    b += "<table><tr><th>lesson</th><th>result</th><th>key figure</th></tr>";
    for (name, r) in results {
        let (status, key) = match r {
            Ok(rep) => (verified(rep.verified).to_string(), escape(&rep.key)),
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
        b += &format!(
            "<section class=\"lesson\" id=\"{}\"><h2>{}</h2>",
            anchor(name),
            escape(name)
        );
        match r {
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
                b += &format!(
                    "<pre>{}</pre><p>{} · <span class=\"key\">{}</span></p>",
                    escape(&rep.lines.join("\n")),
                    verified(rep.verified),
                    escape(&rep.key)
                );
                for c in &rep.charts {
                    b += &bar_chart(c);
                }
            }
        }
        b += "</section>";
    }
    page("tilekit tour", &b)
}

/// `02 tiled matmul` → `lesson-02`.
fn anchor(name: &str) -> String {
    format!("lesson-{}", name.split_whitespace().next().unwrap_or("x"))
}
