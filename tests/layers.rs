//! No import cycle between the files of any crate of the workspace: `src/` (the library),
//! `course/src/` and `cli/src/`. Between crates Cargo forbids cycles and keeps `pub(crate)` items
//! private; within a crate, this test does.
//!
//! Read from the source (no build needed): every `crate::…`, `super::…` and `self::…` path in
//! code (comments and strings skipped) is an edge from the file that names it to the file that
//! defines the module it names; a name a module re-exports from a child (`pub use child::Name`)
//! leads to that child. A file's own `mod` declarations are not edges.

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

/// `text` without its `#[cfg(test)] mod … { … }` blocks: a unit test's `super::` names the file
/// it sits in, not the file's parent, and tests are no part of the shipped graph.
fn without_test_modules(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if !trimmed.starts_with("mod ") {
            out.push_str(&rest[..at + "#[cfg(test)]".len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let Some(open) = after.find('{') else {
            break;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

struct Crate {
    /// The module path of each file (`kernels::matmul::select`; the root is empty), and its code.
    files: BTreeMap<Vec<String>, String>,
    /// (module, name) → the child module it re-exports `name` from.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
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

/// The paths a `use` tree names, braces expanded: `a::{b, c::d}` → `a::b`, `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

impl Crate {
    fn load(root: &Path) -> Crate {
        let mut all = Vec::new();
        files(root, &mut all);
        let mut c = Crate {
            files: BTreeMap::new(),
            reexports: BTreeMap::new(),
        };
        for f in all {
            let text = without_test_modules(&code(&std::fs::read_to_string(&f).unwrap()));
            c.files.insert(module_path(root, &f), text);
        }
        for (segs, text) in &c.files {
            for stmt in text.split(';') {
                let stmt = stmt.trim();
                let Some(at) = stmt.find("use ") else {
                    continue;
                };
                if !stmt[..at].trim().starts_with("pub") {
                    continue;
                }
                for path in expand(&stmt[at + 4..]) {
                    let p: Vec<&str> = path.split("::").map(str::trim).collect();
                    let (first, name) = (p[0], p[p.len() - 1]);
                    let name = name.rsplit(" as ").next().unwrap().trim();
                    let mut child = segs.clone();
                    child.push(first.to_string());
                    if c.files.contains_key(&child) {
                        c.reexports.insert((segs.clone(), name.to_string()), child);
                    }
                }
            }
        }
        c
    }

    /// The file a path from module `segs` leads to, or None for the crate root and for what is
    /// not a module of this crate.
    fn resolve(&self, segs: &[String], path: &str) -> Option<Vec<String>> {
        let mut words = path.split("::").map(str::trim).peekable();
        let mut at: Vec<String> = match *words.peek()? {
            "crate" => Vec::new(),
            "self" => segs.to_vec(),
            "super" => segs[..segs.len().checked_sub(1)?].to_vec(),
            _ => return None,
        };
        words.next();
        for w in words {
            if w == "super" {
                at.pop();
                continue;
            }
            let mut next = at.clone();
            next.push(w.to_string());
            if self.files.contains_key(&next) {
                at = next;
            } else if let Some(child) = self.reexports.get(&(at.clone(), w.to_string())) {
                at = child.clone();
                break;
            } else {
                break;
            }
        }
        (!at.is_empty()).then_some(at)
    }

    fn edges(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (segs, text) in &self.files {
            if segs.is_empty() {
                continue; // the crate root declares and re-exports everything
            }
            let node = segs.join("::");
            g.entry(node.clone()).or_default();
            for path in paths(text) {
                if let Some(to) = self.resolve(segs, &path) {
                    let to = to.join("::");
                    if to != node {
                        g.entry(node.clone()).or_default().insert(to);
                    }
                }
            }
        }
        g
    }
}

/// Every path in `text` that starts at `crate`, `self` or `super`, braces of a `use` expanded.
fn paths(text: &str) -> Vec<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at_word = i == 0 || !(ident(b[i - 1]) || b[i - 1] == ':');
        let rest: String = b[i..(i + 7).min(b.len())].iter().collect();
        if !(at_word
            && (rest.starts_with("crate::")
                || rest.starts_with("super::")
                || rest.starts_with("self::")))
        {
            i += 1;
            continue;
        }
        let start = i;
        let mut depth = 0;
        while i < b.len() {
            let c = b[i];
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    i += 1;
                    break;
                }
            } else if !(ident(c)
                || c == ':'
                || (depth > 0 && (c == ',' || c.is_whitespace() || c == '*')))
            {
                break;
            }
            i += 1;
        }
        let tree: String = b[start..i].iter().collect();
        out.extend(expand(&tree));
    }
    out
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

const CRATES: [&str; 3] = ["src", "course/src", "cli/src"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn no_crate_has_an_import_cycle_between_its_files() {
    for dir in CRATES {
        let c = Crate::load(&workspace().join(dir));
        let g = c.edges();
        assert!(g.len() > 10, "{dir}: only {} files found: {g:?}", g.len());
        // Every cycle, not only the first: each found one is cut at its last edge and the search
        // goes on, so that one run lists what there is to untangle.
        let (mut g, mut found) = (g, Vec::new());
        while let Some(c) = cycle(&g) {
            found.push(c.join(" → "));
            let (from, to) = (&c[c.len() - 2], &c[c.len() - 1]);
            g.get_mut(from).unwrap().remove(to);
        }
        assert!(
            found.is_empty(),
            "{dir}: import cycles between files:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_library_names_neither_the_course_nor_the_command_line() {
    let c = Crate::load(&workspace().join("src"));
    for (segs, text) in &c.files {
        for other in [
            "tilekit_course",
            "tilekit_cli",
            "clap::",
            "indicatif",
            "plotters",
        ] {
            assert!(
                !text.contains(other),
                "src/{}: names {other}",
                segs.join("/")
            );
        }
    }
}

/// The test finds a cycle where there is one (it could otherwise pass by finding no edges).
#[test]
fn a_cycle_between_two_files_is_found() {
    let mut c = Crate {
        files: BTreeMap::new(),
        reexports: BTreeMap::new(),
    };
    c.files.insert(vec![], "mod a; mod b; mod c;".into());
    c.files
        .insert(vec!["a".into()], "use crate::b::{X, Y};".into());
    c.files
        .insert(vec!["b".into()], "fn f() { super::c::g() }".into());
    c.files
        .insert(vec!["c".into()], "use crate::{a::Z};".into());
    let g = c.edges();
    let found = cycle(&g).expect("a → b → c → a");
    assert_eq!(found.len(), 4, "{found:?}");
}

/// A unit test's `super::` names its own file: no edge to the parent.
#[test]
fn a_unit_tests_super_is_no_edge() {
    let text = "use crate::b::X;\n#[cfg(test)]\nmod tests {\n    fn t() { super::super::c::f(); }\n}\nfn after() {}";
    let stripped = without_test_modules(text);
    assert!(
        stripped.contains("crate::b::X") && stripped.contains("fn after"),
        "{stripped}"
    );
    assert!(!stripped.contains("super::"), "{stripped}");
}
