//! The bench's charts and page: the roofline (SVG, drawn with plotters) and the self-contained
//! HTML report of `tilekit bench --html`.

use crate::bench::{Bound, Report as BenchReport};
use plotters::prelude::*;
use tilekit_course::report::{adapter_line, escape, page, verified};

/// The radius of a point's marker on the roofline, in pixels.
const MARKER: i32 = 5;

/// Place `labels` (anchor pixel positions, text) so that no two overlap and none covers a
/// point's marker: each label sits right of its point unless that runs past `right`, then left
/// of it; labels are pushed down, in order of height, until they clear the markers, each other
/// and the chart's top. Returns the text's top-left corners.
pub(crate) fn place_labels(
    points: &[(i32, i32, &str)],
    char_w: i32,
    line_h: i32,
    (top, right, bottom): (i32, i32, i32),
) -> Vec<(i32, i32)> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| (points[i].1, points[i].0));
    // x0, y0, x1, y1 of what a label must not cover: every point's marker, then each label placed.
    let mut placed: Vec<(i32, i32, i32, i32)> = points
        .iter()
        .map(|&(px, py, _)| (px - MARKER, py - MARKER, px + MARKER, py + MARKER))
        .collect();
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
pub(crate) fn roofline(r: &BenchReport) -> String {
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
    // The matrix units' roof, where this run measured them (the cooperative kernel's figures
    // sit under it, above the FMA roof).
    let mx = (r.matrix_ceiling > 0.0).then(|| r.matrix_ceiling / 1e9);
    let top = mx.unwrap_or(fl).max(fl);
    let xmin = pts.iter().map(|p| p.1).fold(0.1f64, f64::min) / 2.0;
    let xmax = pts
        .iter()
        .map(|p| p.1)
        .fold(top / bw * 10.0, f64::max)
        .max(1.0)
        * 2.0;
    let ymin = pts.iter().map(|p| p.2).fold(fl, f64::min).max(1e-3) / 2.0;
    let ymax = top * 3.0;
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
        // A roof: the bandwidth slope up to a ceiling of `top` G operations/s, from where it
        // enters the chart.
        let roof = |top: f64| -> Vec<(f64, f64)> {
            (0..=200)
                .map(|i| {
                    let x = xmin * (xmax / xmin).powf(i as f64 / 200.0);
                    (x, (x * bw).min(top))
                })
                .filter(|&(_, y)| y >= ymin)
                .collect()
        };
        // The matrix units' roof first, so that the FMA roof's slope, which it shares, shows.
        if let Some(mx) = mx {
            let _ = chart.draw_series(LineSeries::new(roof(mx), BLUE.stroke_width(2)));
        }
        let _ = chart.draw_series(LineSeries::new(roof(fl), BLACK.stroke_width(2)));
        let (px0, py0) = chart.backend_coord(&(xmin, ymax));
        let (px1, py1) = chart.backend_coord(&(xmax, ymin));
        let ceiling_label = match mx {
            Some(mx) => format!(
                "ceilings measured in this run: copy {bw:.0} GB/s, f32 FMA {fl:.0} GFLOP/s (black), matrix units {mx:.0} GFLOP/s (blue)"
            ),
            None => format!(
                "ceilings measured in this run: copy {bw:.0} GB/s, f32 FMA {fl:.0} GFLOP/s (f16 on matrix units can pass it)"
            ),
        };
        let anchors: Vec<(i32, i32, String)> = pts
            .iter()
            .map(|(name, x, y)| {
                let (px, py) = chart.backend_coord(&(*x, *y));
                (px, py, name.clone())
            })
            .collect();
        for (i, (_, x, y)) in pts.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let _ = chart.draw_series(std::iter::once(Circle::new(
                (*x, *y),
                MARKER,
                color.filled(),
            )));
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

/// Whether a bench entry is compute-bound, on either kind of unit (for the charts).
pub(crate) fn is_compute(b: Bound) -> bool {
    matches!(b, Bound::Compute | Bound::Matrix)
}

/// The HTML report of a bench run: the ceilings, every kernel against them, what was skipped,
/// and the roofline. One self-contained page: inline CSS and SVG, no script, no network.
pub(crate) fn bench_html(r: &BenchReport, summary: &tilekit::gpu::AdapterSummary) -> String {
    use tilekit_course::units;
    let mut b = format!(
        "<h1>tilekit bench</h1>{}<p>Ceilings measured in this run: copy {}, FMA {}{}. Timing: {}.</p>",
        adapter_line(summary),
        units::bandwidth(r.bandwidth_ceiling),
        units::flops(r.compute_ceiling),
        escape(&r.matrix_ceiling_text()),
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

#[cfg(test)]
mod tests {
    use super::{place_labels, roofline, MARKER};
    use crate::bench::Report;

    /// Where a run measured the matrix units, the chart draws their roof above the FMA roof and
    /// names both; where it did not, the FMA roof alone, with the note that f16 can pass it.
    #[test]
    fn the_roofline_draws_the_matrix_units_roof_where_the_run_measured_it() {
        let report = |matrix: f64| {
            let entry = r#"{"name": "matmul-f16/shape/4096x4096x4096", "size": "4096³",
                "plan": "coop 128x256x16", "median_s": 0.000566, "spread_s": [0.000565, 0.00057],
                "repeats_s": [0.000566], "bytes": 100663296, "ops": 137438953472,
                "bytes_per_second": 1.78e11, "ops_per_second": 2.43e14, "bound": "matrix",
                "percent_of_ceiling": 36.8, "verified": true}"#;
            let text = format!(
                r#"{{"schema": 1, "adapter": "H100", "driver": "Vulkan", "clock": "GPU timestamps",
                "bandwidth_ceiling": 2.81e12, "compute_ceiling": 5.53e13,
                "matrix_ceiling": {matrix}, "entries": [{entry}], "skipped": []}}"#
            );
            Report::from_json(&text).unwrap()
        };
        let with = roofline(&report(6.6e14));
        assert!(with.contains("matrix units 660000 GFLOP/s"), "{with}");
        assert!(with.contains("#0000FF"), "no blue roof");
        let without = roofline(&report(0.0));
        assert!(without.contains("f16 on matrix units can pass it"));
        assert!(!without.contains("#0000FF"));
    }

    #[test]
    fn roofline_labels_never_overlap_nor_leave_the_chart() {
        // Crowded points: a cluster at the bandwidth roof, several at one spot, some at the right
        // edge, long names.
        let mut pts = Vec::new();
        let names: Vec<String> = (0..24)
            .map(|i| format!("family-{i}/a-long-kernel-name-{i}"))
            .collect();
        for (i, n) in names.iter().enumerate() {
            let (x, y) = match i % 3 {
                0 => (400 + (i as i32 % 4), 300),
                1 => (960, 80 + i as i32),
                _ => (120 + 30 * i as i32, 500 - 10 * i as i32),
            };
            pts.push((x, y, n.as_str()));
        }
        let (top, right, bottom) = (30, 980, 600);
        let spots = place_labels(&pts, 7, 15, (top, right, bottom));
        let boxes: Vec<(i32, i32, i32, i32)> = pts
            .iter()
            .zip(&spots)
            .map(|((_, _, t), (x, y))| (*x, *y, x + 7 * t.len() as i32, y + 15))
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(
                a.0 >= 0 && a.2 <= right && a.1 >= top,
                "label {i} leaves the chart: {a:?}"
            );
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                let overlap = a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
                assert!(!overlap, "labels {i} and {j} overlap: {a:?} {b:?}");
            }
            // No label covers a point's marker (the H100's page had one over its neighbour's).
            for (j, &(px, py, _)) in pts.iter().enumerate() {
                let m = (px - MARKER, py - MARKER, px + MARKER, py + MARKER);
                let covers = a.0 < m.2 && m.0 < a.2 && a.1 < m.3 && m.1 < a.3;
                assert!(!covers, "label {i} covers point {j}: {a:?} {m:?}");
            }
        }
    }
}
