//! Pure rendering for the pages: untrusted Markdown made safe to show, and diffs laid out
//! for reviewers (line numbers, side by side, scanner findings and comment threads at their
//! lines). No I/O.

pub mod conversation;
pub mod diff;
pub mod markdown;
