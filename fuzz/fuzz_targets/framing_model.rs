//! Streams written frame by frame (sizes around the limit, far over it,
//! blank lines, `\r\n`, header variants), split anywhere, reads abandoned
//! anywhere: the reader yields exactly the frames written, oversized ones as
//! `TooLarge`, and its memory stays bounded by the limit, not the stream.

#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use libfuzzer_sys::fuzz_target;
use typed_rpc::transport::stream::Framing;
use typed_rpc_fuzz::FramesInput;
use typed_rpc_fuzz::harness::framing::{self, Expected, MAX_HEADER_BLOCK};

/// Counts the bytes allocated, and the most at any one time.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
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

/// How much one reader may hold: a few times the largest message plus a
/// read and a header block, whatever the length of the stream.
fn memory_bound(max: usize) -> usize {
    4 * (max + 2 * 8192 + MAX_HEADER_BLOCK) + 64 * 1024
}

fuzz_target!(|input: FramesInput| {
    let frames = input.0;
    let (framing, max) = (frames.framing, frames.max);
    let total: usize = frames.pieces.iter().map(framing::Piece::len).sum();
    // The model of the whole stream must agree with the frames as written.
    if total <= 256 * 1024 {
        let bytes = framing::concat(&frames.pieces);
        let reference = framing::reference(&bytes, framing, max);
        let written: Vec<bool> = frames
            .expected
            .iter()
            .map(|e| matches!(e, Expected::TooLarge))
            .collect();
        let modelled: Vec<bool> = reference
            .iter()
            .map(|e| *e == framing::Event::TooLarge)
            .collect();
        assert_eq!(
            written, modelled,
            "{framing:?}, max {max}: the model disagrees with the writer"
        );
    }
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let bound = memory_bound(max);
    let mut worst = 0;
    let checked = frames.check(|| {
        worst = worst.max(PEAK.load(Ordering::Relaxed).saturating_sub(baseline));
    });
    worst = worst.max(PEAK.load(Ordering::Relaxed).saturating_sub(baseline));
    if let Err(err) = checked {
        panic!("{err}");
    }
    let kind = match framing {
        Framing::Lines => "lines",
        Framing::ContentLength => "content-length",
    };
    assert!(
        worst <= bound,
        "{kind}, max {max}: the reader held {worst} bytes of a {total}-byte stream (bound {bound})"
    );
});
