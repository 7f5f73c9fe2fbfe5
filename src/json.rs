//! A minimal JSON writer for `--json` output (one value per line, for
//! scripts). Only what the commands print: objects, arrays, strings,
//! integers, floats and booleans.

use std::fmt::Write;

/// A JSON value under construction.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// An empty object, to be filled with [`Json::with`].
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    /// Adds a field to an object (builder style).
    ///
    /// # Panics
    /// If `self` is not an object.
    pub fn with(mut self, key: &str, value: impl Into<Json>) -> Json {
        match &mut self {
            Json::Object(fields) => fields.push((key.to_string(), value.into())),
            _ => panic!("Json::with on a non-object"),
        }
        self
    }

    /// The compact text form.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => push_int(out, *i),
            Json::Float(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            Json::Float(_) => out.push_str("null"),
            Json::Str(s) => push_escaped(out, s),
            Json::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Object(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_escaped(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Appends `s` as a JSON string (quoted, escaped).
pub fn push_escaped(out: &mut String, s: &str) {
    out.push('"');
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends the decimal form of `x`, without the formatting machinery.
pub fn push_int(out: &mut String, x: i64) {
    // A sign and at most 19 digits.
    let mut buf = LineBuf::<20>::new();
    write_int(&mut buf, x);
    // ASCII digits: always valid UTF-8.
    out.push_str(std::str::from_utf8(buf.as_bytes()).unwrap_or_default());
}

/// Where JSON bytes are written: a growing buffer, or a [`LineBuf`].
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
    /// Appends one byte.
    fn byte(&mut self, b: u8);
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.push(b);
    }
}

/// A line of at most `N` bytes in fixed storage, reused from line to line:
/// no capacity checks while it is written.
///
/// # Panics
/// Writing more than `N` bytes panics.
pub struct LineBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> LineBuf<N> {
    pub fn new() -> Self {
        LineBuf {
            buf: [0; N],
            len: 0,
        }
    }

    /// Forgets the bytes written.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes written.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl<const N: usize> Default for LineBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Sink for LineBuf<N> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }
}

/// Appends `s` as a JSON string (quoted, escaped) to bytes.
pub fn write_escaped(out: &mut impl Sink, s: &str) {
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.byte(b'"');
        out.put(s.as_bytes());
        out.byte(b'"');
        return;
    }
    let mut t = String::new();
    push_escaped(&mut t, s);
    out.put(t.as_bytes());
}

/// Appends the decimal form of `x` to bytes, as [`push_int`].
#[inline]
pub fn write_int(out: &mut impl Sink, x: i64) {
    if x < 0 {
        out.byte(b'-');
    }
    write_uint(out, x.unsigned_abs());
}

/// Appends the decimal form of `v` to bytes; the small numbers of the
/// batch query (seed counts, values, houses) take one or two steps.
#[inline]
fn write_uint(out: &mut impl Sink, v: u64) {
    if v < 10 {
        out.byte(b'0' + v as u8);
    } else if v < 100 {
        out.put(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
    } else {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let mut v = v;
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        out.put(&buf[i..]);
    }
}

/// Appends `ms` rounded to three decimals, exactly as
/// `Json::Float((ms * 1e3).round() / 1e3).render()` writes it, without the
/// float formatting machinery for the usual values.
pub fn write_millis(out: &mut impl Sink, ms: f64) {
    let thousandths = (ms * 1e3).round();
    // Below 2^40 thousandths, distinct three-decimal numbers are further
    // apart than the doubles' spacing, so the shortest form that reads back
    // as `thousandths / 1e3` is that decimal itself.
    if thousandths.is_sign_positive() && thousandths < 1_099_511_627_776.0 {
        let n = thousandths as u64;
        write_uint(out, n / 1000);
        let frac = n % 1000;
        if frac != 0 {
            let digits = [
                b'.',
                b'0' + (frac / 100) as u8,
                b'0' + (frac / 10 % 10) as u8,
                b'0' + (frac % 10) as u8,
            ];
            let len = if frac.is_multiple_of(100) {
                2
            } else if frac.is_multiple_of(10) {
                3
            } else {
                4
            };
            out.put(&digits[..len]);
        }
        return;
    }
    out.put(Json::Float(thousandths / 1e3).render().as_bytes());
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Json {
            fn from(x: $t) -> Json { Json::Int(x as i64) }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl From<f64> for Json {
    fn from(x: f64) -> Json {
        Json::Float(x)
    }
}
impl From<bool> for Json {
    fn from(x: bool) -> Json {
        Json::Bool(x)
    }
}
impl From<&str> for Json {
    fn from(x: &str) -> Json {
        Json::Str(x.to_string())
    }
}
impl From<String> for Json {
    fn from(x: String) -> Json {
        Json::Str(x)
    }
}
impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(xs: Vec<T>) -> Json {
        Json::Array(xs.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(x: Option<T>) -> Json {
        x.map_or(Json::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_render_like_display() {
        for x in [0i64, 7, -7, 10, 255, -1000, i64::MAX, i64::MIN] {
            let mut s = String::new();
            push_int(&mut s, x);
            assert_eq!(s, x.to_string());
        }
    }

    #[test]
    fn byte_writers_match_the_string_forms() {
        for x in [
            0i64,
            7,
            -7,
            10,
            99,
            -99,
            100,
            255,
            -1000,
            i64::MAX,
            i64::MIN,
        ] {
            let mut b = Vec::new();
            write_int(&mut b, x);
            assert_eq!(b, x.to_string().as_bytes());
        }
        for s in ["", "plain", "q\"\\\n\u{1}é"] {
            let mut b = Vec::new();
            write_escaped(&mut b, s);
            assert_eq!(b, Json::Str(s.to_string()).render().as_bytes());
        }
    }

    #[test]
    fn millis_render_like_json_floats() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut values: Vec<f64> = (0..300_000).map(|i| i as f64 * 1e-4).collect();
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x >> 2) % 1e13);
            values.push((x % 1_000_000_000) as f64 / 7.0);
        }
        values.extend([
            0.0,
            -0.0,
            0.0004,
            0.0005,
            1e9,
            1.1e9,
            1e12,
            f64::NAN,
            f64::INFINITY,
        ]);
        for ms in values {
            let mut b = Vec::new();
            write_millis(&mut b, ms);
            let want = Json::Float((ms * 1e3).round() / 1e3).render();
            assert_eq!(String::from_utf8(b).unwrap(), want, "{ms}");
        }
    }

    #[test]
    fn renders_nested_values_and_escapes() {
        let j = Json::object()
            .with("a", 1)
            .with("s", "q\"\\\n\u{1}")
            .with("v", vec![1.5, -2.0])
            .with("n", Option::<i32>::None)
            .with("b", true);
        assert_eq!(
            j.render(),
            r#"{"a":1,"s":"q\"\\\n\u0001","v":[1.5,-2],"n":null,"b":true}"#
        );
    }
}
