//! Request rate limits per token and per client address (GCRA, via `governor`), with the
//! numbers clients need to pace themselves (`RateLimit-*`, `Retry-After`).

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{Quota, RateLimiter};
use uuid::Uuid;

/// A limit of `count` requests per `period`, allowed in bursts of up to `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// Requests per period (also the burst size).
    pub count: NonZeroU32,
    /// The period.
    pub period: Duration,
}

impl Limit {
    /// Parses `N/s`, `N/min`, `N/h` (e.g. `1200/min`); `off` means no limit (`None`).
    pub fn parse(text: &str) -> Result<Option<Limit>, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        let invalid = || format!("'{text}' is not a rate limit: write it like 1200/min, 50/s or 10000/h, or 'off'");
        let (count, unit) = text.split_once('/').ok_or_else(invalid)?;
        let count: NonZeroU32 = count.trim().parse().map_err(|_| invalid())?;
        let period = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(invalid()),
        };
        Ok(Some(Limit { count, period }))
    }

    fn quota(self) -> Quota {
        let interval = self.period / self.count.get();
        Quota::with_period(interval.max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(self.count))
            .allow_burst(self.count)
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.period.as_secs() {
            1 => write!(f, "{}/s", self.count),
            60 => write!(f, "{}/min", self.count),
            3600 => write!(f, "{}/h", self.count),
            s => write!(f, "{}/{s}s", self.count),
        }
    }
}

/// The configured limits (`None`: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// Per API token.
    pub per_token: Option<Limit>,
    /// Per client address (every request, authenticated or not).
    pub per_address: Option<Limit>,
    /// Proposals (new patches and new rounds, over any transport) per API token: every
    /// one runs the pipeline and lands in a person's queue, and skill text can talk an
    /// agent into proposing, so they have a budget of their own, far below requests'.
    pub proposals_per_token: Option<Limit>,
    /// Proposals per user, over all of the user's tokens: a token per agent keeps one
    /// agent's flood from stopping another's lessons, and this ceiling keeps a user from
    /// multiplying the budget by minting tokens.
    pub proposals_per_user: Option<Limit>,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            proposals_per_token: Some(Limit {
                count: NonZeroU32::new(120).unwrap_or(NonZeroU32::MIN),
                period: Duration::from_secs(3600),
            }),
            proposals_per_user: Some(Limit {
                count: NonZeroU32::new(600).unwrap_or(NonZeroU32::MIN),
                period: Duration::from_secs(3600),
            }),
            per_token: Some(Limit {
                count: NonZeroU32::new(1200).unwrap_or(NonZeroU32::MIN),
                period: Duration::from_secs(60),
            }),
            per_address: Some(Limit {
                count: NonZeroU32::new(6000).unwrap_or(NonZeroU32::MIN),
                period: Duration::from_secs(60),
            }),
        }
    }
}

/// How much of a limit is left, for the `RateLimit-*` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The burst size.
    pub limit: u32,
    /// Requests left right now.
    pub remaining: u32,
    /// Until the budget is full again.
    pub reset: Duration,
}

/// A refused request: which limit, and when to retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limited {
    /// `token`, `address`, `proposals` (the token's) or `user proposals`.
    pub key: &'static str,
    /// The limit that was hit.
    pub limit: Limit,
    /// When one more request will be allowed.
    pub retry_after: Duration,
    /// When the whole budget will be back.
    pub full_after: Duration,
}

type Keyed<K> =
    RateLimiter<K, governor::state::keyed::DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;

struct KeyedLimit<K: Hash + Eq + Clone> {
    limit: Limit,
    limiter: Keyed<K>,
}

impl<K: Hash + Eq + Clone> KeyedLimit<K> {
    fn new(limit: Limit) -> Self {
        KeyedLimit {
            limit,
            limiter: RateLimiter::keyed(limit.quota()).with_middleware::<StateInformationMiddleware>(),
        }
    }

    /// Forgets keys whose budget is full again.
    fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    fn check(&self, key: &K, name: &'static str) -> Result<Budget, Limited> {
        let interval = self.limit.period / self.limit.count.get();
        match self.limiter.check_key(key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let used = self.limit.count.get().saturating_sub(remaining);
                Ok(Budget {
                    limit: self.limit.count.get(),
                    remaining,
                    reset: interval * used,
                })
            }
            Err(not_until) => {
                let retry_after = not_until.wait_time_from(DefaultClock::default().now());
                Err(Limited {
                    key: name,
                    limit: self.limit,
                    retry_after,
                    full_after: retry_after + interval * (self.limit.count.get() - 1),
                })
            }
        }
    }
}

/// The limiters of one registry process.
pub struct RateLimiters {
    per_token: Option<KeyedLimit<Uuid>>,
    per_address: Option<KeyedLimit<IpAddr>>,
    proposals_per_token: Option<KeyedLimit<Uuid>>,
    proposals_per_user: Option<KeyedLimit<i64>>,
}

impl RateLimiters {
    /// Limiters for `limits`.
    pub fn new(limits: RateLimits) -> Self {
        RateLimiters {
            per_token: limits.per_token.map(KeyedLimit::new),
            per_address: limits.per_address.map(KeyedLimit::new),
            proposals_per_token: limits.proposals_per_token.map(KeyedLimit::new),
            proposals_per_user: limits.proposals_per_user.map(KeyedLimit::new),
        }
    }

    /// Counts a proposal (a new patch or round) made with token `token_id` of user
    /// `user_id`, against the token's budget and then the user's ceiling. The token comes
    /// first so that a flooding token's refused attempts never use up the ceiling its
    /// user's other agents share.
    pub fn check_proposal(&self, token_id: Uuid, user_id: i64) -> Result<Option<Budget>, Limited> {
        let token = self
            .proposals_per_token
            .as_ref()
            .map(|l| l.check(&token_id, "proposals"))
            .transpose()?;
        let user = self
            .proposals_per_user
            .as_ref()
            .map(|l| l.check(&user_id, "user proposals"))
            .transpose()?;
        Ok(tighter(token, user))
    }

    /// Counts a request from `address`.
    pub fn check_address(&self, address: IpAddr) -> Result<Option<Budget>, Limited> {
        self.per_address
            .as_ref()
            .map(|l| l.check(&address, "address"))
            .transpose()
    }

    /// Counts a request made with token `token_id`.
    pub fn check_token(&self, token_id: Uuid) -> Result<Option<Budget>, Limited> {
        self.per_token.as_ref().map(|l| l.check(&token_id, "token")).transpose()
    }

    /// Forgets keys whose budget is full again, so memory follows the number of recent
    /// clients rather than every client ever seen. Run periodically.
    pub fn forget_idle(&self) {
        if let Some(l) = &self.per_token {
            l.forget_idle();
        }
        if let Some(l) = &self.per_address {
            l.forget_idle();
        }
        if let Some(l) = &self.proposals_per_token {
            l.forget_idle();
        }
        if let Some(l) = &self.proposals_per_user {
            l.forget_idle();
        }
    }
}

/// The tighter of two budgets (the one with fewer requests left).
pub fn tighter(a: Option<Budget>, b: Option<Budget>) -> Option<Budget> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.remaining < a.remaining { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_with_their_units_and_bad_ones_say_how_to_write_them() {
        let l = Limit::parse("1200/min").unwrap().unwrap();
        assert_eq!((l.count.get(), l.period), (1200, Duration::from_secs(60)));
        assert_eq!(l.to_string(), "1200/min");
        assert_eq!(Limit::parse("off").unwrap(), None);
        assert_eq!(Limit::parse(" 5/s ").unwrap().unwrap().to_string(), "5/s");
        for bad in ["", "0/min", "-1/s", "10", "10/day", "x/min"] {
            assert!(Limit::parse(bad).unwrap_err().contains("1200/min"), "{bad}");
        }
    }

    #[test]
    fn a_burst_is_allowed_then_refused_with_a_retry_time() {
        let limiters = RateLimiters::new(RateLimits {
            per_token: Limit::parse("3/min").unwrap(),
            per_address: None,
            proposals_per_token: Limit::parse("2/h").unwrap(),
            proposals_per_user: Limit::parse("3/h").unwrap(),
        });
        let id = Uuid::new_v4();
        let remaining: Vec<u32> = (0..3)
            .map(|_| limiters.check_token(id).unwrap().unwrap().remaining)
            .collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let limited = limiters.check_token(id).unwrap_err();
        assert_eq!(limited.key, "token");
        assert!(limited.retry_after > Duration::from_secs(15) && limited.retry_after <= Duration::from_secs(20));
        // Another token has its own budget; addresses are unlimited here.
        assert!(limiters.check_token(Uuid::new_v4()).is_ok());
        assert_eq!(limiters.check_address(IpAddr::from([127, 0, 0, 1])), Ok(None));
        // Proposals have their own, smaller budget, counted apart from requests.
        assert!(limiters.check_proposal(id, 7).is_ok() && limiters.check_proposal(id, 7).is_ok());
        let limited = limiters.check_proposal(id, 7).unwrap_err();
        assert_eq!(limited.key, "proposals");
        assert!(limited.retry_after > Duration::from_secs(1700), "{limited:?}");
        // A second token of the same user has its own budget, under the user's ceiling
        // (the refused third proposal above did not count against it).
        let second = Uuid::new_v4();
        assert_eq!(limiters.check_proposal(second, 7).unwrap().unwrap().remaining, 0);
        let limited = limiters.check_proposal(second, 7).unwrap_err();
        assert_eq!(limited.key, "user proposals");
        // Another user is not touched by it.
        assert!(limiters.check_proposal(Uuid::new_v4(), 8).is_ok());
    }
}
