//! Failures on request, for the tests of what a panic or a trap leaves behind. Compiled only with
//! the `test-hooks` feature, which only the test package (scripts/build-test-pkg.sh) has: no
//! package a user installs can be made to fail this way.
//!
//! A message body names the failure, so a test reaches it from every way in (`engine.dispatch`,
//! the typed calls, the SDK over HTTP) without an entry point of its own.

/// Panics or traps when a sent message's body asks for it.
pub fn on_send(body: &str) {
    match body {
        "wasq-test-panic" => panic!("test hook: a panic on request"),
        // A trap with no panic before it, as when memory is exhausted: no message to report.
        "wasq-test-abort" => std::process::abort(),
        _ => {}
    }
}
