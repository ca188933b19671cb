//! What the fuzz targets share: the hostile-input harness of the root test
//! suite (`tests/support/harness/`, included here so its oracles exist once), fed
//! from libFuzzer's input through `arbitrary`.

#[path = "../../tests/support/harness/mod.rs"]
pub mod harness;

use arbitrary::{Arbitrary, Unstructured};

use harness::Gen;
use harness::framing::Frames;
use harness::router::model::Scenario;

/// The harness's generators drawing from libFuzzer's input.
pub struct Entropy<'u, 'a>(pub &'u mut Unstructured<'a>);

impl Gen for Entropy<'_, '_> {
    fn byte(&mut self) -> u8 {
        u8::arbitrary(self.0).unwrap_or(0)
    }
}

/// A request or batch from the model, with the exact reply it must get.
#[derive(Debug)]
pub struct RouterInput(pub Scenario);

impl<'a> Arbitrary<'a> for RouterInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(RouterInput(Scenario::generate(&mut Entropy(u))))
    }
}

/// The largest frame [`FramesInput`] writes: far over every limit it picks
/// and over what a reader may hold, so holding a whole oversized frame shows.
pub const FRAME_LIMIT: usize = 4 << 20;

/// A stream of frames from the model, with how it is split and read.
#[derive(Debug)]
pub struct FramesInput(pub Frames);

impl<'a> Arbitrary<'a> for FramesInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(FramesInput(Frames::generate(&mut Entropy(u), FRAME_LIMIT)))
    }
}
