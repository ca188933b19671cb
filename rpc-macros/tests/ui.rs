//! Compile-time behaviour of `#[rpc]`: every mistake a user can make is
//! reported once, where it is, with what to do (`tests/ui/fail`), and every
//! supported shape of trait expands to code that compiles (`tests/ui/pass`).
//!
//! Regenerate the expected output after changing a message with
//! `TRYBUILD=overwrite cargo test -p rpc-macros --test ui`, then read every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
