//! The `.npy` header's dictionary, read and written, `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`,
//! read in one pass over at most [`super::MAX_HEADER`] bytes: NumPy writes exactly this literal
//! and reads nothing else, so a general Python-literal parser is not needed (nor safe: nested
//! brackets once froze a general one for hours).

use super::Array;

/// What a `.npy` header says: the dtype's type string, the order and the shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// NumPy's type string, e.g. `<f4`.
    pub descr: String,
    /// Fortran (column-major) order.
    pub fortran_order: bool,
    /// The shape.
    pub shape: Vec<u64>,
}

/// Parse the header's dictionary, `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`
/// (keys in any order, whitespace anywhere, a trailing comma allowed), in one pass: NumPy writes
/// exactly this literal and reads nothing else, so a general Python-literal parser is not needed.
/// The error says what was expected where.
pub fn parse_header(text: &str) -> std::result::Result<Header, String> {
    let mut p = Cursor {
        s: text.trim_end_matches(['\n', ' ', '\0']).as_bytes(),
        at: 0,
    };
    p.expect(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.space();
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.space();
        p.expect(b':')?;
        p.space();
        match key.as_str() {
            "descr" if descr.is_none() => descr = Some(p.descr()?),
            "fortran_order" if fortran.is_none() => fortran = Some(p.boolean()?),
            "shape" if shape.is_none() => shape = Some(p.shape()?),
            "descr" | "fortran_order" | "shape" => return Err(format!("key '{key}' twice")),
            other => {
                return Err(format!(
                    "unknown key '{other}' (a .npy header has 'descr', 'fortran_order' and 'shape')"
                ))
            }
        }
        p.space();
        if !p.eat(b',') {
            p.space();
            p.expect(b'}')?;
            break;
        }
    }
    p.space();
    if p.at != p.s.len() {
        return Err(format!("text after the dictionary at byte {}", p.at));
    }
    let missing = |k: &str| format!("no '{k}' key");
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> std::result::Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected '{}' at byte {}, found {}",
                c as char,
                self.at,
                self.peek()
                    .map_or("the end".to_string(), |b| format!("'{}'", b as char))
            ))
        }
    }
    /// A quoted string without escapes (the header's keys and type strings have none).
    fn string(&mut self) -> std::result::Result<String, String> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(format!("expected a quoted key at byte {}", self.at)),
        };
        self.at += 1;
        let start = self.at;
        while let Some(c) = self.peek() {
            if c == quote {
                let s = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                self.at += 1;
                return Ok(s);
            }
            if c == b'\\' || self.at - start > 64 {
                return Err(format!("unexpected string at byte {start}"));
            }
            self.at += 1;
        }
        Err(format!("unterminated string at byte {start}"))
    }
    fn descr(&mut self) -> std::result::Result<String, String> {
        if matches!(self.peek(), Some(b'[')) {
            return Err(
                "a structured dtype (a list of fields); tilekit reads plain numbers".to_string(),
            );
        }
        self.string()
    }
    fn boolean(&mut self) -> std::result::Result<bool, String> {
        for (word, v) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.at..].starts_with(word) {
                self.at += word.len();
                return Ok(v);
            }
        }
        Err(format!(
            "expected True or False for 'fortran_order' at byte {}",
            self.at
        ))
    }
    /// A tuple of non-negative integers: `()`, `(3,)`, `(2, 3)`.
    fn shape(&mut self) -> std::result::Result<Vec<u64>, String> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            self.space();
            if self.eat(b')') {
                return Ok(dims);
            }
            let start = self.at;
            let mut v: u64 = 0;
            while let Some(c @ b'0'..=b'9') = self.peek() {
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add((c - b'0') as u64))
                    .ok_or_else(|| format!("dimension at byte {start} overflows 64 bits"))?;
                self.at += 1;
            }
            if self.at == start {
                return Err(format!(
                    "expected a dimension (a non-negative integer) at byte {start}"
                ));
            }
            if dims.len() == 32 {
                return Err("more than 32 dimensions (NumPy's limit)".to_string());
            }
            dims.push(v);
            self.space();
            if !self.eat(b',') {
                self.space();
                self.expect(b')')?;
                return Ok(dims);
            }
        }
    }
}

/// The header dictionary NumPy writes for `array`, padded with spaces and a newline so that the
/// data starts at a multiple of 64 bytes (format 1.0; 2.0 when the header needs more room).
pub(super) fn header_bytes(array: &Array) -> Vec<u8> {
    let shape = match array.shape.len() {
        1 => format!("({},)", array.shape[0]),
        _ => format!(
            "({})",
            array
                .shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        array.descr()
    );
    let (version, pre) = if dict.len() + 11 <= u16::MAX as usize {
        (1u8, 10)
    } else {
        (2, 12)
    };
    let total = (pre + dict.len() + 1).div_ceil(64) * 64;
    let header_len = total - pre;
    let mut out = b"\x93NUMPY".to_vec();
    out.extend([version, 0]);
    if version == 1 {
        out.extend((header_len as u16).to_le_bytes());
    } else {
        out.extend((header_len as u32).to_le_bytes());
    }
    out.extend(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_numpy_writes_parse_and_others_say_what_is_wrong() {
        let h = parse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }     \n")
            .unwrap();
        assert_eq!(h.descr, "<f4");
        assert_eq!(h.shape, vec![3, 4]);
        assert!(!h.fortran_order);
        let h = parse_header("{\"shape\":(),\"fortran_order\":True,\"descr\":\"|u1\"}").unwrap();
        assert_eq!(h.shape, Vec::<u64>::new());
        assert!(h.fortran_order);
        assert_eq!(
            parse_header("{'descr': '<f8', 'fortran_order': False, 'shape': (7,)}")
                .unwrap()
                .shape,
            vec![7]
        );
        for (bad, says) in [
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
                "structured dtype",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, }",
                "no 'shape' key",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
                "unknown key 'x'",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }",
                "expected a dimension",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                "overflows",
            ),
            (
                "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                "twice",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } junk",
                "after the dictionary",
            ),
        ] {
            let e = parse_header(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
