//! Placeholder replaced by the benchmark suite (criterion) in the next commit.
fn main() {}
