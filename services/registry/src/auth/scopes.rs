//! Scopes: the permissions a token carries and a role grants. The vocabulary of
//! authorization, shared by token issuing (`app::accounts`), authentication and the
//! gate (`access`).

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

    /// What `role` grants (docs/ACCESS.md): each role includes the ones below it.
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
