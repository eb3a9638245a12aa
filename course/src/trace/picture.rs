//! The pictures: which invocation touched which word of workgroup memory in each epoch (a race
//! outlined in red), and a bank heatmap of each workgroup-memory access. Plain SVG text, so the
//! command line writes it to a file and the page puts it in the document.

use super::memory::Space;
use super::state::World;
use super::{Banks, EpochPicture};

/// Per workgroup variable: each word's last writer this epoch and its readers.
pub(super) type Snapshot = (Vec<Vec<Option<u32>>>, Vec<Vec<u32>>);

pub(super) fn snapshot(w: &World) -> Snapshot {
    let vars: Vec<usize> = workgroup_vars(w);
    let mut writers: Vec<Vec<Option<u32>>> = vars
        .iter()
        .map(|v| vec![None; w.globals[*v].data.len()])
        .collect();
    let mut readers: Vec<Vec<u32>> = vars
        .iter()
        .map(|v| vec![0; w.globals[*v].data.len()])
        .collect();
    for (var, word, inv, how) in &w.epoch_touches {
        if let Some(i) = vars.iter().position(|v| *v == *var as usize) {
            if how.writes() {
                writers[i][*word as usize] = Some(*inv);
            } else {
                readers[i][*word as usize] += 1;
            }
        }
    }
    (writers, readers)
}

fn workgroup_vars(w: &World) -> Vec<usize> {
    (0..w.globals.len())
        .filter(|g| w.globals[*g].space == Space::Workgroup && !w.globals[*g].data.is_empty())
        .collect()
}

pub(super) fn assemble(w: &World, epochs: Vec<Snapshot>, size: [u32; 3]) -> Vec<EpochPicture> {
    let vars = workgroup_vars(w);
    vars.iter()
        .enumerate()
        .filter(|(i, _)| {
            epochs
                .iter()
                .any(|(wr, rd)| wr[*i].iter().any(|x| x.is_some()) || rd[*i].iter().any(|x| *x > 0))
        })
        .map(|(i, v)| {
            let g = &w.globals[*v];
            let words = g.data.len() as u32;
            let row = if words.is_multiple_of(size[0]) && size[0] > 1 && words / size[0] <= 64 {
                size[0]
            } else {
                32.min(words)
            };
            EpochPicture {
                variable: g.name.clone(),
                words,
                row,
                writers: epochs.iter().map(|(wr, _)| wr[i].clone()).collect(),
                readers: epochs.iter().map(|(_, rd)| rd[i].clone()).collect(),
                raced: None,
            }
        })
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One picture per epoch side by side: each cell a word, coloured by the invocation that last
/// wrote it (hue by local index), grey if only read, white if untouched; the raced word outlined.
pub fn epochs_svg(pic: &EpochPicture, invocations: u32) -> String {
    let cell = 10u32;
    let cols = pic.row.max(1);
    let rows = pic.words.div_ceil(cols).min(128);
    let panel_w = cols * cell + 20;
    let epochs = pic.writers.len() as u32;
    let width = panel_w * epochs.max(1) + 10;
    let height = rows * cell + 40;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{} by epoch: the invocation that wrote each word (colour), words only read (grey)</title>\n",
        escape(&pic.variable)
    );
    for e in 0..epochs as usize {
        let x0 = 10 + e as u32 * panel_w;
        s += &format!(
            "<text x=\"{x0}\" y=\"14\">{} epoch {e}</text>\n",
            escape(&pic.variable)
        );
        for word in 0..(rows * cols).min(pic.words) {
            let (cx, cy) = (x0 + (word % cols) * cell, 22 + (word / cols) * cell);
            let fill = match pic.writers[e][word as usize] {
                Some(inv) => format!("hsl({},70%,55%)", (inv * 360 / invocations.max(1)) % 360),
                None if pic.readers[e][word as usize] > 0 => "#bbb".into(),
                None => "#fff".into(),
            };
            let raced = pic.raced == Some(word);
            s += &format!(
                "<rect x=\"{cx}\" y=\"{cy}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"{}\"><title>word {word}: {}</title></rect>\n",
                if raced { "#d00" } else { "#eee" },
                if raced { 2 } else { 1 },
                match pic.writers[e][word as usize] {
                    Some(inv) => format!("written by invocation {inv}"),
                    None => format!("read by {} invocations", pic.readers[e][word as usize]),
                }
            );
        }
    }
    s += "</svg>\n";
    s
}

/// The bank heatmap: a row per workgroup-memory access of the source, a column per bank; darker
/// where more distinct words of that bank were asked for in one request.
pub fn banks_svg(banks: &[Banks], path: &str) -> String {
    let cell = 14u32;
    let label = 260u32;
    let width = label + 32 * cell + 80;
    let height = 30 + banks.len() as u32 * cell + 10;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>bank conflicts: words asked of each of 32 banks per request of 32 invocations</title>\n<text x=\"{label}\" y=\"14\">banks 0–31 (darker: more distinct words per request)</text>\n"
    );
    for (r, b) in banks.iter().enumerate() {
        let y = 22 + r as u32 * cell;
        s += &format!(
            "<text x=\"4\" y=\"{}\">{}:{} {}</text>\n",
            y + 11,
            escape(path),
            b.line,
            escape(&b.variable)
        );
        for (bank, n) in b.by_bank.iter().enumerate() {
            let per = *n as f64 / b.requests.max(1) as f64;
            let shade = (255.0 - (per / 32.0).min(1.0) * 255.0).round() as u32;
            s += &format!(
                "<rect x=\"{}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgb(255,{shade},{shade})\" stroke=\"#eee\"><title>bank {bank}: {per:.1} words per request</title></rect>\n",
                label + bank as u32 * cell
            );
        }
        s += &format!(
            "<text x=\"{}\" y=\"{}\">{}-way</text>\n",
            label + 32 * cell + 6,
            y + 11,
            b.worst
        );
    }
    s += "</svg>\n";
    s
}
