//! A document committed as a file, for `openrpc!` (which reads files at
//! compile time), kept equal to what its trait produces now.

/// Fails unless the file `fixture` (relative to the repository) holds
/// `now`, pretty-printed; with `UPDATE_FIXTURES` set, writes it first.
pub fn assert_current(fixture: &str, now: &serde_json::Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
    let now = serde_json::to_string_pretty(now).unwrap() + "\n";
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == now,
        "{fixture} is stale: rerun this test with UPDATE_FIXTURES=1 and commit the file"
    );
}
