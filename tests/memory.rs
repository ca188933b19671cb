//! What a stream reader allocates, counted by a global allocator of this
//! test binary's own (so it holds one test only: nothing else allocates).

#[path = "support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use support::harness::framing::{Event, Piece, Seen, Split, read_stream};
use typed_rpc::transport::stream::Framing;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// A mebibyte.
const MIB: usize = 1 << 20;

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes allocated at once while `stream` is read, over what was
/// allocated before, and what was read.
fn peak_while_reading(stream: Split, framing: Framing, max: usize) -> (usize, Vec<Event>) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut seen = Vec::new();
    read_stream(stream, framing, max, &[], |event| {
        seen.push(match event {
            Seen::Message(bytes) => Event::Message(bytes.len().to_le_bytes().to_vec()),
            Seen::TooLarge => Event::TooLarge,
            Seen::Error(_) => Event::Error,
        })
    })
    .unwrap();
    (PEAK.load(Ordering::Relaxed) - before, seen)
}

#[test]
fn readers_hold_what_was_sent_not_what_was_declared_or_streamed() {
    let limit = 10 * MIB;

    // A header declaring 8 MiB under a 10 MiB limit, and then only 64 KiB:
    // the reader allocated the declared 8 MiB as soon as it saw the header.
    let header = format!("Content-Length: {}\r\n\r\n", 8 * MIB).into_bytes();
    let stream = Split::new(
        vec![Piece::Bytes(header), Piece::Repeat(b'x', 64 * 1024)],
        vec![4096],
        vec![],
    );
    let (peak, seen) = peak_while_reading(stream, Framing::ContentLength, limit);
    assert!(seen.is_empty(), "{seen:?}");
    assert!(
        peak < MIB,
        "a header alone made the reader hold {peak} bytes"
    );

    // A body that does come is held whole, once.
    let header = format!("Content-Length: {}\r\n\r\n", 4 * MIB).into_bytes();
    let stream = Split::new(
        vec![Piece::Bytes(header), Piece::Repeat(b'x', 4 * MIB)],
        vec![64 * 1024],
        vec![],
    );
    let (peak, seen) = peak_while_reading(stream, Framing::ContentLength, limit);
    assert_eq!(seen, [Event::Message((4 * MIB).to_le_bytes().to_vec())]);
    assert!(
        peak < 4 * MIB * 2 + MIB,
        "a 4 MiB body made the reader hold {peak} bytes"
    );

    // 64 MiB of one endless line, and 64 MiB of an oversized body, under a
    // 1 MiB limit: skipped as they stream past, never held.
    assert_skipped_as_it_streams(
        vec![
            Piece::Repeat(b'x', 64 * MIB),
            Piece::Bytes(b"\n{}\n".to_vec()),
        ],
        Framing::Lines,
        "an endless line",
    );
    let header = format!("Content-Length: {}\r\n\r\n", 64 * MIB).into_bytes();
    assert_skipped_as_it_streams(
        vec![
            Piece::Bytes(header),
            Piece::Repeat(b'x', 64 * MIB),
            Piece::Bytes(b"Content-Length: 2\r\n\r\n{}".to_vec()),
        ],
        Framing::ContentLength,
        "an oversized body",
    );
}

/// Reads `pieces`, 64 KiB at a time, under a 1 MiB limit: the oversized
/// message is refused as too large and the `{}` after it is read, while the
/// reader never holds more than a few MiB.
fn assert_skipped_as_it_streams(pieces: Vec<Piece>, framing: Framing, what: &str) {
    let stream = Split::new(pieces, vec![64 * 1024], vec![]);
    let (peak, seen) = peak_while_reading(stream, framing, MIB);
    assert_eq!(
        seen,
        [
            Event::TooLarge,
            Event::Message(2usize.to_le_bytes().to_vec())
        ]
    );
    assert!(peak < 4 * MIB, "{what} made the reader hold {peak} bytes");
}
