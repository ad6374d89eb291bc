//! The `.npy` header: NumPy's Python-dict literal, parsed strictly and written byte for byte
//! as `np.save` writes it.
//!
//! A header is `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with
//! spaces and a newline. The parser accepts the subset of Python literals NumPy writes
//! (strings, `True`/`False`, tuples of sizes, in any key order and with any whitespace) and
//! refuses anything else with a message naming the field and what was found: a missing,
//! repeated or unknown key, a value of the wrong type, `(3)` for `(3,)`, a size that does not
//! fit `usize`, a `descr` that names no NumPy dtype (`''`, `'<x9'`). A well-formed `descr` of
//! a type stridex lacks (complex, strings, structured) is reported apart, as unsupported
//! rather than malformed.

use crate::element::DType;

pub(super) const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The descr NumPy writes for a little-endian `dtype` (`bf16` has none; it is written as f32).
fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "<f2",
        DType::BF16 | DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
    }
}

/// Magic, version, header length and header, exactly as NumPy's `np.save` writes them
/// (`numpy/lib/format.py`: keys sorted, Python reprs, room for 21 digits of the growth axis,
/// spaces up to a multiple of 64 bytes, a newline).
pub(super) fn header_bytes(dtype: DType, fortran: bool, shape: &[usize]) -> Vec<u8> {
    let tuple = match shape {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", parts.join(", "))
        }
    };
    let order = if fortran { "True" } else { "False" };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': {order}, 'shape': {tuple}, }}",
        descr(dtype)
    );
    let growth = if fortran { shape.last() } else { shape.first() };
    if let Some(n) = growth {
        let digits = n.to_string().len();
        header.extend(std::iter::repeat_n(' ', 21usize.saturating_sub(digits)));
    }
    let hlen = header.len() + 1;
    // NumPy pads to the next multiple of 64 (a full 64 when already aligned). Version 1.0
    // stores the header length in 2 bytes; 2.0, for longer headers, in 4.
    let padded = |len_bytes: usize| hlen + 64 - (6 + 2 + len_bytes + hlen) % 64;
    let (version, len_bytes) = if padded(2) <= 0xFFFF {
        (1u8, 2)
    } else {
        (2u8, 4)
    };
    let total = padded(len_bytes);
    let pad = total - hlen;
    let mut out = Vec::with_capacity(6 + 2 + len_bytes + total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(total as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(total as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out
}

/// An element type as a `.npy` file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Descr {
    pub(super) dtype: DType,
    /// Data is big-endian (`>`), or native on a big-endian machine (`=`).
    pub(super) big_endian: bool,
}

/// The parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) descr: Descr,
    pub(super) fortran_order: bool,
    pub(super) shape: Vec<usize>,
}

/// Why a header was refused: malformed, or a valid descr of a type stridex does not have.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum HeaderError {
    /// Not a valid header; the message says why.
    Malformed(String),
    /// A valid descr (quoted) of an element type stridex does not have.
    Unsupported(String),
}

/// A value in the header dict.
#[derive(Debug, PartialEq, Eq)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
    /// A list (a structured dtype's descr), kept as text for the error message.
    List(String),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a bool",
            Value::Tuple(_) => "a tuple",
            Value::List(_) => "a list",
        }
    }
}

/// The keys of a `.npy` header, each given exactly once.
const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];

/// The message for a key that is not one of [`KEYS`].
fn unknown_key(key: &str) -> String {
    format!(
        "the header has a key '{key}'; a .npy header has exactly 'descr', 'fortran_order' and \
         'shape'"
    )
}

/// Parses the header text (after the length field); see the [module docs](self).
pub(super) fn parse_header(text: &str) -> std::result::Result<Header, HeaderError> {
    let entries = Parser::new(text).dict().map_err(HeaderError::Malformed)?;
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, value) in entries {
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran_order,
            "shape" => &mut shape,
            other => return Err(HeaderError::Malformed(unknown_key(other))),
        };
        if slot.replace(value).is_some() {
            return Err(HeaderError::Malformed(format!(
                "the header gives '{key}' twice"
            )));
        }
    }
    let missing = |key: &str| {
        HeaderError::Malformed(format!(
            "the header has no '{key}'; a .npy header has 'descr', 'fortran_order' and 'shape'"
        ))
    };
    let wrong = |key: &str, want: &str, got: &Value| {
        HeaderError::Malformed(format!(
            "the header's '{key}' is {}, not {want}",
            got.kind()
        ))
    };
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Value::Str(s) => parse_descr(&s)?,
        Value::List(l) => return Err(HeaderError::Unsupported(format!("structured {l}"))),
        v => return Err(wrong("descr", "a string such as '<f4'", &v)),
    };
    let fortran_order = match fortran_order.ok_or_else(|| missing("fortran_order"))? {
        Value::Bool(b) => b,
        v => return Err(wrong("fortran_order", "True or False", &v)),
    };
    let shape = match shape.ok_or_else(|| missing("shape"))? {
        Value::Tuple(t) => t,
        v => return Err(wrong("shape", "a tuple of sizes such as (2, 3)", &v)),
    };
    Ok(Header {
        descr,
        fortran_order,
        shape,
    })
}

/// `'<f4'` and friends: a byte order (`<`, `>`, `|` for one byte, `=` for native), a kind and a
/// size in bytes. A string that is no NumPy dtype at all (`''`, `'<x9'`, `'f4 '`) is a
/// malformed header; a NumPy dtype stridex lacks (`'<c8'`, `'<U3'`) is unsupported.
fn parse_descr(s: &str) -> std::result::Result<Descr, HeaderError> {
    let mut chars = s.chars();
    let order = chars.next();
    let rest = chars.as_str();
    if !matches!(order, Some('<' | '>' | '|' | '=')) || !is_numpy_type(rest) {
        return Err(HeaderError::Malformed(format!(
            "the header's 'descr' is '{s}', which is not a NumPy dtype; 'descr' is a byte \
             order ('<', '>', '|' or '='), a kind letter and a size in bytes, such as '<f4' \
             (the file may be damaged, or not written by NumPy)"
        )));
    }
    let dtype = match rest {
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        // NumPy's bool: one byte, 0 or 1; stridex's masks are u8.
        "b1" => DType::U8,
        _ => return Err(HeaderError::Unsupported(format!("'{s}'"))),
    };
    let big_endian = match order {
        Some('>') => true,
        Some('=') => cfg!(target_endian = "big"),
        Some('|') if dtype.size() > 1 => {
            return Err(HeaderError::Malformed(format!(
                "descr '{s}' has no byte order ('|') but {}-byte elements need '<' or '>'",
                dtype.size()
            )));
        }
        _ => false,
    };
    Ok(Descr { dtype, big_endian })
}

/// Whether `t` (a descr after its byte order) is a type NumPy's `dtype.str` can name: a kind
/// letter and a size in bytes NumPy has for that kind (`f16` is `float128`, `c8` `complex64`),
/// any size for strings and raw bytes (`U3`, `S0`, `V2`), `O` for objects, `M8` / `m8` with an
/// optional unit for datetimes.
fn is_numpy_type(t: &str) -> bool {
    let Some(kind) = t.chars().next() else {
        return false;
    };
    let rest = &t[kind.len_utf8()..];
    let (size, unit) = match rest.find('[') {
        Some(i) => (&rest[..i], Some(&rest[i..])),
        None => (rest, None),
    };
    let digits = !size.is_empty() && size.bytes().all(|b| b.is_ascii_digit());
    let unit_ok = |u: &str| {
        u.len() > 2
            && u.ends_with(']')
            && u[1..u.len() - 1].bytes().all(|b| b.is_ascii_alphanumeric())
    };
    match (kind, unit) {
        ('M' | 'm', unit) => size == "8" && unit.is_none_or(unit_ok),
        (_, Some(_)) => false,
        ('b', _) => size == "1",
        ('i' | 'u', _) => matches!(size, "1" | "2" | "4" | "8"),
        ('f', _) => matches!(size, "2" | "4" | "8" | "12" | "16"),
        ('c', _) => matches!(size, "8" | "16" | "24" | "32"),
        ('O', _) => size.is_empty() || size == "8" || size == "4",
        ('S' | 'U' | 'V' | 'a', _) => digits,
        _ => false,
    }
}

/// A parser for the subset of Python literals a header uses: a dict of string keys to
/// strings, `True` / `False`, tuples of non-negative integers (and lists, kept as text).
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

type PResult<T> = std::result::Result<T, String>;

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            s: text.as_bytes(),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the header".to_string(),
            Some(c) => format!("'{}' at byte {}", c.escape_ascii(), self.pos),
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> PResult<()> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("the header needs {what}, found {}", self.found()))
        }
    }

    /// `{key: value, ...}` followed by nothing but whitespace.
    fn dict(&mut self) -> PResult<Vec<(String, Value)>> {
        self.expect(b'{', "a dict starting with '{'")?;
        let mut entries = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.string()?;
            if !KEYS.contains(&key.as_str()) {
                // Said before its value is parsed: that value may be anything.
                return Err(unknown_key(&key));
            }
            self.expect(b':', &format!("':' after the key '{key}'"))?;
            let value = self
                .value()
                .map_err(|e| format!("the value of '{key}': {e}"))?;
            entries.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => {
                    return Err(format!(
                        "the header needs ',' or '}}' after a value, found {}",
                        self.found()
                    ));
                }
            }
        }
        self.skip_ws();
        if self.pos != self.s.len() {
            return Err(format!(
                "the header continues after its dict, found {}",
                self.found()
            ));
        }
        Ok(entries)
    }

    fn value(&mut self) -> PResult<Value> {
        self.skip_ws();
        match self.peek() {
            Some(b'\'' | b'"') => self.string().map(Value::Str),
            Some(b'(') => self.tuple().map(Value::Tuple),
            Some(b'[') => self.list().map(Value::List),
            Some(b'T' | b'F') => {
                for (word, b) in [("True", true), ("False", false)] {
                    if self.s[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return Ok(Value::Bool(b));
                    }
                }
                Err(format!(
                    "the header needs True or False, found {}",
                    self.found()
                ))
            }
            _ => Err(format!(
                "the header needs a value (a string, True/False or a tuple), found {}",
                self.found()
            )),
        }
    }

    /// A quoted string without escapes.
    fn string(&mut self) -> PResult<String> {
        self.skip_ws();
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => {
                return Err(format!(
                    "the header needs a quoted key, found {}",
                    self.found()
                ));
            }
        };
        let start = self.pos + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or_else(|| format!("a string at byte {} is never closed", self.pos))?;
        let body = &self.s[start..start + len];
        if body.contains(&b'\\') {
            return Err(format!(
                "a string at byte {} has an escape; header strings are plain",
                self.pos
            ));
        }
        self.pos = start + len + 1;
        // The input is a &str and the quotes are ASCII, so the body is UTF-8.
        Ok(String::from_utf8_lossy(body).into_owned())
    }

    /// `()`, `(3,)`, `(2, 3)`, `(2, 3,)`: sizes, with Python's rule that a one-element tuple
    /// needs its comma (`(3)` is the integer 3).
    fn tuple(&mut self) -> PResult<Vec<usize>> {
        let open = self.pos;
        self.expect(b'(', "'('")?;
        let mut sizes = Vec::new();
        let mut trailing_comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(b')') {
                self.pos += 1;
                break;
            }
            sizes.push(self.size()?);
            self.skip_ws();
            trailing_comma = false;
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    trailing_comma = true;
                }
                Some(b')') => {}
                _ => {
                    return Err(format!(
                        "the shape needs ',' or ')' after a size, found {}",
                        self.found()
                    ));
                }
            }
        }
        if sizes.len() == 1 && !trailing_comma {
            return Err(format!(
                "the shape at byte {open} is ({}), an integer, not a tuple; a 1-dim shape is \
                 written ({},)",
                sizes[0], sizes[0]
            ));
        }
        Ok(sizes)
    }

    /// A non-negative decimal integer (Python 2's `L` suffix accepted).
    fn size(&mut self) -> PResult<usize> {
        let start = self.pos;
        let mut n: usize = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(usize::from(c - b'0')))
                .ok_or_else(|| format!("the size at byte {start} does not fit in usize"))?;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(format!(
                "the shape needs a non-negative integer size, found {}",
                self.found()
            ));
        }
        if self.peek() == Some(b'L') {
            self.pos += 1;
        }
        Ok(n)
    }

    /// A bracketed list, returned as its text (only structured dtypes use one).
    fn list(&mut self) -> PResult<String> {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned());
                    }
                }
                _ => {}
            }
        }
        Err(format!("a list at byte {start} is never closed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> std::result::Result<Header, HeaderError> {
        parse_header(text)
    }

    #[test]
    fn numpy_headers_parse() {
        let h =
            header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }    \n").unwrap();
        assert_eq!(h.descr.dtype, DType::F32);
        assert!(!h.descr.big_endian && !h.fortran_order);
        assert_eq!(h.shape, vec![2, 3]);
        let h = header("{\"shape\":(7,),\"fortran_order\":True,\"descr\":\">u2\"}").unwrap();
        assert_eq!(
            (h.descr.dtype, h.descr.big_endian, h.fortran_order),
            (DType::U16, true, true)
        );
        assert_eq!(h.shape, vec![7]);
        assert_eq!(
            header("{'descr': '|b1', 'fortran_order': False, 'shape': ()}")
                .unwrap()
                .shape,
            Vec::<usize>::new()
        );
        assert_eq!(
            header("{'descr':'<i8','fortran_order':False,'shape':(3L, 4L)}")
                .unwrap()
                .shape,
            vec![3, 4]
        );
    }

    #[test]
    fn malformed_headers_name_the_field() {
        let cases = [
            ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
                "written (3,)",
            ),
            (
                "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
                "the value of 'fortran_order': the header needs a value",
            ),
            (
                "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
                "the value of 'fortran_order'",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
                "key 'extra'",
            ),
            (
                "{'descr': '<f4', 'version': 1.0, 'fortran_order': False, 'shape': (2,)}",
                "key 'version'",
            ),
            (
                "{'descr': '<f4', 'fortran_order': 'no', 'shape': ()}",
                "'fortran_order' is a string",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}",
                "non-negative",
            ),
            (
                "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
                "twice",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': True}",
                "key 'x'",
            ),
            (
                "{'descr': '|f4', 'fortran_order': False, 'shape': ()}",
                "no byte order",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
                "continues",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
                "fit",
            ),
            (
                "{'descr': '<x9', 'fortran_order': False, 'shape': ()}",
                "'descr' is '<x9', which is not a NumPy dtype",
            ),
            (
                "{'descr': '', 'fortran_order': False, 'shape': ()}",
                "'descr' is '', which is not a NumPy dtype",
            ),
            (
                "{'descr': 'f4', 'fortran_order': False, 'shape': ()}",
                "'descr' is 'f4', which is not a NumPy dtype",
            ),
            (
                "{'descr': '<M8[n s]', 'fortran_order': False, 'shape': ()}",
                "not a NumPy dtype",
            ),
            (
                "{'descr': '|b2', 'fortran_order': False, 'shape': ()}",
                "not a NumPy dtype",
            ),
            ("{'descr': '<f4", "never closed"),
            ("", "starting with '{'"),
        ];
        for (text, want) in cases {
            match header(text) {
                Err(HeaderError::Malformed(m)) => assert!(m.contains(want), "{text}: {m}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn foreign_element_types_are_unsupported_not_malformed() {
        for d in [
            "<c8", "<U3", "|O", "<M8[ns]", "<m8", "<f16", "|V2", ">c16", "|S0",
        ] {
            let text = format!("{{'descr': '{d}', 'fortran_order': False, 'shape': ()}}");
            assert_eq!(
                header(&text),
                Err(HeaderError::Unsupported(format!("'{d}'")))
            );
        }
        let structured = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}";
        assert!(matches!(
            header(structured),
            Err(HeaderError::Unsupported(_))
        ));
    }

    #[test]
    fn written_headers_match_numpy_byte_for_byte() {
        // np.save of np.arange(6, dtype='<f4').reshape(2, 3): 118 header bytes after the
        // 10-byte preamble, the dict, then spaces and a newline.
        let h = header_bytes(DType::F32, false, &[2, 3]);
        assert_eq!(&h[..10], b"\x93NUMPY\x01\x00v\x00");
        assert_eq!(h.len(), 128);
        let dict = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        assert_eq!(&h[10..10 + dict.len()], dict);
        assert!(h[10 + dict.len()..127].iter().all(|&c| c == b' '));
        assert_eq!(h[127], b'\n');
        // Round trip of the parser on everything the writer writes.
        for (dt, f, s) in [
            (DType::U8, true, vec![]),
            (DType::I64, true, vec![3, 1 << 40]),
        ] {
            let h = header_bytes(dt, f, &s);
            let text = std::str::from_utf8(&h[10..]).unwrap();
            let p = parse_header(text).unwrap();
            assert_eq!((p.descr.dtype, p.fortran_order, p.shape), (dt, f, s));
        }
    }
}
