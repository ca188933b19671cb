//! Keeping a Server-Sent Event whole: a line break ends a line of the
//! event, so one inside a message's JSON is sent as one more `data:` line,
//! which the client joins back with the `\n` it had.

/// Splits the event at `out[start..]` into `data:` lines if the JSON value
/// at `out[value]` holds a line break.
#[inline]
pub(super) fn keep_whole(out: &mut Vec<u8>, start: usize, value: std::ops::Range<usize>) {
    let value = &out[value];
    if may_break(value) && has_line_break(value) {
        split_lines(out, start);
    }
}

/// `message` as the data of one event.
pub(super) fn data_event(message: &str) -> String {
    one_line(format!("data: {message}\n\n"))
}

/// Whether `value`, one JSON value as serde_json wrote it, may hold a raw
/// line break. serde_json escapes them in strings and writes one only from
/// raw JSON it passes on, where it can stand only between two tokens: never
/// in a value that is one token (a number, a string, a literal) with
/// nothing around it.
#[inline]
fn may_break(value: &[u8]) -> bool {
    match (value.first(), value.last()) {
        (Some(b'{' | b'['), _) => true,
        (Some(first), Some(last)) => first.is_ascii_whitespace() || last.is_ascii_whitespace(),
        _ => false,
    }
}

/// Whether `bytes` hold a `\n` or a `\r`, looking at eight bytes at a time.
fn has_line_break(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // The classic test for a zero byte in a word, on the word XOR the byte
    // sought in every place.
    let holds = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let word = u64::from_ne_bytes(eight);
        if holds(word, b'\n') || holds(word, b'\r') {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b == b'\n' || b == b'\r')
}

/// The event at `out[start..]` with the line breaks inside its data split
/// into `data:` lines.
#[cold]
fn split_lines(out: &mut Vec<u8>, start: usize) {
    let event = String::from_utf8_lossy(&out[start..]).into_owned();
    out.truncate(start);
    out.extend_from_slice(one_line(event).as_bytes());
}

/// `event` with any line break inside its data split into `data:` lines.
fn one_line(event: String) -> String {
    let data = &event[..event.len() - 2];
    if !data.bytes().any(|b| b == b'\n' || b == b'\r') {
        return event;
    }
    let body = data.strip_prefix("data: ").unwrap_or(data);
    let mut split = String::with_capacity(event.len() + 16);
    for line in body.split(['\n', '\r']) {
        split.push_str("data: ");
        split.push_str(line);
        split.push('\n');
    }
    split.push('\n');
    split
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_are_found_in_any_place_of_a_word() {
        for len in 0..20 {
            let plain = vec![b'x'; len];
            assert!(!has_line_break(&plain));
            for at in 0..len {
                for byte in [b'\n', b'\r'] {
                    let mut broken = plain.clone();
                    broken[at] = byte;
                    assert!(has_line_break(&broken), "{byte} at {at} of {len}");
                }
            }
        }
        assert!(!has_line_break("\u{e9}\t\u{b}\u{c}\u{8a}é".as_bytes()));
    }

    #[test]
    fn only_a_lone_token_is_known_to_hold_no_line_break() {
        for value in ["42", "-1.5e3", r#""a\nb""#, "true", "null"] {
            assert!(!may_break(value.as_bytes()), "{value}");
        }
        for value in ["{}", "[1]", " 42", "42\n", "\r\n\"x\""] {
            assert!(may_break(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn a_line_break_in_a_message_becomes_data_lines() {
        assert_eq!(data_event("{}"), "data: {}\n\n");
        assert_eq!(data_event("{\n\"a\":1}"), "data: {\ndata: \"a\":1}\n\n");
    }

    #[test]
    fn a_line_break_in_an_item_becomes_data_lines() {
        let mut out = b"before|data: {\r\n\"a\":1}\n\n".to_vec();
        keep_whole(&mut out, 7, 13..22);
        assert_eq!(out, b"before|data: {\ndata: \ndata: \"a\":1}\n\n");
    }
}
