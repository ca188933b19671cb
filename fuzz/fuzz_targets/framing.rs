//! Any bytes through `FramedReader`, both framings, read whole and in pieces
//! of any size with reads refused and abandoned anywhere: no panic, no hang,
//! and both readings yield exactly what the reference model finds in the bytes.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use typed_rpc::transport::stream::Framing;
use typed_rpc_fuzz::harness::framing::{self, Piece, Split};

#[derive(Debug, Arbitrary)]
struct Input {
    content_length: bool,
    max: u16,
    sizes: Vec<u16>,
    pending: Vec<bool>,
    cancels: Vec<bool>,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let framing = match input.content_length {
        true => Framing::ContentLength,
        false => Framing::Lines,
    };
    let max = 1 + usize::from(input.max) % 512;
    let sizes = input.sizes.iter().map(|&s| usize::from(s)).collect();
    let expected = framing::reference(&input.data, framing, max);
    let whole = Split::whole(vec![Piece::Bytes(input.data.clone())]);
    let whole =
        framing::read_events(whole, framing, max, &[]).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(whole, expected, "read whole, {framing:?}, max {max}");
    let split = Split::new(vec![Piece::Bytes(input.data)], sizes, input.pending);
    let split = framing::read_events(split, framing, max, &input.cancels)
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(split, expected, "read in pieces, {framing:?}, max {max}");
});
