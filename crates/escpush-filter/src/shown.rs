//! How text a person wrote is shown in messages: where its lines break (the line and
//! column of an error), which of its characters are written as escapes, so that no control
//! character reaches a terminal through a message (an `ESC ] 0 ; ... BEL` that retitles the
//! window, a CR that overwrites the line, a U+202E that reverses what follows), and how
//! many terminal columns each character takes (the caret under an error's spot). Public
//! for the crates of escpush that show a person's text the same way (escpush-core's job
//! rules, Terraform's problems); the secrets of a text are [`crate::Secrets`]'s.
//!
//! - **Line breaks** are Unicode's mandatory breaks (UAX #14 classes BK, CR, LF, NL): LF,
//!   CR LF (one break), CR, VT, FF, NEL (U+0085), LS (U+2028) and PS (U+2029). Editors and
//!   terminals start a new line at each (VT and FF move down a line on a terminal), so a
//!   position counted with fewer would name a line the reader cannot find.
//! - **Escaped** is every character that is not printable: the categories Cc (C0 and C1
//!   controls, DEL), Cf (bidi controls, zero-width spaces and joiners, the byte-order mark,
//!   ...), Zl, Zp, Zs other than the space (U+00A0, U+3000, ...), Co and Cn (private and
//!   unassigned). That is the set Rust's `char::escape_debug` and Python's
//!   `str.isprintable` leave out; it is read from the former, so it follows the Unicode
//!   version of the toolchain. An escape is written as JSON writes it (`\n`, `\r`, `\t`,
//!   else `\u001b`, a surrogate pair beyond U+FFFF), so that inside a quoted value it
//!   means the same string again. A backslash is not doubled: a message quotes, it is not
//!   re-read.
//! - **Widths** follow `wcwidth`: 2 columns for East Asian wide and fullwidth characters
//!   (CJK, Hangul, fullwidth forms, emoji), 0 for combining marks, 1 for the rest; an
//!   escape takes its length. The tables below hold the blocks in common use, not every
//!   range of the Unicode database: a caret after a rare wide or combining character may
//!   be off by its width. A terminal that draws a character otherwise is not followed.

use std::borrow::Cow;

/// Whether `c` starts a line break (see the module's list).
pub(crate) fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The 1-based line of byte offset `at` of `text` and the byte offset where that line
/// starts. `at` is clamped to the text and moved back to a character boundary.
pub fn line_of(text: &str, at: usize) -> (usize, usize) {
    let at = floor_char(text, at.min(text.len()));
    let bytes = &text.as_bytes()[..at];
    let (mut line, mut start, mut i) = (1, 0, 0);
    // Bytes, not characters: a 10 MB text is read quickly. The breaks beyond ASCII are
    // NEL (C2 85), LS (E2 80 A8) and PS (E2 80 A9); a continuation byte never starts one.
    while i < bytes.len() {
        let len = match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
            b'\n' | 0x0B | 0x0C | b'\r' => 1,
            0xC2 if bytes.get(i + 1) == Some(&0x85) => 2,
            0xE2 if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) => 3,
            _ => {
                i += 1;
                continue;
            }
        };
        i += len;
        line += 1;
        start = i;
    }
    (line, start)
}

/// The byte offset of the end of the line holding byte offset `at` (its first line break,
/// or the end of the text).
pub(crate) fn line_end(text: &str, at: usize) -> usize {
    let at = floor_char(text, at.min(text.len()));
    text[at..].find(is_line_break).map_or(text.len(), |i| at + i)
}

/// The 1-based line and column (in characters) of byte offset `at` of `text`.
pub(crate) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = floor_char(text, at.min(text.len()));
    let (line, start) = line_of(text, at);
    (line, text[start..at].chars().count() + 1)
}

/// `i` moved back to the start of the character it falls in (clamped to the text).
pub(crate) fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether `c` is shown as itself: printable (see the module's list). A tab is not.
pub(crate) fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return c == ' ' || c.is_ascii_graphic();
    }
    // `str::escape_debug` escapes a non-printable character wherever it is, and a
    // combining mark only at the start of the text: after an `a`, a character is escaped
    // exactly when it is not printable.
    let mut buf = [0u8; 8];
    buf[0] = b'a';
    let len = c.encode_utf8(&mut buf[1..]).len();
    let pair = std::str::from_utf8(&buf[..=len]).expect("UTF-8");
    pair.escape_debug().nth(1) != Some('\\')
}

/// Appends `c`'s escape, as JSON writes it.
pub(crate) fn push_escape(c: char, out: &mut String) {
    use std::fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ => {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
}

/// How `c` is shown in a line of a message: itself, or its escape.
fn shown_char(c: char, keep: &[char], out: &mut String) {
    if is_printable(c) || keep.contains(&c) {
        out.push(c);
    } else {
        push_escape(c, out);
    }
}

fn escape_keeping<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    // Most text is printable ASCII: a byte test, then a character test past the first
    // other byte.
    let first_other = text
        .bytes()
        .position(|b| !(b' '..=b'~').contains(&b))
        .unwrap_or(text.len());
    if text[first_other..]
        .chars()
        .all(|c| is_printable(c) || keep.contains(&c))
    {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        shown_char(c, keep, &mut out);
    }
    out.into()
}

/// `text` with every character that is not printable written as its escape: for a name or
/// a value quoted in a message, and for a problem's path.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_keeping(text, &[])
}

/// A whole message: as [`escape`], but its line feeds (between the message and a caret
/// line) and tabs (a caret line copies the tabs of the line above) stay.
pub fn message(text: &str) -> Cow<'_, str> {
    escape_keeping(text, &['\n', '\t'])
}

/// `text` as a JSON string literal in which every character that is not printable is
/// escaped too (JSON requires it only of C0 controls): the same string to a JSON reader,
/// safe on a terminal.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => shown_char(c, &[], &mut out),
        }
    }
    out.push('"');
    out
}

/// A character named for a message: `U+FEFF (a byte-order mark)`, `U+001B (a control
/// character)`, `U+200B (an invisible character)`; a printable one quoted.
pub fn describe_char(c: char) -> String {
    let code = u32::from(c);
    match c {
        '\u{feff}' => format!("U+{code:04X} (a byte-order mark)"),
        _ if c.is_control() => format!("U+{code:04X} (a control character)"),
        _ if !is_printable(c) => format!("U+{code:04X} (an invisible character)"),
        _ => format!("`{c}`"),
    }
}

/// The terminal columns `c` takes when printed as itself (see the module's note).
pub(crate) fn width(c: char) -> usize {
    let code = u32::from(c);
    if code < 0x300 {
        return 1;
    }
    if in_ranges(code, ZERO_WIDTH) {
        0
    } else if in_ranges(code, WIDE) {
        2
    } else {
        1
    }
}

fn in_ranges(code: u32, ranges: &[(u32, u32)]) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < code {
                std::cmp::Ordering::Less
            } else if lo > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Combining marks that draw on the character before them, in the blocks in common use
/// (Unicode's Mn and Me there), and Hangul's conjoining vowels and finals; sorted.
const ZERO_WIDTH: &[(u32, u32)] = &[
    (0x0300, 0x036F), // combining diacritical marks
    (0x0483, 0x0489), // Cyrillic
    (0x0591, 0x05BD), // Hebrew points
    (0x05BF, 0x05BF),
    (0x05C1, 0x05C2),
    (0x05C4, 0x05C5),
    (0x05C7, 0x05C7),
    (0x0610, 0x061A), // Arabic
    (0x064B, 0x065F),
    (0x0670, 0x0670),
    (0x06D6, 0x06DC),
    (0x06DF, 0x06E4),
    (0x06E7, 0x06E8),
    (0x06EA, 0x06ED),
    (0x0900, 0x0902), // Devanagari
    (0x093A, 0x093A),
    (0x093C, 0x093C),
    (0x0941, 0x0948),
    (0x094D, 0x094D),
    (0x0951, 0x0957),
    (0x0962, 0x0963),
    (0x0E31, 0x0E31), // Thai
    (0x0E34, 0x0E3A),
    (0x0E47, 0x0E4E),
    (0x1160, 0x11FF),   // Hangul jungseong and jongseong
    (0x1AB0, 0x1AFF),   // combining diacritical marks extended
    (0x1DC0, 0x1DFF),   // combining diacritical marks supplement
    (0x20D0, 0x20FF),   // combining marks for symbols
    (0xFE00, 0xFE0F),   // variation selectors
    (0xFE20, 0xFE2F),   // combining half marks
    (0x1F3FB, 0x1F3FF), // emoji skin tones
    (0xE0100, 0xE01EF), // variation selectors supplement
];

/// East Asian wide and fullwidth characters (UAX #11 W and F), in the blocks in common
/// use, and the emoji drawn two columns wide; sorted.
const WIDE: &[(u32, u32)] = &[
    (0x1100, 0x115F), // Hangul jamo initials
    (0x231A, 0x231B),
    (0x2329, 0x232A),
    (0x23E9, 0x23EC),
    (0x23F0, 0x23F0),
    (0x23F3, 0x23F3),
    (0x25FD, 0x25FE),
    (0x2614, 0x2615),
    (0x2648, 0x2653),
    (0x267F, 0x267F),
    (0x2693, 0x2693),
    (0x26A1, 0x26A1),
    (0x26AA, 0x26AB),
    (0x26BD, 0x26BE),
    (0x26C4, 0x26C5),
    (0x26CE, 0x26CE),
    (0x26D4, 0x26D4),
    (0x26EA, 0x26EA),
    (0x26F2, 0x26F3),
    (0x26F5, 0x26F5),
    (0x26FA, 0x26FA),
    (0x26FD, 0x26FD),
    (0x2705, 0x2705),
    (0x270A, 0x270B),
    (0x2728, 0x2728),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2795, 0x2797),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x2E80, 0x303E), // CJK radicals, Kangxi, ideographic description, CJK symbols
    (0x3041, 0x33FF), // kana, bopomofo, Hangul compatibility jamo, CJK compatibility
    (0x3400, 0x4DBF), // CJK extension A
    (0x4E00, 0x9FFF), // CJK unified ideographs
    (0xA000, 0xA4CF), // Yi
    (0xA960, 0xA97F), // Hangul jamo extended A
    (0xAC00, 0xD7A3), // Hangul syllables
    (0xF900, 0xFAFF), // CJK compatibility ideographs
    (0xFE10, 0xFE19), // vertical forms
    (0xFE30, 0xFE6F), // CJK compatibility forms, small forms
    (0xFF00, 0xFF60), // fullwidth forms
    (0xFFE0, 0xFFE6),
    (0x16FE0, 0x16FE4),
    (0x17000, 0x18CFF), // Tangut
    (0x1B000, 0x1B2FF), // kana supplement and extensions, Nushu
    (0x1F004, 0x1F004),
    (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F200, 0x1F2FF), // enclosed ideographic supplement
    (0x1F300, 0x1F3FA), // emoji: symbols and pictographs (skin tones above are combining)
    (0x1F400, 0x1F64F), // emoji, emoticons
    (0x1F680, 0x1F6FF), // transport and map symbols
    (0x1F7E0, 0x1F7EB),
    (0x1F90C, 0x1F9FF), // supplemental symbols and pictographs
    (0x1FA70, 0x1FAFF), // symbols and pictographs extended A
    (0x20000, 0x2FFFD), // CJK extensions B to F, compatibility supplement
    (0x30000, 0x3FFFD), // CJK extensions G and H
];

/// A line of text as a message shows it: each character as itself or its escape, and the
/// columns it takes on a terminal (a tab counts one: a caret line copies it).
pub(crate) struct Cell {
    pub(crate) text: Cow<'static, str>,
    pub(crate) width: usize,
    pub(crate) tab: bool,
}

/// The [`Cell`] of `c`.
pub(crate) fn cell(c: char) -> Cell {
    if c == '\t' {
        return Cell {
            text: "\t".into(),
            width: 1,
            tab: true,
        };
    }
    if is_printable(c) {
        return Cell {
            text: c.to_string().into(),
            width: width(c),
            tab: false,
        };
    }
    let mut text = String::new();
    push_escape(c, &mut text);
    Cell {
        width: text.len(),
        text: text.into(),
        tab: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_positions() {
        for brk in ["\n", "\r\n", "\r", "\u{b}", "\u{c}", "\u{85}", "\u{2028}", "\u{2029}"] {
            let text = format!("ab{brk}cd{brk}");
            let at = text.find('d').unwrap();
            assert_eq!(line_column(&text, at), (2, 2), "{brk:?}");
            assert_eq!(line_of(&text, text.len()), (3, text.len()), "{brk:?}");
            assert_eq!(&text[line_of(&text, at).1..line_end(&text, at)], "cd");
        }
        // Not breaks: the other separators, which are controls shown escaped.
        for other in ["\u{1c}", "\u{1d}", "\u{1e}", "\u{1f}", "\t"] {
            let text = format!("ab{other}cd");
            assert_eq!(line_column(&text, text.find('d').unwrap()), (1, 5));
        }
        // A position inside a character counts from that character.
        assert_eq!(line_column("é", 1), (1, 1));
        assert_eq!(line_column("ab", 99), (1, 3));
    }

    #[test]
    fn what_is_escaped() {
        for c in [
            '\u{0}',
            '\u{7}',
            '\t',
            '\n',
            '\r',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{a0}',
            '\u{ad}',
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{2028}',
            '\u{2029}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{3000}',
            '\u{feff}',
            '\u{e000}',
            '\u{e0001}',
            '\u{10ffff}',
        ] {
            assert!(!is_printable(c), "{c:?}");
        }
        for c in [' ', 'a', '~', 'é', '\u{301}', '中', '…', '\u{fe0f}', '😀'] {
            assert!(is_printable(c), "{c:?}");
        }
        assert_eq!(escape("a\u{1b}]0;x\u{7}"), r"a\u001b]0;x\u0007");
        assert_eq!(escape("tab\there\nCR\r"), r"tab\there\nCR\r");
        assert_eq!(escape("\u{e0001}"), r"\udb40\udc01");
        assert!(matches!(escape("plain é 中"), Cow::Borrowed(_)));
        assert_eq!(message("one\n\ttwo\u{202e}"), "one\n\ttwo\\u202e");
        assert_eq!(json_string("a\"\\\u{1}\u{202e}é"), r#""a\"\\\u0001\u202eé""#);
        assert_eq!(
            serde_json::from_str::<String>(&json_string("a\"\\\u{1}\u{202e}\u{e0001}é")).unwrap(),
            "a\"\\\u{1}\u{202e}\u{e0001}é"
        );
        assert_eq!(describe_char('\u{feff}'), "U+FEFF (a byte-order mark)");
        assert_eq!(describe_char('\u{1b}'), "U+001B (a control character)");
        assert_eq!(describe_char('\u{200b}'), "U+200B (an invisible character)");
        assert_eq!(describe_char('x'), "`x`");
    }

    #[test]
    fn widths() {
        for (c, w) in [
            ('a', 1),
            ('é', 1),
            ('\u{301}', 0),
            ('\u{fe0f}', 0),
            ('中', 2),
            ('한', 2),
            ('Ａ', 2),
            ('😀', 2),
            ('✅', 2),
            ('…', 1),
            ('\u{20000}', 2),
        ] {
            assert_eq!(width(c), w, "{c:?}");
        }
        for table in [ZERO_WIDTH, WIDE] {
            assert!(table.windows(2).all(|w| w[0].1 < w[1].0), "sorted and disjoint");
            assert!(table.iter().all(|(lo, hi)| lo <= hi));
        }
        assert_eq!(cell('\u{1b}').width, 6);
        assert!(cell('\t').tab);
    }
}
