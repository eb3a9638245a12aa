//! Every loop of a learner's shader bounded: a kernel that never ends must not freeze the page
//! (in a browser nothing can interrupt the GPU, and a CPU adapter such as SwiftShader has no
//! watchdog) nor hold a native check until the GPU timeout. Each loop gets its own step counter,
//! declared just before it, and its body starts with a check of it (`tilekit_capped`, which
//! breaks out past the cap). The cap, the flag, `tilekit_capped`, the text spliced into the
//! learner's code and the WGSL words this rewriter looks for (loops, directives, entry points) are
//! `shaders/exercise/loop_cap.wgsl`, put after the learner's directives. The flag,
//! `@group(1) @binding(0)`, which every compute entry point touches (so that every pipeline binds
//! it) and [`tilekit::Gpu::substitute`] binds and reads, says that a loop was
//! stopped, whatever the kernel's answer.
//!
//! The counter is a function-scope variable set to 0 where the loop starts and changed by a
//! constant in every iteration, so it is as uniform as its loop: a loop that holds a barrier
//! (uniform, or the checker has refused it already) still leaves uniformly, and WebGPU's
//! compiler accepts the barrier (one counter for a whole function would not do: a loop over an
//! invocation's own elements, `for (var e = me; ...)`, would make it non-uniform for the loops
//! after it). The cap is per loop, so nested endless loops multiply it; a single one, the usual
//! mistake (`s >= 0u` on a u32), stops at the cap. The text is rewritten, not naga's IR, so that
//! the browser compiles the learner's own code.

/// The cap, the flag and the check of a step, put after the learner's directives; its `splice`
/// lines are the text spliced into the learner's code ([`splice`]).
const LOOP_CAP: &str = include_str!("../../shaders/exercise/loop_cap.wgsl");

/// The text of `loop_cap.wgsl`'s line `// {kind} {name}: TEXT`.
fn line(kind: &str, name: &str) -> &'static str {
    let tag = format!("// {kind} {name}: ");
    LOOP_CAP
        .lines()
        .find_map(|l| l.strip_prefix(&tag))
        .unwrap_or_else(|| panic!("loop_cap.wgsl has no `{tag}` line"))
}

/// `loop_cap.wgsl`'s line `// splice {name}: TEXT`, TEXT with `{n}` replaced by `n`.
fn splice(name: &str, n: u32) -> String {
    line("splice", name).replace("{n}", &n.to_string())
}

/// `loop_cap.wgsl`'s line `// words {name}: ...`: the WGSL words the rewriter looks for.
fn words(name: &str) -> Vec<&'static str> {
    line("words", name).split_whitespace().collect()
}

/// `source` with every loop counting its steps against `cap` (each loop each time it starts).
/// The caller validates the result.
pub fn bound_loops(source: &str, cap: u32) -> String {
    let code = mask(source);
    let b = code.as_bytes();
    let loops = words("loops");
    // (byte offset, text to insert there)
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(kw) = word_at(b, i, &loops) {
            if let Some(body) = open_brace(b, i + kw.len()) {
                let n = (inserts.len() / 2) as u32;
                inserts.push((i, format!("{} ", splice("counter", n))));
                inserts.push((body + 1, format!(" {}", splice("check", n))));
            }
            i += kw.len();
        } else {
            i += 1;
        }
    }
    // Every compute entry point (its attribute, then the keyword that starts the function)
    // touches the flag, so that its pipeline's layout has group 1.
    let (attribute, function) = match words("entry")[..] {
        [a, f] => (a, f),
        _ => panic!("loop_cap.wgsl's `words entry` line names an attribute and a keyword"),
    };
    let mut i = 0;
    while let Some(at) = code[i..].find(attribute).map(|a| a + i) {
        let fn_at = (at..b.len()).find(|&j| word_at(b, j, &[function]).is_some());
        if let Some(body) = fn_at.and_then(|f| open_brace(b, f)) {
            inserts.push((body + 1, format!(" {}", splice("entry", 0))));
        }
        i = at + attribute.len();
    }
    // The cap goes after the directives (`enable f16;` must come first).
    let directives = words("directives");
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let t = line.trim_start();
        if word_at(t.as_bytes(), 0, &directives).is_some() {
            at += line.len();
            continue;
        }
        if t.is_empty() || t.starts_with("//") {
            at += line.len();
            continue;
        }
        break;
    }
    inserts.push((at, with_cap(cap)));
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(source.len() + 64 * inserts.len());
    let mut last = 0;
    for (at, text) in inserts {
        out.push_str(&source[last..at]);
        out.push_str(&text);
        last = at;
    }
    out.push_str(&source[last..]);
    out
}

/// [`LOOP_CAP`] with the caller's cap declared in place of its default.
fn with_cap(cap: u32) -> String {
    let default = splice("cap", 0);
    assert!(
        LOOP_CAP.contains(&default),
        "loop_cap.wgsl must declare `{default}`"
    );
    LOOP_CAP.replace(&default, &splice("cap", cap))
}

/// The source with comments blanked (same length, newlines kept), so that a keyword in a comment
/// is not taken for code.
fn mask(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            // Block comments nest in WGSL.
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] != b'\n' {
                        out[i] = b' ';
                    }
                    i += 1;
                }
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced with ASCII spaces inside comments; multi-byte characters in
    // comments became spaces byte by byte, so the result is valid UTF-8 of the same length.
    String::from_utf8(out).unwrap_or_else(|_| source.to_string())
}

fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The one of `words` that starts at `i` as a whole word.
fn word_at(b: &[u8], i: usize, words: &[&'static str]) -> Option<&'static str> {
    if i > 0 && ident(b[i - 1]) {
        return None;
    }
    words.iter().copied().find(|w| {
        b[i..].starts_with(w.as_bytes()) && !b.get(i + w.len()).copied().is_some_and(ident)
    })
}

/// The first `{` from `from` outside parentheses and brackets.
fn open_brace(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth <= 0 => return Some(j),
            b';' if depth <= 0 => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::bound_loops;

    fn valid(src: &str) {
        let m = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&m)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
    }

    #[test]
    fn every_loop_counts_and_the_result_is_valid_wgsl() {
        let src = include_str!("../../shaders/checks/bound_loops.wgsl");
        let out = bound_loops(src, 1000);
        valid(&out);
        // Three loops, each with its counter and its check; and the comment's words are not
        // loops.
        for n in 0..3 {
            assert_eq!(
                out.matches(&super::splice("counter", n)).count(),
                1,
                "{out}"
            );
            assert_eq!(out.matches(&super::splice("check", n)).count(), 1, "{out}");
        }
        assert!(!out.contains(&super::splice("counter", 3)), "{out}");
        // The cap, the flag and the check come after the directive and the leading comment,
        // which stays as it was.
        let head: String = src.lines().take(2).map(|l| format!("{l}\n")).collect();
        let first_word = |w: &str| head.split_whitespace().next() == Some(w);
        assert!(
            super::words("directives").into_iter().any(first_word)
                && super::words("loops").iter().any(|w| head.contains(w)),
            "{head}"
        );
        assert!(out.starts_with(&head), "{out}");
        assert!(
            out[head.len()..].starts_with(&super::with_cap(1000)),
            "{out}"
        );
        assert!(!super::with_cap(1000).contains(&super::splice("cap", 0)));
        // A function without a loop is left alone.
        let no_loops = src.lines().find(|l| l.contains("no_loops(")).unwrap();
        assert!(out.contains(no_loops), "{out}");
        // Every entry point touches the flag (counted past the spliced file, whose `splice`
        // lines hold the same text).
        let code = &out[head.len() + super::with_cap(1000).len()..];
        assert_eq!(code.matches(&super::splice("entry", 0)).count(), 1, "{out}");
    }

    #[test]
    fn every_project_shader_stays_valid_and_uniform_when_bounded() {
        for m in tilekit::kernels::modules() {
            let src = bound_loops(&m.shader.source, 1 << 20);
            valid(&src);
            let module = naga::front::wgsl::parse_str(&src).unwrap();
            let found = super::super::divergent_barriers(&module, &src);
            assert!(found.is_empty(), "{}: {found:?}", m.shader.name);
        }
    }
}
