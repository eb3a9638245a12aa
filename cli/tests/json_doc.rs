//! `docs/json.md` is the contract of every `--json` output: for each command it documents, the
//! command is run here and the set of key paths it prints (objects' keys, arrays' elements
//! merged) must equal the set in the document's example. `TILEKIT_BLESS=1 cargo test --test
//! json_doc` rewrites the examples from what the commands print (arrays cut to one element).

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

const DOC: &str = "docs/json.md";

fn paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let p = format!("{prefix}.{k}");
                out.insert(p.clone());
                paths(v, &p, out);
            }
        }
        Value::Array(a) => {
            for v in a {
                paths(v, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn cut(v: &mut Value) {
    match v {
        Value::Object(m) => m.values_mut().for_each(cut),
        Value::Array(a) => {
            // Keep the element with the most keys (the first lesson may have no charts).
            let count = |v: &Value| {
                let mut p = BTreeSet::new();
                paths(v, "", &mut p);
                p.len()
            };
            if let Some(best) = (0..a.len()).max_by_key(|&i| (count(&a[i]), usize::MAX - i)) {
                a.swap(0, best);
            }
            a.truncate(1);
            a.iter_mut().for_each(cut);
        }
        _ => {}
    }
}

/// Run one documented command from the repository's root (so that its paths read as a reader
/// would type them); `FILE` in it is a temporary path whose contents are the JSON.
fn run(args: &str) -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    // A scratch folder of its own, removed on return.
    let scratch = tempfile::Builder::new()
        .prefix("tilekit-json-doc-")
        .tempdir()
        .unwrap();
    let file = scratch.path().join("out.json");
    let argv: Vec<String> = args
        .split_whitespace()
        .skip(1) // "tilekit"
        .map(|a| {
            if a == "FILE" {
                file.to_str().unwrap().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    // A cache directory of its own: `tune` writes there, and no user's cache changes a choice.
    let cache = scratch.path().join("cache");
    let out = Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args(&argv)
        .env("TILEKIT_CACHE_DIR", &cache)
        .current_dir(root)
        .output()
        .unwrap();
    let text = if args.contains("FILE") {
        std::fs::read_to_string(&file).unwrap()
    } else {
        String::from_utf8(out.stdout).unwrap()
    };
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("`{args}` printed no clean JSON ({e}):\n{text}"))
}

#[test]
fn every_documented_json_output_has_the_documented_shape() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let doc = std::fs::read_to_string(root.join(DOC)).unwrap();
    let bless = std::env::var_os("TILEKIT_BLESS").is_some();
    let mut blessed = String::new();
    let mut lines = doc.lines().peekable();
    let mut command: Option<String> = None;
    let mut checked = 0;
    while let Some(line) = lines.next() {
        if let Some(c) = line.strip_prefix("## `").and_then(|l| l.strip_suffix('`')) {
            command = Some(c.to_string());
        }
        if line == "```json" {
            let mut example = String::new();
            for l in lines.by_ref() {
                if l == "```" {
                    break;
                }
                example += l;
                example.push('\n');
            }
            let cmd = command
                .take()
                .expect("a ```json block under a ## `tilekit …` heading");
            let actual = run(&cmd);
            assert_eq!(
                actual.get("schema").and_then(Value::as_u64),
                Some(tilekit_cli::SCHEMA as u64),
                "`{cmd}` carries no \"schema\": {}",
                tilekit_cli::SCHEMA
            );
            let mut got = BTreeSet::new();
            paths(&actual, "", &mut got);
            blessed += "```json\n";
            if bless {
                let mut v = actual.clone();
                cut(&mut v);
                blessed += &serde_json::to_string_pretty(&v).unwrap();
                blessed.push('\n');
            } else {
                let documented: Value = serde_json::from_str(&example)
                    .unwrap_or_else(|e| panic!("{DOC}, `{cmd}`: the example is not JSON: {e}"));
                let mut want = BTreeSet::new();
                paths(&documented, "", &mut want);
                let missing: Vec<_> = want.difference(&got).collect();
                let extra: Vec<_> = got.difference(&want).collect();
                assert!(
                    missing.is_empty() && extra.is_empty(),
                    "`{cmd}` does not match {DOC}:\n  documented, not printed: {missing:?}\n  printed, not documented: {extra:?}\n(TILEKIT_BLESS=1 rewrites the examples)"
                );
                blessed += &example;
            }
            blessed += "```\n";
            checked += 1;
            continue;
        }
        blessed += line;
        blessed.push('\n');
    }
    if bless {
        std::fs::write(root.join(DOC), blessed).unwrap();
    }
    assert!(checked >= 12, "only {checked} outputs documented");
}
