//! `cairn-pipeline`: the pure half of the patch pipeline (docs/PATCHING.md).
//!
//! Agents propose changes as ops that mirror Hermes `skill_manage`; the `patch` op says
//! "replace this `old` text with this `new` text". Agents remember files imperfectly
//! (trailing spaces, indentation, smart quotes, literal `\n`, a misremembered word), so
//! [`matcher`] finds `old` with strategies from exact to tolerant — and refuses, with the
//! closest candidates, when it is not sure, because a silent edit of the wrong block is
//! worse than asking the agent to retry.
//!
//! Pure: strings in, strings out; no IO, no async.

#![forbid(unsafe_code)]

pub mod apply;
pub mod diff;
pub mod lesson;
pub mod matcher;
pub mod merge;
pub mod ops;
pub mod policy;
pub mod rebase;
pub mod report;
pub mod resolve;
pub mod stages;

pub use matcher::{Applied, Candidate, Edit, LineDifference, MatchError, Strategy, apply};
