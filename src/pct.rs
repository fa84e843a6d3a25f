//! Percent-encoding primitives shared by the ladder and the conversions
//! (RFC 3986 §2.1, draft-ietf-iri-3987bis §3.3 and §3.7): the value of a
//! hex digit, the decoding of one percent-encoded UTF-8 character, and the
//! copy-on-write output ([`Out`], with its per-thread spare buffer) that
//! rewrites of a reference write into.
//!
//! The bottom layer: it depends on nothing else in the crate.

use std::borrow::Cow;
use std::cell::Cell;

/// Value of an ASCII hex digit.
#[inline(always)]
pub fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decode the character whose UTF-8 percent-encoding starts at `b[i]`
/// (`%XX` or `%XX%XX…`), if the octets are strictly valid UTF-8. Returns the
/// character and the number of input bytes it spans.
pub(crate) fn decode_pct_char(b: &[u8], i: usize) -> Option<(char, usize)> {
    let byte_at = |k: usize| -> Option<u8> {
        let p = i + 3 * k;
        if b.get(p) != Some(&b'%') {
            return None;
        }
        Some(hex_val(*b.get(p + 1)?)? * 16 + hex_val(*b.get(p + 2)?)?)
    };
    let first = byte_at(0)?;
    let width = match first {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let mut buf = [0u8; 4];
    buf[0] = first;
    for (k, slot) in buf.iter_mut().enumerate().take(width).skip(1) {
        *slot = byte_at(k)?;
    }
    // from_utf8 rejects overlongs, surrogates and values above U+10FFFF.
    let s = std::str::from_utf8(&buf[..width]).ok()?;
    Some((s.chars().next()?, 3 * width))
}

thread_local! {
    /// A key's buffer given back by [`recycle`], for the next rewrite on
    /// this thread.
    static SPARE: Cell<String> = const { Cell::new(String::new()) };
}

/// Give back the buffer of an owned key once it is no longer needed (its
/// bytes copied elsewhere): the next key rewritten on this thread is
/// written into it instead of a fresh allocation.
pub fn recycle(s: String) {
    if s.capacity() <= 1 << 12 {
        SPARE.with(|c| c.set(s));
    }
}

/// An empty string with room for `need` bytes: this thread's spare one
/// ([`recycle`]) when it is large enough.
#[inline]
pub(crate) fn spare(need: usize) -> String {
    let mut s = SPARE.with(Cell::take);
    if s.capacity() < need {
        s = String::with_capacity(need);
    }
    s.clear();
    s
}

/// Builds an output that usually equals its source: it copies nothing until
/// the first change, so an already-canonical reference comes back
/// `Cow::Borrowed` with no allocation.
pub(crate) struct Out<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
    pub(crate) buf: Option<String>,
    /// Capacity of the output beyond the source's length.
    room: usize,
}

impl<'a> Out<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Out {
            src,
            pos: 0,
            buf: None,
            room: 16,
        }
    }

    /// An output that may percent-encode non-ASCII characters (3987bis
    /// §3.1), each byte into three: room for that from the start, so the
    /// string does not grow (and copy itself) on the way.
    pub(crate) fn non_ascii(mut self) -> Self {
        self.room = 2 * self.src.len() + 16;
        self
    }

    #[cold]
    pub(crate) fn materialize(&mut self) -> &mut String {
        let (src, pos, room) = (self.src, self.pos, self.room);
        self.buf.get_or_insert_with(|| {
            let mut s = spare(src.len() + room);
            s.push_str(&src[..pos]);
            s
        })
    }

    /// Replace `src[pos..end]` with `text`, and move to `end`.
    #[inline]
    pub(crate) fn emit(&mut self, end: usize, text: &str) {
        if self.buf.is_none() && {
            let here = &self.src[self.pos..end];
            // Same place in the source (the usual case): no compare needed.
            (here.as_ptr() == text.as_ptr() && here.len() == text.len()) || here == text
        } {
            self.pos = end;
            return;
        }
        self.materialize().push_str(text);
        self.pos = end;
    }

    /// The length of the output so far (a mark for [`Out::tail`]).
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.buf.as_ref().map_or(self.pos, String::len)
    }

    /// The output from `mark` on.
    #[inline]
    pub(crate) fn tail(&self, mark: usize) -> &str {
        match &self.buf {
            Some(b) => &b[mark..],
            None => &self.src[mark..self.pos],
        }
    }

    /// Replace the output from `mark` on with what `write` makes of it
    /// (`write` appends to the output without it). Copies the tail only if
    /// the output already differs from the source.
    pub(crate) fn rewrite_tail(&mut self, mark: usize, write: impl FnOnce(&str, &mut String)) {
        if let Some(buf) = &mut self.buf {
            let tail = buf.split_off(mark);
            write(&tail, buf);
            return;
        }
        // The output is `src[..pos]`: start it at `mark`.
        let (src, pos) = (self.src, self.pos);
        self.pos = mark;
        write(&src[mark..pos], self.materialize());
        self.pos = pos;
    }

    /// Copy `src[pos..end]` unchanged.
    #[inline]
    pub(crate) fn keep(&mut self, end: usize) {
        if let Some(buf) = &mut self.buf {
            buf.push_str(&self.src[self.pos..end]);
        }
        self.pos = end;
    }

    pub(crate) fn finish(mut self) -> Cow<'a, str> {
        let end = self.src.len();
        if self.pos != end {
            self.keep(end);
        }
        match self.buf {
            None => Cow::Borrowed(self.src),
            Some(s) => Cow::Owned(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_borrows_until_a_change() {
        let mut o = Out::new("abcdef");
        o.keep(2);
        o.emit(4, "cd");
        assert!(matches!(o.finish(), Cow::Borrowed("abcdef")));
        let mut o = Out::new("abcdef");
        o.keep(2);
        o.emit(4, "CD");
        assert_eq!(o.finish(), "abCDef");
        let mut o = Out::new("abcdef");
        o.emit(3, "");
        assert_eq!(o.finish(), "def");
    }

    #[test]
    fn a_recycled_buffer_is_reused_and_emptied() {
        let mut old = String::with_capacity(200);
        old.push_str("garbage from the key before");
        let at = old.as_ptr();
        recycle(old);
        let mut o = Out::new("HTTP://a/");
        o.emit(4, "http");
        let k = o.finish();
        assert_eq!(k, "http://a/");
        assert!(matches!(&k, Cow::Owned(s) if s.as_ptr() == at));
        // Too small for the next key: a fresh one, the right text.
        recycle(String::from("x"));
        let mut o = Out::new("HTTP://a/");
        o.emit(4, "http");
        assert_eq!(o.finish(), "http://a/");
        // Too big to keep: not kept.
        recycle(String::with_capacity(1 << 13));
        assert_eq!(SPARE.with(Cell::take).capacity(), 0);
    }

    #[test]
    fn pct_char_decoding_is_strict_utf8() {
        assert_eq!(decode_pct_char(b"%C3%A9", 0), Some(('é', 6)));
        assert_eq!(decode_pct_char(b"%C0%AF", 0), None);
        assert_eq!(decode_pct_char(b"%ED%A0%80", 0), None);
        assert_eq!(decode_pct_char(b"%C3", 0), None);
        assert_eq!(decode_pct_char(b"%41", 0), Some(('A', 3)));
    }

    #[test]
    fn hex_digits() {
        for b in 0..=255u8 {
            let want = (b as char).to_digit(16).map(|d| d as u8);
            assert_eq!(hex_val(b), want, "{b}");
        }
    }
}
