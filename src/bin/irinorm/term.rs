//! Text for the terminal. Crawl data is untrusted: every byte of input that
//! a message quotes goes through [`escape`], so that a line cannot move the
//! cursor, change colours, retitle the window or hide text (ESC, C0/C1
//! controls, DEL, and the bidi formatting characters of 3987bis §4.1/§10).

/// `s` with control characters, DEL, C1 controls and bidi/invisible
/// formatting characters written as `\xNN` / `\u{NNNN}`. Everything else,
/// the backslash included, is written as it is, so that a line shown on the
/// terminal is the line the rejects file holds (it can be pasted into
/// `grep -F`) unless it holds one of the escaped characters.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (0x80..0xa0).contains(&(c as u32)) || is_format(c) => {
                out.push_str(&format!("\\u{{{:04x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Invisible characters that change how the text around them is shown.
fn is_format(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
        assert_eq!(escape("nul\0del\x7f"), "nul\\x00del\\x7f");
        assert_eq!(escape("x\u{202e}y\u{9b}z"), "x\\u{202e}y\\u{009b}z");
        assert_eq!(escape("http://a/é\\%C3"), "http://a/é\\%C3");
        assert_eq!(escape("t\tn\nr\r"), "t\\tn\\nr\\r");
    }
}
