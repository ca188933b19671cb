//! The server's side of RFC 6455's framing, without I/O: reading the
//! frames a client sends (masked) and writing the server's (unmasked).
//!
//! Every rule a client can break is checked here, each failure carrying the
//! close code RFC 6455 gives it: reserved bits or opcodes, an unmasked
//! frame, a control frame that is fragmented or over 125 bytes, a length
//! over the message limit (refused on the header, before the payload is
//! buffered).

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opcode {
    Continuation,
    Text,
    Binary,
    Close,
    Ping,
    Pong,
}

impl Opcode {
    fn from_bits(bits: u8) -> Option<Opcode> {
        Some(match bits {
            0x0 => Opcode::Continuation,
            0x1 => Opcode::Text,
            0x2 => Opcode::Binary,
            0x8 => Opcode::Close,
            0x9 => Opcode::Ping,
            0xA => Opcode::Pong,
            _ => return None,
        })
    }

    fn bits(self) -> u8 {
        match self {
            Opcode::Continuation => 0x0,
            Opcode::Text => 0x1,
            Opcode::Binary => 0x2,
            Opcode::Close => 0x8,
            Opcode::Ping => 0x9,
            Opcode::Pong => 0xA,
        }
    }

    pub(super) fn is_control(self) -> bool {
        matches!(self, Opcode::Close | Opcode::Ping | Opcode::Pong)
    }
}

/// Why the peer's frames cannot be read: the close code to send and its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Violation {
    pub(super) code: u16,
    pub(super) reason: &'static str,
}

impl Violation {
    pub(super) const fn protocol(reason: &'static str) -> Violation {
        Violation { code: 1002, reason }
    }

    pub(super) const TOO_BIG: Violation = Violation {
        code: 1009,
        reason: "message too big",
    };

    pub(super) const NOT_UTF8: Violation = Violation {
        code: 1007,
        reason: "text is not UTF-8",
    };
}

/// A frame's header, as read.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) fin: bool,
    pub(super) opcode: Opcode,
    pub(super) mask: [u8; 4],
    /// The payload's length.
    pub(super) len: usize,
    /// The header's own length: the payload starts there.
    pub(super) size: usize,
}

/// Reads the header at the start of `bytes`: `None` until it is all there.
/// `room` is how much more the message in progress may take, checked
/// against the declared length so that nothing over the limit is buffered.
pub(super) fn header(bytes: &[u8], room: usize) -> Result<Option<Header>, Violation> {
    let [first, second, ..] = *bytes else {
        return Ok(None);
    };
    if first & 0x70 != 0 {
        return Err(Violation::protocol("reserved bits set"));
    }
    let opcode = Opcode::from_bits(first & 0x0F).ok_or(Violation::protocol("reserved opcode"))?;
    let fin = first & 0x80 != 0;
    if second & 0x80 == 0 {
        return Err(Violation::protocol("client frame not masked"));
    }
    let (len, at) = match second & 0x7F {
        126 => match bytes.get(2..4) {
            Some(len) => (u64::from(u16::from_be_bytes([len[0], len[1]])), 4),
            None => return Ok(None),
        },
        127 => match bytes.get(2..10) {
            Some(len) => (u64::from_be_bytes(len.try_into().expect("8 bytes")), 10),
            None => return Ok(None),
        },
        len => (u64::from(len), 2),
    };
    if opcode.is_control() && (!fin || len > 125) {
        return Err(Violation::protocol(
            "control frame fragmented or over 125 bytes",
        ));
    }
    // A length with its top bit set is a protocol error; any length over
    // the room left is too big, whatever its encoding.
    if len >> 63 != 0 {
        return Err(Violation::protocol("frame length over 63 bits"));
    }
    let len = match usize::try_from(len) {
        Ok(len) if opcode.is_control() || len <= room => len,
        _ => return Err(Violation::TOO_BIG),
    };
    let Some(mask) = bytes.get(at..at + 4) else {
        return Ok(None);
    };
    Ok(Some(Header {
        fin,
        opcode,
        mask: mask.try_into().expect("4 bytes"),
        len,
        size: at + 4,
    }))
}

/// Unmasks `payload` in place with `mask`, eight bytes at a time.
pub(super) fn unmask(payload: &mut [u8], mask: [u8; 4]) {
    let wide = u64::from_ne_bytes([
        mask[0], mask[1], mask[2], mask[3], mask[0], mask[1], mask[2], mask[3],
    ]);
    let mut chunks = payload.chunks_exact_mut(8);
    for chunk in &mut chunks {
        let word = u64::from_ne_bytes((&*chunk).try_into().expect("8 bytes")) ^ wide;
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    for (byte, key) in chunks.into_remainder().iter_mut().zip(mask.iter().cycle()) {
        *byte ^= key;
    }
}

/// Appends a whole, unmasked frame carrying `payload` to `out`.
pub(super) fn write(out: &mut Vec<u8>, opcode: Opcode, payload: &[u8]) {
    let first = 0x80 | opcode.bits();
    match payload.len() {
        len @ 0..=125 => out.extend_from_slice(&[first, len as u8]),
        len @ 126..=0xFFFF => {
            out.extend_from_slice(&[first, 126]);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        len => {
            out.extend_from_slice(&[first, 127]);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
}

/// The payload of a close frame with `code` and `reason`.
pub(super) fn close_payload(code: u16, reason: &str) -> Vec<u8> {
    let mut payload = Vec::with_capacity(2 + reason.len());
    payload.extend_from_slice(&code.to_be_bytes());
    payload.extend_from_slice(reason.as_bytes());
    payload
}

/// Checks the payload of a close frame the peer sent: empty, or a code a
/// peer may send followed by a UTF-8 reason.
pub(super) fn check_close(payload: &[u8]) -> Result<(), Violation> {
    match payload {
        [] => Ok(()),
        [_] => Err(Violation::protocol("close frame of one byte")),
        [high, low, reason @ ..] => {
            let code = u16::from_be_bytes([*high, *low]);
            if !may_send(code) {
                return Err(Violation::protocol("close code not allowed"));
            }
            std::str::from_utf8(reason).map_err(|_| Violation::NOT_UTF8)?;
            Ok(())
        }
    }
}

/// Whether a peer may put `code` in its close frame (RFC 6455, 7.4): the
/// defined codes except those reserved for reporting (1004-1006, 1015),
/// and the ranges for libraries and applications.
fn may_send(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1011 | 3000..=4999)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's frame: `first` byte, masked with `mask`.
    fn client(first: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
        let mut frame = Vec::new();
        write(&mut frame, Opcode::Text, payload);
        frame[0] = first;
        frame[1] |= 0x80;
        let at = frame.len() - payload.len();
        frame.splice(at..at, mask);
        // Masked byte by byte, as RFC 6455 describes it.
        for (i, byte) in frame[at + 4..].iter_mut().enumerate() {
            *byte ^= mask[i % 4];
        }
        frame
    }

    #[test]
    fn reads_every_length_encoding_and_unmasks() {
        for len in [0, 5, 125, 126, 65_535, 65_536] {
            let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let frame = client(0x81, &payload, [1, 2, 3, 4]);
            let header = header(&frame, usize::MAX).unwrap().unwrap();
            assert_eq!(
                (header.fin, header.opcode, header.len),
                (true, Opcode::Text, len)
            );
            assert_eq!(header.size + len, frame.len());
            let mut body = frame[header.size..].to_vec();
            unmask(&mut body, header.mask);
            assert_eq!(body, payload, "length {len}");
        }
    }

    #[test]
    fn waits_for_the_whole_header() {
        let frame = client(0x81, &[b'x'; 300], [9, 9, 9, 9]);
        for cut in 0..8 {
            assert_eq!(header(&frame[..cut], usize::MAX), Ok(None), "cut at {cut}");
        }
        assert!(header(&frame[..8], usize::MAX).unwrap().is_some());
    }

    #[test]
    fn refuses_what_a_client_must_not_send() {
        let protocol = |frame: &[u8]| header(frame, usize::MAX).unwrap_err().code;
        assert_eq!(protocol(&[0x81, 0x00]), 1002, "unmasked");
        assert_eq!(protocol(&[0xC1, 0x80]), 1002, "RSV1");
        assert_eq!(protocol(&[0x83, 0x80]), 1002, "opcode 3");
        assert_eq!(protocol(&[0x8B, 0x80]), 1002, "opcode 11");
        assert_eq!(protocol(&[0x09, 0x80]), 1002, "fragmented ping");
        assert_eq!(protocol(&[0x89, 0xFE, 0, 126]), 1002, "ping of 126 bytes");
        let mut huge = vec![0x82, 0xFF];
        huge.extend_from_slice(&(1u64 << 63).to_be_bytes());
        assert_eq!(protocol(&huge), 1002, "64-bit length with its top bit");
    }

    #[test]
    fn refuses_a_length_over_the_room_on_the_header() {
        let mut frame = vec![0x82, 0xFF];
        frame.extend_from_slice(&(1u64 << 40).to_be_bytes());
        assert_eq!(header(&frame, 1 << 20), Err(Violation::TOO_BIG));
        let fits = client(0x81, &[b' '; 100], [0; 4]);
        assert!(header(&fits, 100).unwrap().is_some());
        assert_eq!(header(&fits, 99), Err(Violation::TOO_BIG));
    }

    #[test]
    fn writes_the_three_length_encodings() {
        for (len, header) in [(3, 2), (126, 4), (70_000, 10)] {
            let mut out = Vec::new();
            write(&mut out, Opcode::Text, &vec![b'a'; len]);
            assert_eq!(out.len(), header + len);
            assert_eq!(out[0], 0x81);
        }
    }

    #[test]
    fn close_payloads() {
        assert_eq!(check_close(&[]), Ok(()));
        assert_eq!(check_close(&close_payload(1000, "bye")), Ok(()));
        assert_eq!(check_close(&close_payload(4999, "")), Ok(()));
        assert_eq!(check_close(&[3]).unwrap_err().code, 1002);
        for code in [999, 1004, 1005, 1006, 1015, 2999, 5000] {
            assert_eq!(
                check_close(&close_payload(code, "")).unwrap_err().code,
                1002
            );
        }
        let mut bad_reason = close_payload(1000, "");
        bad_reason.push(0xFF);
        assert_eq!(check_close(&bad_reason), Err(Violation::NOT_UTF8));
    }
}
