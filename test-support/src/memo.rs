//! Each provisioning step at most once per process and key: the tests of
//! one binary run on many threads, and all but the first wait for its
//! outcome (a failure too, so a missing tool is reported, not retried).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::Result;

type Outcome = Arc<OnceLock<Result<PathBuf>>>;

/// The outcome of `step` for `key`: run now if no thread of this process
/// has run it yet, else the outcome that run had.
pub(crate) fn once(key: String, step: impl FnOnce() -> Result<PathBuf>) -> Result<PathBuf> {
    static OUTCOMES: OnceLock<Mutex<HashMap<String, Outcome>>> = OnceLock::new();
    let outcome = OUTCOMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .entry(key)
        .or_default()
        .clone();
    // Outside the map's lock: steps for other keys go on meanwhile.
    outcome.get_or_init(step).clone()
}
