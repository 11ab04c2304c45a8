//! The *policy* stage and who may review: `dangerous` is blocked whoever submits; an
//! organisation may auto-approve `safe` patches from named trusted authors; authors do
//! not approve their own patches unless an admin allows it.

use cairn_scanner::Verdict;
use serde::{Deserialize, Serialize};

/// An organisation's patch policy.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Whether an author may approve their own patch (default: no).
    pub authors_may_approve_own: bool,
    /// Authors (user handles) whose `safe` patches are approved without review.
    pub auto_approve_safe_from: Vec<String>,
}

/// What the policy stage decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// `dangerous`: never published.
    Blocked,
    /// Waits for a reviewer.
    PendingReview,
    /// `safe` from a trusted author: published without review.
    AutoApprove,
}

impl Decision {
    /// The decision's name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Blocked => "blocked",
            Decision::PendingReview => "pending_review",
            Decision::AutoApprove => "auto_approve",
        }
    }
}

/// The decision for a scanned patch by `author`.
pub fn decide(verdict: Verdict, author: &str, policy: &Policy) -> Decision {
    match verdict {
        Verdict::Dangerous => Decision::Blocked,
        Verdict::Safe if policy.auto_approve_safe_from.iter().any(|a| a == author) => Decision::AutoApprove,
        Verdict::Safe | Verdict::Caution => Decision::PendingReview,
    }
}

/// Why a reviewer may not approve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReviewRefusal {
    /// Authors do not review their own patches here.
    #[error(
        "you wrote this patch: another reviewer must approve it (an admin can allow self-approval in the organisation's policy)"
    )]
    OwnPatch,
}

/// Whether `reviewer` may approve a patch by `author` under `policy` (the reviewer role
/// itself is checked by the access layer).
pub fn may_approve(reviewer: &str, author: &str, policy: &Policy) -> Result<(), ReviewRefusal> {
    if reviewer == author && !policy.authors_may_approve_own {
        return Err(ReviewRefusal::OwnPatch);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dangerous_is_blocked_whoever_submits_and_safe_trusted_is_auto_approved() {
        let policy = Policy {
            auto_approve_safe_from: vec!["ana".into()],
            ..Policy::default()
        };
        assert_eq!(decide(Verdict::Dangerous, "ana", &policy), Decision::Blocked);
        assert_eq!(decide(Verdict::Safe, "ana", &policy), Decision::AutoApprove);
        assert_eq!(decide(Verdict::Caution, "ana", &policy), Decision::PendingReview);
        assert_eq!(decide(Verdict::Safe, "bo", &policy), Decision::PendingReview);
        assert_eq!(
            decide(Verdict::Safe, "ana", &Policy::default()),
            Decision::PendingReview
        );
    }

    #[test]
    fn authors_approve_their_own_patches_only_when_allowed() {
        assert_eq!(
            may_approve("ana", "ana", &Policy::default()),
            Err(ReviewRefusal::OwnPatch)
        );
        assert_eq!(may_approve("bo", "ana", &Policy::default()), Ok(()));
        let lenient = Policy {
            authors_may_approve_own: true,
            ..Policy::default()
        };
        assert_eq!(may_approve("ana", "ana", &lenient), Ok(()));
        let parsed: Policy = serde_json::from_str(r#"{"auto_approve_safe_from": ["ana"]}"#).unwrap();
        assert!(!parsed.authors_may_approve_own);
        assert!(serde_json::from_str::<Policy>(r#"{"typo": true}"#).is_err());
    }
}
