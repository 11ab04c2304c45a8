//! Who may do what: scopes, what each role grants, and the check every route goes
//! through. The per-route requirements live in one table (`http::routes`); this module
//! holds the vocabulary and the decision.
//!
//! A request is allowed when the route's scope is in the caller's *effective* scopes:
//! the token's scopes intersected with what the user's role grants **now** (so a demoted
//! user's old tokens lose their power at once, whatever their claims say).

use std::fmt;

use cairn_store::Role;

/// One permission a route can require and a token can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Read skills, versions, files, the index and blobs; manage one's own tokens.
    Read,
    /// Propose changes (patches).
    Submit,
    /// Approve or reject patches, publish directly, yank and unyank versions.
    Review,
    /// Manage users and every token of the organisation; read the audit log.
    Admin,
}

impl Scope {
    /// Every scope, weakest first.
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Submit, Scope::Review, Scope::Admin];

    /// The scope's name as stored in token rows and claims.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Submit => "submit",
            Scope::Review => "review",
            Scope::Admin => "admin",
        }
    }

    /// Parses a scope name.
    pub fn parse(name: &str) -> Result<Scope, String> {
        Scope::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| format!("unknown scope '{name}': use read, submit, review or admin"))
    }

    const fn bit(self) -> u8 {
        match self {
            Scope::Read => 1,
            Scope::Submit => 2,
            Scope::Review => 4,
            Scope::Admin => 8,
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of scopes (a bit set: checking one costs nothing on the request path).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(u8);

impl ScopeSet {
    /// No scope at all.
    pub const EMPTY: ScopeSet = ScopeSet(0);

    /// What `role` grants (DESIGN §4): each role includes the ones below it.
    pub const fn of_role(role: Role) -> ScopeSet {
        match role {
            Role::Admin => ScopeSet(1 | 2 | 4 | 8),
            Role::Reviewer => ScopeSet(1 | 2 | 4),
            Role::Member => ScopeSet(1 | 2),
            Role::Reader => ScopeSet(1),
        }
    }

    /// Builds a set from scope names; unknown names are an error naming them.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<ScopeSet, String> {
        names
            .iter()
            .try_fold(ScopeSet::EMPTY, |set, name| Ok(set.with(Scope::parse(name.as_ref())?)))
    }

    /// Builds a set from stored names, ignoring any this version does not know.
    pub fn from_stored<S: AsRef<str>>(names: &[S]) -> ScopeSet {
        names
            .iter()
            .filter_map(|n| Scope::parse(n.as_ref()).ok())
            .fold(ScopeSet::EMPTY, ScopeSet::with)
    }

    /// This set plus `scope`.
    pub const fn with(self, scope: Scope) -> ScopeSet {
        ScopeSet(self.0 | scope.bit())
    }

    /// Whether `scope` is in the set.
    pub const fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// The scopes in both sets.
    pub const fn intersect(self, other: ScopeSet) -> ScopeSet {
        ScopeSet(self.0 & other.0)
    }

    /// Whether every scope of `self` is in `other`.
    pub const fn is_subset(self, other: ScopeSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes, weakest first.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// The scope names, weakest first (as stored and shown).
    pub fn names(self) -> Vec<String> {
        self.iter().map(|s| s.as_str().to_owned()).collect()
    }
}

impl fmt::Debug for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Scope::as_str).collect();
        f.write_str(&names.join(", "))
    }
}

/// What a route requires of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without a token (health probes).
    Public,
    /// A valid token carrying this scope (after the role has capped it).
    Scope(Scope),
    /// The discovery and download endpoints other skill clients read
    /// (`/.well-known/…`): a token with `read`, or no token at all when the organisation
    /// opened them to anonymous clients.
    Discovery,
}

/// Why an authenticated caller may not use a route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Denied {
    /// The user's role does not grant the scope.
    #[error(
        "this needs the '{needed}' permission, which the role '{role}' does not have: ask an admin of your organisation"
    )]
    Role {
        /// The scope the route needs.
        needed: Scope,
        /// The caller's current role.
        role: Role,
    },
    /// The role would allow it, but the token was issued with fewer scopes.
    #[error(
        "this needs the '{needed}' scope and this token only has: {granted}; issue a token with the '{needed}' scope"
    )]
    TokenScope {
        /// The scope the route needs.
        needed: Scope,
        /// The token's effective scopes.
        granted: ScopeSet,
    },
}

/// Decides whether a caller with `role` and token scopes `token_scopes` may use a route
/// requiring `access`. Pure and allocation-free: it runs on every request.
pub fn authorize(access: Access, role: Role, token_scopes: ScopeSet) -> Result<(), Denied> {
    let needed = match access {
        Access::Public => return Ok(()),
        Access::Scope(needed) => needed,
        Access::Discovery => Scope::Read,
    };
    let by_role = ScopeSet::of_role(role);
    if !by_role.contains(needed) {
        return Err(Denied::Role { needed, role });
    }
    if !token_scopes.contains(needed) {
        return Err(Denied::TokenScope {
            needed,
            granted: token_scopes.intersect(by_role),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_grant_their_scopes_and_the_ones_below() {
        for (role, expected) in [
            (Role::Reader, "read"),
            (Role::Member, "read, submit"),
            (Role::Reviewer, "read, submit, review"),
            (Role::Admin, "read, submit, review, admin"),
        ] {
            assert_eq!(ScopeSet::of_role(role).to_string(), expected);
        }
    }

    #[test]
    fn the_role_caps_the_token_and_the_token_caps_the_role() {
        let all = ScopeSet::of_role(Role::Admin);
        // An admin token of a user since demoted to member.
        assert_eq!(
            authorize(Access::Scope(Scope::Admin), Role::Member, all),
            Err(Denied::Role {
                needed: Scope::Admin,
                role: Role::Member
            })
        );
        // A read-only CI token of an admin.
        let read = ScopeSet::EMPTY.with(Scope::Read);
        let denied = authorize(Access::Scope(Scope::Review), Role::Admin, read).unwrap_err();
        assert!(denied.to_string().contains("only has: read"), "{denied}");
        assert_eq!(authorize(Access::Scope(Scope::Read), Role::Admin, read), Ok(()));
        assert_eq!(authorize(Access::Public, Role::Reader, ScopeSet::EMPTY), Ok(()));
    }

    #[test]
    fn scope_names_round_trip_and_unknown_names_are_refused() {
        let set = ScopeSet::parse(&["admin", "read"]).unwrap();
        assert_eq!(set.names(), vec!["read", "admin"]);
        assert!(
            ScopeSet::parse(&["write"])
                .unwrap_err()
                .contains("unknown scope 'write'")
        );
        assert_eq!(
            ScopeSet::from_stored(&["read", "future"]),
            ScopeSet::EMPTY.with(Scope::Read)
        );
        assert!(ScopeSet::EMPTY.with(Scope::Read).is_subset(set));
        assert!(!ScopeSet::of_role(Role::Member).is_subset(set));
    }
}
