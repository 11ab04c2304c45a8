//! Small builders shared by the test modules (from the test-support crate).

pub use cairn_test_support::skills::*;
