//! One approval at a time per skill in this process: approvals of one skill wait their
//! turn here instead of each holding a database connection while waiting for the
//! organisation's index lock, and each rebuilds its candidate once, onto the revision the
//! previous one published. Replicas still serialise through the database lock; this only
//! keeps one process from queueing its own requests inside the pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The turn of one skill: held by its approval, shared with those waiting.
type SkillTurn = Arc<tokio::sync::Mutex<()>>;

/// Per-skill turns (see the module documentation).
#[derive(Debug, Default)]
pub struct Turns(Mutex<HashMap<(i64, String), SkillTurn>>);

/// A turn: the skill is this caller's until it is dropped.
pub struct Turn {
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Turns {
    /// Waits for the turn of `skill` in `org_id`.
    pub async fn take(&self, org_id: i64, skill: &str) -> Turn {
        let lock = {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            // Forget turns nobody holds or waits for, so the map stays small.
            map.retain(|_, lock| Arc::strong_count(lock) > 1);
            map.entry((org_id, skill.to_owned())).or_default().clone()
        };
        Turn {
            _guard: lock.lock_owned().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_turn_per_skill_at_a_time() {
        let turns = Arc::new(Turns::default());
        let first = turns.take(1, "a").await;
        // Another skill, or another organisation, is not blocked.
        let _other = turns.take(1, "b").await;
        let _elsewhere = turns.take(2, "a").await;
        let waiting = {
            let turns = turns.clone();
            tokio::spawn(async move {
                let _turn = turns.take(1, "a").await;
            })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        waiting.await.unwrap();
    }
}
