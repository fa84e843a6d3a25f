//! Input bytes → UTF-8 text: decompression, charset decoding (3987bis §3.1),
//! and the legacy query charset of §3.5.
//!
//! * [`detect_compression`] / [`decompress`]: gzip (multi-member) and zstd
//!   (multi-frame) inputs, recognised by their magic bytes.
//! * [`sniff_bom`] / [`transcode_utf16_to_utf8`]: UTF-16 files must be
//!   transcoded as a whole, because a UTF-16 file cannot be cut into lines on
//!   0x0A bytes.
//! * [`decode_line`]: one line in a legacy charset ([`Charset`], any WHATWG
//!   label) → UTF-8 and then NFC. §3.1: input in a non-Unicode encoding
//!   SHOULD be normalized to NFC when converted to the UCS, while input that
//!   is already Unicode (UTF-8, UTF-16) is left as is and not normalized
//!   (§5.3.2.2: such IRIs MUST NOT be normalized before comparison). GB18030
//!   is treated as a legacy encoding (NFC applied). An invalid byte sequence is
//!   an error naming the byte offset, never a silent U+FFFD.
//! * [`encode_query`]: §3.5 — for http(s) IRIs from a document in a legacy
//!   charset, the query is percent-encoded from that charset instead of UTF-8,
//!   as browsers do (WHATWG URL "percent-encode after encoding").

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use encoding_rs::{DecoderResult, EncoderResult, Encoding, UTF_16BE, UTF_16LE, UTF_8};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Compression of an input stream, detected from its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`), possibly several concatenated members.
    Gzip,
    /// Zstandard (`28 b5 2f fd`), possibly several concatenated frames.
    Zstd,
}

/// Detects the compression from the first bytes of a stream (4 bytes are
/// enough; shorter input is plain unless it holds a whole magic number).
pub fn detect_compression(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// Wraps a reader so that it yields decompressed bytes: all members of a
/// multi-member gzip stream ([`flate2::read::MultiGzDecoder`]), all frames of
/// a zstd stream ([`zstd::Decoder`]), or the bytes unchanged.
#[cfg(test)]
pub fn decompress<'a, R: std::io::Read + 'a>(
    r: R,
    c: Compression,
) -> std::io::Result<Box<dyn std::io::Read + 'a>> {
    Ok(match c {
        Compression::None => Box::new(r),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Compression::Zstd => Box::new(zstd::Decoder::new(r)?),
    })
}

/// A character encoding named by a WHATWG label (`encoding_rs`):
/// `"shift_jis"`, `"euc-jp"`, `"gb18030"`, `"big5"`, `"windows-1251"`,
/// `"iso-8859-2"`, `"utf-16le"`, … (labels are case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charset(pub &'static Encoding);

impl Charset {
    /// UTF-8.
    pub const UTF8: Charset = Charset(UTF_8);

    /// The `encoding_rs` encoding.
    pub fn encoding(self) -> &'static Encoding {
        self.0
    }

    /// Lower-case canonical name, e.g. `shift_jis`.
    pub fn name(self) -> String {
        self.0.name().to_ascii_lowercase()
    }

    /// True for the Unicode encodings (UTF-8, UTF-16LE/BE): §3.1, no NFC.
    pub fn is_unicode(self) -> bool {
        self.0 == UTF_8 || self.0 == UTF_16LE || self.0 == UTF_16BE
    }
}

impl FromStr for Charset {
    type Err = String;
    /// Looks `s` up with [`Encoding::for_label`]; an unknown label (or one that
    /// maps to the WHATWG "replacement" encoding) is an error naming it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match Encoding::for_label(s.trim().as_bytes()) {
            Some(e) if e != encoding_rs::REPLACEMENT => Ok(Charset(e)),
            Some(_) => Err(format!(
                "charset label {s:?} denotes the WHATWG \"replacement\" encoding, which cannot be decoded"
            )),
            None => Err(format!(
                "unknown charset label {s:?} (expected a WHATWG encoding label such as \
                 utf-8, shift_jis, euc-jp, gb18030, big5, windows-1251, iso-8859-2, utf-16le)"
            )),
        }
    }
}

impl fmt::Display for Charset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A byte sequence that is invalid in the given charset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Lower-case charset name, e.g. `shift_jis`.
    pub charset: String,
    /// Offset (0-based, in the bytes given) of the first invalid byte.
    pub offset: usize,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} byte sequence at byte {}",
            self.charset, self.offset
        )
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one line (bytes without the line terminator) to UTF-8.
///
/// `None` or a Unicode charset: the bytes are validated as is (no NFC,
/// §3.1/§5.3.2.2), borrowed. A legacy charset: transcoded, then normalized
/// to NFC (§3.1); a line that is pure ASCII in an ASCII-compatible charset is
/// borrowed. No BOM handling (see [`sniff_bom`]). An invalid sequence is an
/// `Err` with its byte offset.
///
/// A UTF-16 charset is accepted but only meaningful for a whole input: a
/// UTF-16 file cannot be cut into lines on 0x0A bytes, use
/// [`transcode_utf16_to_utf8`] for it.
pub fn decode_line(bytes: &[u8], charset: Option<Charset>) -> Result<Cow<'_, str>, DecodeError> {
    let enc = charset.map_or(UTF_8, |c| c.0);
    if enc == UTF_8 {
        return std::str::from_utf8(bytes)
            .map(Cow::Borrowed)
            .map_err(|e| DecodeError {
                charset: "utf-8".into(),
                offset: e.valid_up_to(),
            });
    }
    if enc.is_ascii_compatible() && Encoding::ascii_valid_up_to(bytes) == bytes.len() {
        // An ASCII-compatible encoding decodes ASCII bytes to themselves.
        return std::str::from_utf8(bytes)
            .map(Cow::Borrowed)
            .map_err(|e| DecodeError {
                charset: enc.name().to_ascii_lowercase(),
                offset: e.valid_up_to(),
            });
    }
    let s = decode_strict(bytes, enc)?;
    if Charset(enc).is_unicode() {
        Ok(Cow::Owned(s))
    } else {
        Ok(Cow::Owned(nfc(s)))
    }
}

/// NFC, without reallocating when the text is already in NFC.
fn nfc(s: String) -> String {
    match is_nfc_quick(s.chars()) {
        IsNormalized::Yes => s,
        _ => s.nfc().collect(),
    }
}

/// Decodes all of `bytes` without replacement and without BOM handling.
fn decode_strict(bytes: &[u8], enc: &'static Encoding) -> Result<String, DecodeError> {
    decode_with(enc.new_decoder_without_bom_handling(), bytes, enc)
}

fn decode_with(
    mut dec: encoding_rs::Decoder,
    bytes: &[u8],
    enc: &'static Encoding,
) -> Result<String, DecodeError> {
    let cap = dec
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len().saturating_mul(3));
    let mut out = String::with_capacity(cap);
    let mut read = 0;
    loop {
        let (res, n) = dec.decode_to_string_without_replacement(&bytes[read..], &mut out, true);
        read += n;
        match res {
            DecoderResult::InputEmpty => return Ok(out),
            DecoderResult::OutputFull => out.reserve(bytes.len() - read + 16),
            DecoderResult::Malformed(bad, after) => {
                return Err(DecodeError {
                    charset: enc.name().to_ascii_lowercase(),
                    offset: read.saturating_sub(bad as usize + after as usize),
                })
            }
        }
    }
}

/// Detects a byte order mark at the start of a file: UTF-8 (`EF BB BF`),
/// UTF-16LE (`FF FE`) or UTF-16BE (`FE FF`). Returns the encoding and the BOM
/// length, to be skipped.
pub fn sniff_bom(head: &[u8]) -> Option<(&'static Encoding, usize)> {
    Encoding::for_bom(head)
}

/// Transcodes a whole UTF-16LE/BE input (`enc`) to UTF-8 bytes. A leading BOM
/// matching `enc` is removed. No NFC: UTF-16 is already Unicode (§3.1). If
/// `enc` is another encoding the same whole-input decoding is done, with NFC
/// for legacy encodings (useful for stateful ones such as ISO-2022-JP).
/// An unpaired surrogate or an odd trailing byte is an `Err` whose offset
/// counts from the start of `bytes`.
#[cfg(any(test, fuzzing))]
pub fn transcode_utf16_to_utf8(
    bytes: &[u8],
    enc: &'static Encoding,
) -> Result<Vec<u8>, DecodeError> {
    let s = decode_with(enc.new_decoder_with_bom_removal(), bytes, enc)?;
    Ok(if Charset(enc).is_unicode() {
        s.into_bytes()
    } else {
        nfc(s).into_bytes()
    })
}

/// Bytes that may stay raw in a query when they come out of the charset
/// encoder (RFC 3986 `unreserved`, sub-delims other than `&`, `=`, `+`, and
/// `:`, `@`, `/`, `?`). Everything else is percent-encoded.
fn raw_query_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$'()*,;:@/?".contains(&b)
}

/// §3.5: percent-encodes the non-ASCII characters of a query string from
/// `charset` instead of UTF-8, as browsers do for pages in legacy encodings.
///
/// ASCII characters (including existing `%XX` and any `%`) are left
/// unchanged; a query without non-ASCII characters is borrowed. Each run of
/// non-ASCII characters is encoded with the charset's output encoding (WHATWG:
/// UTF-16 → UTF-8) and the bytes are written `%XX` (uppercase). A character
/// the charset cannot represent is written `%26%23NNNN%3B`, the percent-encoded
/// decimal reference `&#NNNN;`, as WHATWG "percent-encode after encoding" does.
///
/// Deviation from browsers, on purpose: ASCII-range trail bytes of multibyte
/// encodings (Shift_JIS `表` = `95 5C`) are percent-encoded when they are not
/// allowed raw in an RFC 3986 query (`\` → `%5C`, also `[ ] ^ { | }` and
/// `` ` ``) or would change the query structure (`&`, `=`, `+`, `#`, `%`);
/// browsers leave some of them raw. The bytes a server decodes are the same.
pub fn encode_query(query: &str, charset: Charset) -> Cow<'_, str> {
    let Some(first) = query.bytes().position(|b| b >= 0x80) else {
        return Cow::Borrowed(query);
    };
    let enc = charset.0.output_encoding();
    let mut out = String::with_capacity(query.len() * 3);
    out.push_str(&query[..first]);
    let mut rest = &query[first..];
    while !rest.is_empty() {
        // `rest` starts with a non-ASCII run; ASCII bytes are char boundaries.
        let m = rest.bytes().position(|b| b < 0x80).unwrap_or(rest.len());
        encode_run(&rest[..m], enc, &mut out);
        rest = &rest[m..];
        let n = rest.bytes().position(|b| b >= 0x80).unwrap_or(rest.len());
        out.push_str(&rest[..n]);
        rest = &rest[n..];
    }
    Cow::Owned(out)
}

fn encode_run(run: &str, enc: &'static Encoding, out: &mut String) {
    const HEX: &[u8; 16] = crate::chars::HEX_UPPER;
    let flush = |buf: &mut Vec<u8>, out: &mut String| {
        for &b in buf.iter() {
            if raw_query_byte(b) {
                out.push(b as char);
            } else {
                out.push('%');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
        buf.clear();
    };
    let mut encoder = enc.new_encoder();
    let mut buf: Vec<u8> = Vec::with_capacity(
        encoder
            .max_buffer_length_from_utf8_without_replacement(run.len())
            .unwrap_or(run.len() * 4)
            + 16,
    );
    let mut read = 0;
    loop {
        let (res, n) =
            encoder.encode_from_utf8_to_vec_without_replacement(&run[read..], &mut buf, true);
        read += n;
        flush(&mut buf, out);
        match res {
            EncoderResult::InputEmpty => return,
            EncoderResult::OutputFull => buf.reserve(run.len() - read + 16),
            EncoderResult::Unmappable(c) => {
                out.push_str("%26%23");
                out.push_str(&(c as u32).to_string());
                out.push_str("%3B");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const SJIS: &[u8] = include_bytes!("../tests/data/input_sjis.txt");
    const SJIS_UTF8: &str = include_str!("../tests/data/input_sjis.utf8.txt");
    const CP1251: &[u8] = include_bytes!("../tests/data/input_cp1251.txt");
    const CP1251_UTF8: &str = include_str!("../tests/data/input_cp1251.utf8.txt");
    const UTF16: &[u8] = include_bytes!("../tests/data/input_utf16le_bom.txt");
    const PLAIN: &[u8] = include_bytes!("../tests/data/input_plain.txt");
    const PLAIN_GZ: &[u8] = include_bytes!("../tests/data/input_plain.txt.gz");
    const PLAIN_ZST: &[u8] = include_bytes!("../tests/data/input_plain.txt.zst");

    fn cs(label: &str) -> Option<Charset> {
        Some(label.parse().unwrap())
    }

    fn decode_file(bytes: &[u8], label: &str) -> String {
        let mut out = String::new();
        for line in bytes.split(|&b| b == b'\n') {
            if line.is_empty() {
                continue;
            }
            out.push_str(&decode_line(line, cs(label)).unwrap());
            out.push('\n');
        }
        out
    }

    #[test]
    fn charset_labels() {
        assert_eq!(cs("Shift_JIS").unwrap().name(), "shift_jis");
        assert_eq!(cs("sjis").unwrap().name(), "shift_jis");
        assert_eq!(cs("cp1251").unwrap().name(), "windows-1251");
        assert_eq!(cs(" latin2 ").unwrap().name(), "iso-8859-2");
        assert_eq!(cs("utf-16le").unwrap().name(), "utf-16le");
        let e = "klingon".parse::<Charset>().unwrap_err();
        assert!(e.contains("unknown charset label \"klingon\""), "{e}");
        assert!("iso-2022-kr".parse::<Charset>().is_err());
    }

    #[test]
    fn sjis_file_matches_twin() {
        assert!(SJIS.iter().any(|&b| b >= 0x80));
        assert_eq!(decode_file(SJIS, "shift_jis"), SJIS_UTF8);
        assert!(SJIS_UTF8.contains("http://例え.テスト/パス?q=検索"));
    }

    #[test]
    fn cp1251_file_matches_twin() {
        assert_eq!(decode_file(CP1251, "windows-1251"), CP1251_UTF8);
        assert!(CP1251_UTF8.contains("Москва"));
    }

    #[test]
    fn utf8_is_validated_not_normalized() {
        let decomposed = "http://a/e\u{301}";
        let out = decode_line(decomposed.as_bytes(), None).unwrap();
        assert!(matches!(out, Cow::Borrowed(_)));
        assert_eq!(out, decomposed);
        let out = decode_line(decomposed.as_bytes(), cs("utf-8")).unwrap();
        assert_eq!(out, decomposed);
        let e = decode_line(b"http://a/\xC3(", None).unwrap_err();
        assert_eq!(e.to_string(), "invalid utf-8 byte sequence at byte 9");
    }

    #[test]
    fn ascii_is_borrowed() {
        let out = decode_line(b"http://a/b?c", cs("shift_jis")).unwrap();
        assert!(matches!(out, Cow::Borrowed("http://a/b?c")));
    }

    #[test]
    fn invalid_bytes_give_offsets() {
        let e = decode_line(b"http://a/\x82", cs("shift_jis")).unwrap_err();
        assert_eq!(e.to_string(), "invalid shift_jis byte sequence at byte 9");
        let e = decode_line(b"http://\x82 x/", cs("shift_jis")).unwrap_err();
        assert_eq!(e.offset, 7);
        // WHATWG windows-1251 maps every byte (0x98 → U+0098, a C1 control
        // that the preprocessor percent-encodes); windows-1253 leaves 0xAA
        // unmapped.
        let ok = decode_line(b"http://a/\xEF\x98b", cs("windows-1251")).unwrap();
        assert_eq!(ok, "http://a/\u{43F}\u{98}b");
        let e = decode_line(b"http://a/\xE1\xAAb", cs("windows-1253")).unwrap_err();
        assert_eq!(
            e,
            DecodeError {
                charset: "windows-1253".into(),
                offset: 10
            }
        );
        let e = decode_line(b"\xC3\xA9", cs("iso-2022-jp"));
        assert!(e.is_err());
    }

    #[test]
    fn nfc_after_transcoding() {
        // §5.3.2.2: windows-1258 "Vi\xEA\xF2t" is e-circumflex + combining dot
        // below; after transcoding it must be NFC "Việt".
        let out = decode_line(b"http://a/Vi\xEA\xF2t", cs("windows-1258")).unwrap();
        assert_eq!(out, "http://a/Vi\u{1EC7}t");
    }

    #[test]
    fn compression_detection() {
        assert_eq!(detect_compression(PLAIN_GZ), Compression::Gzip);
        assert_eq!(detect_compression(PLAIN_ZST), Compression::Zstd);
        assert_eq!(detect_compression(PLAIN), Compression::None);
        assert_eq!(detect_compression(b""), Compression::None);
        assert_eq!(detect_compression(b"\x28\xb5"), Compression::None);
    }

    fn read_all(bytes: &[u8]) -> Vec<u8> {
        let mut r = decompress(bytes, detect_compression(bytes)).unwrap();
        let mut v = Vec::new();
        r.read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn decompress_files() {
        // input_plain.txt.gz has two gzip members.
        assert_eq!(read_all(PLAIN_GZ), PLAIN);
        assert_eq!(read_all(PLAIN_ZST), PLAIN);
        assert_eq!(read_all(PLAIN), PLAIN);
    }

    #[test]
    fn gzip_multi_member_and_zstd_multi_frame_round_trip() {
        let parts: [&[u8]; 3] = [b"http://a/1\n", b"http://b/2\n", b"http://c/3\n"];
        let mut gz = Vec::new();
        let mut zs = Vec::new();
        for p in parts {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(p).unwrap();
            gz.extend(e.finish().unwrap());
            zs.extend(zstd::encode_all(p, 3).unwrap());
        }
        let all = parts.concat();
        assert_eq!(read_all(&gz), all);
        assert_eq!(read_all(&zs), all);
        // Through a temp file too, as the CLI would read it.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.zst");
        std::fs::write(&path, &zs).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        let mut v = Vec::new();
        decompress(f, Compression::Zstd)
            .unwrap()
            .read_to_end(&mut v)
            .unwrap();
        assert_eq!(v, all);
        // Corrupt data is an io error, not a panic.
        let mut bad = gz.clone();
        bad.truncate(15);
        let mut r = decompress(&bad[..], Compression::Gzip).unwrap();
        assert!(r.read_to_end(&mut Vec::new()).is_err());
    }

    #[test]
    fn bom_sniffing_and_utf16() {
        assert_eq!(sniff_bom(b"\xEF\xBB\xBFhttp"), Some((UTF_8, 3)));
        assert_eq!(sniff_bom(b"\xFF\xFEh\x00"), Some((UTF_16LE, 2)));
        assert_eq!(sniff_bom(b"\xFE\xFF\x00h"), Some((UTF_16BE, 2)));
        assert_eq!(sniff_bom(b"http"), None);
        let (enc, len) = sniff_bom(UTF16).unwrap();
        assert_eq!((enc, len), (UTF_16LE, 2));
        let utf8 = transcode_utf16_to_utf8(UTF16, enc).unwrap();
        assert_eq!(utf8, SJIS_UTF8.as_bytes());
        // Without the BOM too.
        assert_eq!(transcode_utf16_to_utf8(&UTF16[2..], enc).unwrap(), utf8);
        // Odd length, unpaired surrogate.
        let e = transcode_utf16_to_utf8(b"h\x00i", UTF_16LE).unwrap_err();
        assert_eq!(e.offset, 2);
        let e = transcode_utf16_to_utf8(b"h\x00\x00\xD8i\x00", UTF_16LE).unwrap_err();
        assert_eq!(e.to_string(), "invalid utf-16le byte sequence at byte 2");
        let be = transcode_utf16_to_utf8(b"\xFE\xFF\x00h\x00\xE9", UTF_16BE).unwrap();
        assert_eq!(be, "hé".as_bytes());
    }

    #[test]
    fn query_charset() {
        let sj = cs("shift_jis").unwrap();
        assert_eq!(encode_query("q=検索", sj), "q=%8C%9F%8D%F5");
        assert!(matches!(encode_query("q=a%20b&c", sj), Cow::Borrowed(_)));
        // Trail byte 0x5C (`\`) is encoded, 0x41 'A' stays raw.
        assert_eq!(encode_query("表ア", sj), "%95%5C%83A");
        // Unmappable: the percent-encoded decimal reference.
        assert_eq!(encode_query("x=😀&y", sj), "x=%26%23128512%3B&y");
        let ru = cs("windows-1251").unwrap();
        assert_eq!(encode_query("q=привет&n=1", ru), "q=%EF%F0%E8%E2%E5%F2&n=1");
        assert_eq!(encode_query("q=é%41", ru), "q=%26%23233%3B%41");
        assert_eq!(encode_query("q=é", Charset::UTF8), "q=%C3%A9");
        // WHATWG: UTF-16 pages submit UTF-8.
        assert_eq!(encode_query("é", cs("utf-16le").unwrap()), "%C3%A9");
        // Stateful encoder: each run returns to ASCII; structural bytes encoded.
        let jis = encode_query("a=検&b", cs("iso-2022-jp").unwrap());
        assert_eq!(jis, "a=%1B$B8!%1B(B&b");
    }

    #[test]
    fn never_panics_on_any_bytes() {
        use proptest::prelude::*;
        let labels = [
            "utf-8",
            "shift_jis",
            "euc-jp",
            "iso-2022-jp",
            "gb18030",
            "big5",
            "euc-kr",
            "windows-1251",
            "windows-1258",
            "utf-16le",
            "utf-16be",
            "x-user-defined",
        ];
        proptest!(|(b in prop::collection::vec(any::<u8>(), 0..40), s in ".{0,20}")| {
            for l in labels {
                let c = cs(l).unwrap();
                let _ = decode_line(&b, Some(c));
                let _ = transcode_utf16_to_utf8(&b, c.0);
                let q = encode_query(&s, c);
                prop_assert!(q.is_ascii());
            }
            let _ = sniff_bom(&b);
            let mut v = Vec::new();
            if let Ok(mut r) = decompress(&b[..], detect_compression(&b)) {
                let _ = r.read_to_end(&mut v);
            }
        });
    }
}
