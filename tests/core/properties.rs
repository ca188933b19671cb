//! Properties over generated input, a short run of what the fuzz targets in
//! `fuzz/` check at length (the oracles are shared: `tests/support/harness/`):
//!
//! - the router answers every generated request and batch as the protocol
//!   says, with the exact result or error its model predicts, and hostile
//!   edits of them with a well-formed reply that echoes every id;
//! - a stream of frames split anywhere (and reads cancelled anywhere) yields
//!   exactly the frames written;
//! - what a generated client encodes, positional or named, the generated
//!   server decodes to the same values.

use crate::support;
use std::collections::HashMap;

use crate::support::harness::framing::{self, Frames, Piece, Split};
use crate::support::harness::router::model::Scenario;
use crate::support::harness::router::{self as rig, oracle, services};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use typed_rpc::client::InProcess;
use typed_rpc::transport::stream::Framing;
use typed_rpc::{Router, RpcResult, rpc};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// The router.

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn generated_requests_get_the_exact_answer(entropy in prop::collection::vec(any::<u8>(), 0..256)) {
        let router = services::router();
        let scenario = Scenario::generate(&mut support::harness::Bytes::new(&entropy));
        let reply = rig::handle(&router, scenario.text.as_bytes());
        let parsed = oracle::check(scenario.text.as_bytes(), reply.as_deref())
            .map_err(TestCaseError::fail)?;
        scenario.check(&parsed).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn hostile_edits_get_a_protocol_reply(
        entropy in prop::collection::vec(any::<u8>(), 0..256),
        edits in prop::collection::vec((any::<usize>(), 0..4u8, any::<u8>()), 1..6),
    ) {
        let router = services::router();
        let scenario = Scenario::generate(&mut support::harness::Bytes::new(&entropy));
        let mut text = scenario.text.into_bytes();
        for (at, op, byte) in edits {
            let at = at % (text.len() + 1);
            const BYTES: &[u8] = b"{}[]\",:\\ 0e-.nu";
            let byte = BYTES[byte as usize % BYTES.len()];
            match op {
                0 => text.insert(at, byte),
                1 if at < text.len() => { text.remove(at); }
                2 if at < text.len() => text[at] = byte,
                _ => text.truncate(at),
            }
        }
        let reply = rig::handle(&router, &text);
        oracle::check(&text, reply.as_deref()).map_err(TestCaseError::fail)?;
    }
}

// ---------------------------------------------------------------------------
// Framing.

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn frames_split_anywhere_are_read_as_written(entropy in prop::collection::vec(any::<u8>(), 0..512)) {
        let frames = Frames::generate(&mut support::harness::Bytes::new(&entropy), 1_500);
        frames.check(|| {}).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn any_bytes_split_anywhere_read_as_the_model_says(
        entropy in prop::collection::vec(any::<u8>(), 0..512),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        sizes in prop::collection::vec(1..64usize, 1..8),
        pending in prop::collection::vec(any::<bool>(), 0..4),
        cancels in prop::collection::vec(any::<bool>(), 0..4),
    ) {
        let frames = Frames::generate(&mut support::harness::Bytes::new(&entropy), 2_000);
        let (framing, max) = (frames.framing, frames.max);
        let mut bytes = framing::concat(&frames.pieces);
        for (at, byte) in edits {
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = b"\r\n: 1x"[byte as usize % 6];
            }
        }
        let expected = framing::reference(&bytes, framing, max);
        let whole = framing::read_events(Split::whole(vec![Piece::Bytes(bytes.clone())]), framing, max, &[])
            .map_err(TestCaseError::fail)?;
        prop_assert_eq!(&whole, &expected, "read whole");
        let split = Split::new(vec![Piece::Bytes(bytes)], sizes, pending);
        let split = framing::read_events(split, framing, max, &cancels).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&split, &expected, "read in pieces");
    }
}

// ---------------------------------------------------------------------------
// Round trips through the generated client and server.

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaf {
    pub key: String,
    pub flag: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Nested {
    pub name: String,
    pub values: Vec<i64>,
    pub ratio: f64,
    pub note: Option<String>,
    pub leaves: Vec<Leaf>,
    pub index: HashMap<String, u32>,
}

type Numbers = (i8, i16, i32, i64, u8, u16, u32, u64, i128, u128, f64, f32);
type Text = (String, char, Option<String>, Option<i64>);
type Structs = (Nested, Vec<Nested>, HashMap<String, Nested>, Option<Nested>);

/// Methods that answer with what they received.
#[rpc]
pub trait Echo {
    #[method(name = "numbers")]
    #[allow(clippy::too_many_arguments)]
    async fn numbers(
        &self,
        a: i8,
        b: i16,
        c: i32,
        d: i64,
        e: u8,
        f: u16,
        g: u32,
        h: u64,
        i: i128,
        j: u128,
        k: f64,
        l: f32,
    ) -> RpcResult<Numbers>;

    #[method(name = "text")]
    async fn text(
        &self,
        s: String,
        c: char,
        maybe: Option<String>,
        tail: Option<i64>,
    ) -> RpcResult<Text>;

    #[method(name = "structs")]
    async fn structs(
        &self,
        one: Nested,
        many: Vec<Nested>,
        by_name: HashMap<String, Nested>,
        maybe: Option<Nested>,
    ) -> RpcResult<Structs>;

    #[method(name = "whole")]
    async fn whole(&self, #[params] nested: Nested) -> RpcResult<Nested>;
}

/// The same methods, called by name: only its client is used, against
/// [`Echo`]'s server, which decodes either style.
#[rpc(param_style = "named")]
pub trait EchoNamed {
    #[method(name = "numbers")]
    #[allow(clippy::too_many_arguments)]
    async fn numbers(
        &self,
        a: i8,
        b: i16,
        c: i32,
        d: i64,
        e: u8,
        f: u16,
        g: u32,
        h: u64,
        i: i128,
        j: u128,
        k: f64,
        l: f32,
    ) -> RpcResult<Numbers>;

    #[method(name = "text")]
    async fn text(
        &self,
        s: String,
        c: char,
        maybe: Option<String>,
        tail: Option<i64>,
    ) -> RpcResult<Text>;

    #[method(name = "structs")]
    async fn structs(
        &self,
        one: Nested,
        many: Vec<Nested>,
        by_name: HashMap<String, Nested>,
        maybe: Option<Nested>,
    ) -> RpcResult<Structs>;
}

struct Mirror;

impl Echo for Mirror {
    async fn numbers(
        &self,
        a: i8,
        b: i16,
        c: i32,
        d: i64,
        e: u8,
        f: u16,
        g: u32,
        h: u64,
        i: i128,
        j: u128,
        k: f64,
        l: f32,
    ) -> RpcResult<Numbers> {
        Ok((a, b, c, d, e, f, g, h, i, j, k, l))
    }

    async fn text(
        &self,
        s: String,
        c: char,
        maybe: Option<String>,
        tail: Option<i64>,
    ) -> RpcResult<Text> {
        Ok((s, c, maybe, tail))
    }

    async fn structs(
        &self,
        one: Nested,
        many: Vec<Nested>,
        by_name: HashMap<String, Nested>,
        maybe: Option<Nested>,
    ) -> RpcResult<Structs> {
        Ok((one, many, by_name, maybe))
    }

    async fn whole(&self, nested: Nested) -> RpcResult<Nested> {
        Ok(nested)
    }
}

fn mirror() -> Router {
    Router::new(Echo::into_service(Mirror))
}

/// Finite floats (JSON has no NaN or infinity), the extremes included.
fn f64s() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("JSON carries finite numbers", |f| f.is_finite()),
        prop::sample::select(vec![
            0.0,
            -0.0,
            f64::MIN,
            f64::MAX,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            -5e-324,
            0.1,
            1e23,
            9007199254740993.0,
        ]),
    ]
}

fn f32s() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>().prop_filter("JSON carries finite numbers", |f| f.is_finite()),
        prop::sample::select(vec![
            f32::MIN,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            0.1,
            -0.0
        ]),
    ]
}

/// Any string, with quotes, escapes and controls more often than chance.
fn strings() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\"\\\\/\u{0}-\u{1f}\u{7f}\u{2028}\u{feff}é😀a]{0,12}",
    ]
}

fn leaves() -> impl Strategy<Value = Leaf> {
    (strings(), any::<bool>()).prop_map(|(key, flag)| Leaf { key, flag })
}

fn nested() -> impl Strategy<Value = Nested> {
    (
        strings(),
        prop::collection::vec(any::<i64>(), 0..4),
        f64s(),
        prop::option::of(strings()),
        prop::collection::vec(leaves(), 0..3),
        prop::collection::hash_map(strings(), any::<u32>(), 0..3),
    )
        .prop_map(|(name, values, ratio, note, leaves, index)| Nested {
            name,
            values,
            ratio,
            note,
            leaves,
            index,
        })
}

fn numbers() -> impl Strategy<Value = Numbers> {
    (
        (any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>()),
        (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>()),
        (
            prop_oneof![any::<i128>(), Just(i128::MIN), Just(i128::MAX)],
            prop_oneof![any::<u128>(), Just(u128::MAX)],
            f64s(),
            f32s(),
        ),
    )
        .prop_map(|((a, b, c, d), (e, f, g, h), (i, j, k, l))| (a, b, c, d, e, f, g, h, i, j, k, l))
}

/// Runs a client call, which over [`InProcess`] never waits.
fn run<T>(call: impl std::future::Future<Output = T>) -> T {
    support::harness::block_on(call, 16)
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn numbers_round_trip(n in numbers()) {
        let positional = EchoClient::new(InProcess::new(mirror()));
        let named = EchoNamedClient::new(InProcess::new(mirror()));
        let (a, b, c, d, e, f, g, h, i, j, k, l) = n;
        let back = run(positional.numbers(a, b, c, d, e, f, g, h, i, j, k, l));
        prop_assert_eq!(back.as_ref().ok(), Some(&n), "positional: {:?}", back);
        let back = run(named.numbers(a, b, c, d, e, f, g, h, i, j, k, l));
        prop_assert_eq!(back.as_ref().ok(), Some(&n), "named: {:?}", back);
    }

    #[test]
    fn text_round_trips(s in strings(), c in any::<char>(), maybe in prop::option::of(strings()), tail in prop::option::of(any::<i64>())) {
        let positional = EchoClient::new(InProcess::new(mirror()));
        let named = EchoNamedClient::new(InProcess::new(mirror()));
        let sent = (s.clone(), c, maybe.clone(), tail);
        let back = run(positional.text(s.clone(), c, maybe.clone(), tail));
        prop_assert_eq!(back.as_ref().ok(), Some(&sent), "positional: {:?}", back);
        let back = run(named.text(s, c, maybe, tail));
        prop_assert_eq!(back.as_ref().ok(), Some(&sent), "named: {:?}", back);
    }

}

proptest! {
    // Nested collections: fewer, larger cases.
    #![proptest_config(config(64))]

    #[test]
    fn structs_round_trip(
        one in nested(),
        many in prop::collection::vec(nested(), 0..3),
        by_name in prop::collection::hash_map(strings(), nested(), 0..3),
        maybe in prop::option::of(nested()),
    ) {
        let client = EchoClient::new(InProcess::new(mirror()));
        let named = EchoNamedClient::new(InProcess::new(mirror()));
        let sent = (one.clone(), many.clone(), by_name.clone(), maybe.clone());
        let back = run(client.structs(one.clone(), many.clone(), by_name.clone(), maybe.clone()));
        prop_assert_eq!(back.as_ref().ok(), Some(&sent), "positional: {:?}", back);
        let back = run(named.structs(one.clone(), many, by_name, maybe));
        prop_assert_eq!(back.as_ref().ok(), Some(&sent), "named: {:?}", back);
        let back = run(client.whole(one.clone()));
        prop_assert_eq!(back.as_ref().ok(), Some(&one), "whole: {:?}", back);
    }
}

// ---------------------------------------------------------------------------
// Fixed cases the generators reach only by luck.

#[test]
fn the_router_oracle_agrees_with_the_conformance_examples() {
    // A few inputs whose replies are known, to show the oracle itself judges right.
    let router = services::router();
    for (input, replies) in [
        (
            r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
            1,
        ),
        (r#"{"jsonrpc":"2.0","method":"update","params":[1]}"#, 0),
        // Whitespace first is still a notification (an oracle bug the fuzzer found).
        (
            "\r\r\r{\"jsonrpc\":\"2.0\",\"method\":\"foobar\",\"d\":\"1\"}",
            0,
        ),
        (r#"[1,2]"#, 2),
        (
            r#"[{"jsonrpc":"2.0","method":"bump","params":[1]},{"jsonrpc":"2.0","method":"x","id":"a"}]"#,
            1,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]"#,
            1,
        ),
        ("[]", 1),
    ] {
        let reply = rig::handle(&router, input.as_bytes());
        let parsed = oracle::check(input.as_bytes(), reply.as_deref()).unwrap();
        let count = match parsed {
            oracle::Reply::Nothing => 0,
            oracle::Reply::Single(_) => 1,
            oracle::Reply::Batch(all) => all.len(),
        };
        assert_eq!(count, replies, "{input}");
    }
    // And that it notices a wrong reply.
    let wrong = r#"{"jsonrpc":"2.0","result":19,"id":2}"#;
    let input = br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    assert!(oracle::check(input, Some(wrong)).is_err());
    assert!(oracle::check(input, None).is_err());
    assert!(oracle::check(br#"{"jsonrpc":"2.0","method":"update"}"#, Some(wrong)).is_err());
}

#[test]
fn framing_edge_cases_read_as_the_model_says() {
    let cases: &[(Framing, usize, &[u8])] = &[
        // A line of exactly the limit, its `\r\n` split between reads.
        (Framing::Lines, 4, b"abcd\r\nx\n"),
        // A blank line over the limit, and one under it.
        (Framing::Lines, 4, b"       \n  \n{}\n"),
        // A last line without newline, padded.
        (Framing::Lines, 8, b"{}\n  {}  "),
        // A header block longer than the reader accepts.
        (Framing::ContentLength, 16, b"X-Pad: aaaaaaaaaa\r\n\r\n"),
        (
            Framing::ContentLength,
            16,
            b"Content-Length: 2\r\n\r\n{}Content-Length: 99\r\n\r\nxx",
        ),
    ];
    for &(framing, max, bytes) in cases {
        let expected = framing::reference(bytes, framing, max);
        for size in 1..=bytes.len() {
            let split = Split::new(vec![Piece::Bytes(bytes.to_vec())], vec![size], vec![]);
            let seen = framing::read_events(split, framing, max, &[]).unwrap();
            assert_eq!(
                seen,
                expected,
                "{framing:?} {:?} in reads of {size}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
    let mut long_header = b"X-Pad: ".to_vec();
    long_header.extend(std::iter::repeat_n(b'a', framing::MAX_HEADER_BLOCK));
    long_header.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
    let expected = framing::reference(&long_header, Framing::ContentLength, 64);
    assert_eq!(expected, [framing::Event::Error]);
    for size in [1, 100, 8192, 1 << 20] {
        let split = Split::new(vec![Piece::Bytes(long_header.clone())], vec![size], vec![]);
        let seen = framing::read_events(split, Framing::ContentLength, 64, &[]).unwrap();
        assert_eq!(seen, expected, "reads of {size}");
    }
}
