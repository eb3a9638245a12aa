//! The module graph has no cycle, and the drivers use the library only through its public API.
//!
//! Read from the source (no build needed): every `crate::…` and `super::…` path in code (comments
//! and strings skipped) is an edge from the module that names it to the module it names, at the
//! granularity a reader thinks in: one node per top-level module of `src/`, and one per kernel
//! family (`kernels::matmul` with its variants, CLI, bench and lesson files) apart from the
//! registry (`kernels`). Families sit above `family` (the traits they implement) and below the
//! drivers (tour, bench, report, exercise, cli) that iterate the registry.
//!
//! The drivers, and the presentation files of each family (`cli.rs`, `bench.rs`, `lesson.rs`),
//! may not call a function the library keeps `pub(crate)`: what they need, a program needs too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a Rust file without its comments and the contents of its string literals.
fn code(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && {
            let mut j = i + 1;
            while j < b.len() && b[j] == '#' {
                j += 1;
            }
            j < b.len() && b[j] == '"'
        } {
            let mut hashes = 0;
            i += 1;
            while b[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '"' && (0..hashes).all(|h| b.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('"') {
            // The char literal '"'.
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

struct Src {
    root: PathBuf,
    /// (file, its module path as segments, its node, its code)
    files: Vec<(PathBuf, Vec<String>, String, String)>,
    /// Names the crate root re-exports → the module they come from.
    reexports: BTreeMap<String, String>,
    families: BTreeSet<String>,
}

fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut segs: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if segs
        .last()
        .is_some_and(|s| s == "mod" || s == "lib" || s == "main")
    {
        segs.pop();
    }
    segs
}

impl Src {
    fn load() -> Src {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut all = Vec::new();
        files(&root, &mut all);
        all.sort();
        let families: BTreeSet<String> = std::fs::read_dir(root.join("kernels"))
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                p.is_dir()
                    .then(|| p.file_name().unwrap().to_string_lossy().into_owned())
            })
            .collect();
        let mut s = Src {
            root: root.clone(),
            files: Vec::new(),
            reexports: BTreeMap::new(),
            families,
        };
        let lib = code(&std::fs::read_to_string(root.join("lib.rs")).unwrap());
        for stmt in lib.split(';') {
            let stmt = stmt.trim();
            if let Some(rest) = stmt.strip_prefix("pub use ") {
                let (module, names) = rest.split_once("::").unwrap_or((rest, ""));
                for n in names.trim_matches(|c| c == '{' || c == '}').split(',') {
                    let n = n.trim().rsplit("::").next().unwrap().to_string();
                    if !n.is_empty() {
                        s.reexports.insert(n, module.to_string());
                    }
                }
            }
        }
        for f in all {
            let segs = module_path(&root, &f);
            let node = s.node_of(&segs);
            let text = code(&std::fs::read_to_string(&f).unwrap());
            s.files.push((f, segs, node, text));
        }
        s
    }

    /// The node a module path belongs to.
    fn node_of(&self, segs: &[String]) -> String {
        match segs {
            [] => "crate".into(),
            [k, f, ..] if k == "kernels" && self.families.contains(f) => format!("kernels::{f}"),
            [first, ..] => self
                .reexports
                .get(first)
                .cloned()
                .unwrap_or_else(|| first.clone()),
        }
    }

    /// Every module path named in `text`, resolved from the module `segs`.
    fn references(&self, segs: &[String], text: &str) -> Vec<Vec<String>> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let mut i = 0;
        while i < chars.len() {
            let at_word = i == 0 || !ident(chars[i - 1]);
            let rest: String = chars[i..(i + 7).min(chars.len())].iter().collect();
            let (mut base, skip) = if at_word && rest.starts_with("crate::") {
                (Vec::new(), 7)
            } else if at_word && rest.starts_with("super::") {
                // `super` from a file `x.rs` is its parent; from `x/mod.rs` too.
                (segs[..segs.len().saturating_sub(1)].to_vec(), 7)
            } else {
                i += 1;
                continue;
            };
            i += skip;
            // Further `super::` hops.
            while chars[i..].iter().collect::<String>().starts_with("super::") {
                base.pop();
                i += 7;
            }
            // Path segments, or a braced list of them.
            let mut seg = String::new();
            while i < chars.len() && (ident(chars[i]) || chars[i] == ':') {
                seg.push(chars[i]);
                i += 1;
            }
            let mut path = base.clone();
            path.extend(seg.split("::").filter(|s| !s.is_empty()).map(String::from));
            out.push(path);
        }
        out
    }

    fn edges(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (_, segs, node, text) in &self.files {
            if node == "crate" || node == "main" {
                continue; // the roots re-export and call everything
            }
            for path in self.references(segs, text) {
                let to = self.node_of(&path);
                if &to != node && to != "crate" {
                    g.entry(node.clone()).or_default().insert(to);
                }
            }
            g.entry(node.clone()).or_default();
        }
        g
    }
}

/// A cycle in `g`, if there is one (depth-first search).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_cycle() {
    let src = Src::load();
    let g = src.edges();
    assert!(g.len() > 15, "only {} modules found: {g:?}", g.len());
    // The reader's layers, checked as facts, not only as the absence of a cycle.
    for k in src.families.iter().map(|f| format!("kernels::{f}")) {
        for d in ["tour", "bench", "cli", "report", "exercise"] {
            assert!(!g[&k].contains(d), "{k} names the driver {d}");
        }
    }
    for low in [
        "gpu", "pool", "pipeline", "plan", "limits", "error", "family",
    ] {
        assert!(
            !g[low].iter().any(|m| m.starts_with("kernels")),
            "{low} names a kernel family: {:?}",
            g[low]
        );
    }
    if let Some(c) = cycle(&g) {
        panic!("a cycle in the module graph: {}", c.join(" → "));
    }
}

/// The files that present the library: the drivers, and each family's `cli.rs`, `bench.rs` and
/// `lesson.rs`.
fn presents(root: &Path, file: &Path) -> bool {
    let rel = file
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    ["tour.rs", "bench.rs", "report", "exercise/", "cli/"]
        .iter()
        .any(|d| rel.starts_with(d))
        || (rel.starts_with("kernels/")
            && ["cli.rs", "bench.rs", "lesson.rs"].contains(&name.as_str()))
        || (rel.starts_with("family/") && rel != "family/mod.rs")
}

/// Crates whose functions share names with tilekit's.
const EXTERNAL: [&str; 5] = ["pollster", "std", "core", "wgpu", "naga"];

/// Method names the standard library's types have too: a call of one says nothing.
const STD_METHODS: [&str; 6] = ["take", "get", "insert", "remove", "len", "new"];

#[test]
fn the_drivers_use_the_library_only_through_its_public_api() {
    let src = Src::load();
    // Items the library keeps to itself.
    let mut private: BTreeMap<String, String> = BTreeMap::new();
    for (f, _, _, text) in &src.files {
        if presents(&src.root, f) {
            continue;
        }
        for (i, _) in text.match_indices("pub(crate) ") {
            let rest = &text[i + 11..];
            let mut words = rest.split_whitespace();
            let kind = words.next().unwrap_or("");
            let kind = if kind == "const" && rest.trim_start().starts_with("const fn") {
                words.next().unwrap_or("")
            } else {
                kind
            };
            if let Some(name) = words.next() {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if kind == "fn" && !name.is_empty() && !STD_METHODS.contains(&name.as_str()) {
                    private.insert(name, f.display().to_string());
                }
            }
        }
    }
    // A name the library also declares `pub` (or that a presenting file declares itself) is
    // ambiguous by name alone: `new`, `bind`, `output`. Only names the library keeps wholly to
    // itself count.
    for (f, _, _, text) in &src.files {
        for kind in [
            "fn", "struct", "enum", "const", "static", "type", "trait", "mod",
        ] {
            for (i, _) in text.match_indices(&format!("pub {kind} ")) {
                let name: String = text[i + 5 + kind.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                private.remove(&name);
            }
            if presents(&src.root, f) {
                for (i, _) in text.match_indices(&format!("{kind} ")) {
                    let name: String = text[i + 1 + kind.len()..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    private.remove(&name);
                }
            }
        }
    }
    assert!(private.len() > 10, "{private:?}");
    let mut found = Vec::new();
    for (f, _, _, text) in &src.files {
        if !presents(&src.root, f) {
            continue;
        }
        // Names the file defines itself are its own.
        let own: BTreeSet<String> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| ["fn", "struct", "enum", "const", "static", "type", "mod"].contains(&w[0]))
            .map(|w| w[1].to_string())
            .collect();
        for (name, at) in &private {
            if own.contains(name) {
                continue;
            }
            // `.name(` is a method call; `path::name(` counts unless the path starts with
            // another crate's name (`pollster::block_on` is not tilekit's).
            let method = text.contains(&format!(".{name}("));
            let path_call = text.match_indices(&format!("::{name}(")).any(|(i, _)| {
                let before: String = text[..i]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let first = before.split("::").next().unwrap_or("");
                !EXTERNAL.contains(&first)
            });
            if method || path_call {
                found.push(format!("{} uses {name} (pub(crate) in {at})", f.display()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
