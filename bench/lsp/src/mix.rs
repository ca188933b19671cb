//! The work the load generator asks of each server: one document, then
//! round after round of an incremental edit, a hover and a completion.

/// The URI of the document.
pub const URI: &str = "file:///bench/prices.tally";

/// Lines of the document: bindings that use the ones before them.
pub const LINES: u32 = 40;

/// The document as opened: `let v0 = 1` then `let vN = v(N-1) * 1.01 + N`.
pub fn text() -> String {
    let mut text = String::from("let v0 = 1 # 🍎 start\n");
    for n in 1..LINES {
        text.push_str(&format!("let v{n} = v{} * 1.01 + {n} # 価格 {n}\n", n - 1));
    }
    text
}

/// Round `round`'s edit: the value of `let v0 = ...` becomes `round`,
/// a change every later binding depends on. The range covers the value,
/// which is at UTF-16 characters 9 up to 9 plus the old value's length.
pub fn edit(round: u64) -> (u32, u32, u32, String) {
    let old = if round == 0 { 1 } else { round - 1 };
    let old_len = old.to_string().len() as u32;
    (0, 9, 9 + old_len, round.to_string())
}

/// Where round `round` hovers and completes: on a use of a name, on a
/// line that moves with the round.
pub fn position(round: u64) -> (u32, u32) {
    let line = 1 + (round % (LINES as u64 - 1)) as u32;
    // `let vN = ` is 8 + digits(N) characters: the use starts there.
    (line, 8 + line.to_string().len() as u32)
}
