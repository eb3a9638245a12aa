//! Every section of BENCHMARKS.md a comment or a document cites (the file's name, a comma, the
//! heading in quotes) is a heading there: the code cites findings by name, and renamed or pruned
//! sections had left six citations pointing at nothing.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !matches!(name, "target" | "node_modules" | "dist" | "pkg") && !name.starts_with('.')
            {
                files(&p, out);
            }
        } else if ["rs", "md", "wgsl", "sh", "py", "mjs", "toml"]
            .iter()
            .any(|x| p.extension().is_some_and(|e| e == *x))
        {
            out.push(p);
        }
    }
}

/// The text with line breaks and the comment markers that follow them folded into one space, so
/// that a citation wrapped over two comment lines reads as one.
fn folded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        let t = t
            .trim_start_matches("//!")
            .trim_start_matches("///")
            .trim_start_matches("//")
            .trim_start_matches('#')
            .trim_start();
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

#[test]
fn every_cited_benchmarks_section_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let headings: Vec<String> = std::fs::read_to_string(root.join("BENCHMARKS.md"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_lowercase())
        .collect();
    let mut all = Vec::new();
    files(root, &mut all);
    let mut missing = Vec::new();
    let mut cited = 0;
    for f in &all {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let text = folded(&text);
        for (i, _) in text.match_indices("BENCHMARKS.md, \"") {
            let rest = &text[i + "BENCHMARKS.md, \"".len()..];
            let Some(end) = rest.find('"') else { continue };
            let name = rest[..end].trim_end_matches('.').to_lowercase();
            cited += 1;
            if !headings.iter().any(|h| h.starts_with(&name)) {
                missing.push(format!(
                    "{}: \"{}\"",
                    f.strip_prefix(root).unwrap().display(),
                    &rest[..end]
                ));
            }
        }
    }
    assert!(
        cited > 20,
        "only {cited} citations found: the walk missed the sources"
    );
    assert!(
        missing.is_empty(),
        "citations of no BENCHMARKS.md heading:\n{}",
        missing.join("\n")
    );
}
