//! The admin subcommands of the `cairn-registry` binary (organisations, users, tokens,
//! signing keys). They run against the same database as `serve` — also while it runs —
//! and go through the same application services as the REST API.

use std::time::Duration;

use anyhow::{Context, Result};
use cairn_registry::app::accounts::{self, AccountError, Issuer, TokenSpec};
use cairn_registry::auth;
use cairn_registry::bootstrap;
use cairn_registry::config::{Config, parse_ttl};
use cairn_registry::runtime::Runtime;
use cairn_store::{Actor, Organization, Role, StoreError, UserUpdate};
use clap::Subcommand;

/// `cairn-registry org …`
#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Create an organisation (a tenant: its skills, users and tokens are its own).
    Add {
        /// URL-safe name: lowercase letters, digits and '-'.
        slug: String,
        /// Display name (default: the slug).
        #[arg(long)]
        name: Option<String>,
    },
    /// List organisations.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change an organisation's settings.
    Set {
        /// The organisation.
        slug: String,
        /// `on`: clients without a token may read its discovery and download endpoints
        /// (`/.well-known/skills/…`, `/.well-known/agent-skills/…`); `off` closes them.
        #[arg(long, value_parser = parse_switch, action = clap::ArgAction::Set, value_name = "on|off")]
        anonymous_read: bool,
    },
}

/// Parses `on` / `off`.
fn parse_switch(raw: &str) -> Result<bool, String> {
    match raw {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("'{other}' is not a setting: use on or off")),
    }
}

/// `cairn-registry user …`
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user.
    Add {
        /// The user's handle.
        handle: String,
        /// admin, reviewer, member or reader.
        #[arg(long, value_parser = parse_role)]
        role: Role,
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
    },
    /// List an organisation's users.
    List {
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change a user's role (effective at once for all their tokens).
    SetRole {
        /// The user's handle.
        handle: String,
        /// admin, reviewer, member or reader.
        #[arg(value_parser = parse_role)]
        role: Role,
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
    },
    /// Disable a user: their tokens stop working at once.
    Disable {
        /// The user's handle.
        handle: String,
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
    },
    /// Enable a disabled user again (their unexpired, unrevoked tokens work again).
    Enable {
        /// The user's handle.
        handle: String,
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
    },
}

/// `cairn-registry token …`
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Issue a token for a user and print it (only it) on stdout.
    Issue {
        /// The owner's handle.
        #[arg(long)]
        user: String,
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
        /// Lifetime, e.g. 30d, 12h (default: CAIRN_TOKEN_DEFAULT_TTL, 30d).
        #[arg(long, value_parser = parse_ttl)]
        ttl: Option<Duration>,
        /// A label, e.g. laptop or ci.
        #[arg(long)]
        name: Option<String>,
        /// Limit the token to these scopes (repeat; default: all of the user's role).
        #[arg(long = "scope")]
        scopes: Vec<String>,
    },
    /// Revoke a token by id (it stops working at once).
    Revoke {
        /// The token's id (from `token list` or GET /v1/tokens).
        id: uuid::Uuid,
    },
    /// List an organisation's active tokens.
    List {
        /// Organisation.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
        /// Only this user's tokens.
        #[arg(long)]
        user: Option<String>,
        /// Include revoked and expired tokens.
        #[arg(long)]
        all: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `cairn-registry key …`
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Replace the token secret (which signs API tokens) in the data directory. Restart
    /// the server afterwards. The attestation key has `generate`, `activate`, `revoke`.
    Rotate {
        /// Keep accepting tokens signed with the old key until they expire (without this,
        /// every token issued so far stops working: use that when the key leaked).
        #[arg(long)]
        keep_old: bool,
    },
    /// Write a new Ed25519 attestation key (PKCS#8 PEM, mode 0600) to a file; nothing
    /// else changes until it is activated.
    Generate {
        /// Where to write it (must not exist).
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// The attestation keys the log has known, with their status.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Make the key in FILE the active attestation key: the configured (current) key is
    /// retired — what it signed stays valid — and the activation is signed by both. Then
    /// give every replica the new key and restart it.
    Activate {
        /// The new key (from `key generate`).
        file: std::path::PathBuf,
    },
    /// Revoke a retired attestation key (it leaked): its signatures count only on log
    /// entries below the revocation index. Signed by the active key.
    Revoke {
        /// The key id (`key list`).
        key_id: String,
        /// The first log index whose signature by this key is not trusted (default: the
        /// log's size now: what it signed so far stays valid).
        #[arg(long)]
        after_index: Option<u64>,
    },
}

fn parse_role(text: &str) -> Result<Role, String> {
    text.parse()
}

/// What to do after "does not exist" about a user.
const NO_SUCH_USER: &str = "`cairn-registry user list` shows the users, `cairn-registry user add` adds one";

/// Maps an account error to a message for the operator; `next` (what to do instead) is
/// added to "does not exist" and "already exists" errors.
fn explain(error: AccountError, next: &str) -> anyhow::Error {
    match error {
        AccountError::NotFound(what) => anyhow::anyhow!("{what} does not exist: {next}"),
        AccountError::Conflict(message) if !next.is_empty() => anyhow::anyhow!("{message}: {next}"),
        AccountError::Store(e) => anyhow::Error::new(e).context("the database failed"),
        AccountError::Internal(e) => anyhow::Error::new(e),
        other => anyhow::anyhow!("{other}"),
    }
}

pub(crate) async fn org(rt: &Runtime, slug: &str) -> Result<Organization> {
    rt.store.org_by_slug(slug).await.map_err(|e| match e {
        StoreError::NotFound(_) => anyhow::anyhow!(
            "organisation '{slug}' does not exist: check --org, or create it with `cairn-registry org add {slug}`"
        ),
        other => anyhow::Error::new(other).context("looking up the organisation"),
    })
}

/// Runs `f` with an opened runtime and closes it whatever happens.
pub(crate) async fn with_runtime<T>(config: &Config, f: impl AsyncFnOnce(&Runtime) -> Result<T>) -> Result<T> {
    let rt = crate::open(config, false).await?;
    let result = f(&rt).await;
    rt.close().await;
    result
}

/// `cairn-registry org …`
pub async fn run_org(config: &Config, command: OrgCommand) -> Result<()> {
    with_runtime(config, async |rt| match command {
        OrgCommand::Add { slug, name } => {
            let org = accounts::add_org(&rt.store, &slug, name.as_deref(), &Actor::cli("org add"))
                .await
                .map_err(|e| {
                    explain(
                        e,
                        "choose another slug (`cairn-registry org list` shows the taken ones)",
                    )
                })?;
            println!("created organisation '{}'", org.slug);
            println!("next: cairn-registry user add <handle> --role admin --org {}", org.slug);
            Ok(())
        }
        OrgCommand::List { json } => {
            let orgs = rt.store.list_orgs().await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&orgs)?);
            } else {
                for org in orgs {
                    let anonymous = if org.anonymous_read {
                        "anonymous-read"
                    } else {
                        "token-only"
                    };
                    println!(
                        "{}\t{}\t{}\t{anonymous}",
                        org.slug,
                        org.name,
                        org.created_at.to_rfc3339()
                    );
                }
            }
            Ok(())
        }
        OrgCommand::Set { slug, anonymous_read } => {
            let org = org(rt, &slug).await?;
            let org = rt
                .store
                .set_anonymous_read(org.id, anonymous_read, &Actor::cli("org set"))
                .await?;
            if org.anonymous_read {
                println!(
                    "'{}' now serves its discovery endpoints to clients without a token",
                    org.slug
                );
            } else {
                println!(
                    "'{}' now serves its discovery endpoints to token holders only",
                    org.slug
                );
            }
            Ok(())
        }
    })
    .await
}

/// `cairn-registry user …`
pub async fn run_user(config: &Config, command: UserCommand) -> Result<()> {
    with_runtime(config, async |rt| match command {
        UserCommand::Add {
            handle,
            role,
            org: slug,
        } => {
            let org = org(rt, &slug).await?;
            let user = accounts::add_user(&rt.store, org.id, &handle, role, &Actor::cli("user add"))
                .await
                .map_err(|e| {
                    explain(
                        e,
                        "choose another handle, or change the existing user with `cairn-registry user set-role`",
                    )
                })?;
            println!("added '{}' to '{}' as {}", user.handle, org.slug, user.role);
            println!(
                "next: cairn-registry token issue --user {} --org {}",
                user.handle, org.slug
            );
            Ok(())
        }
        UserCommand::List { org: slug, json } => {
            let org = org(rt, &slug).await?;
            let mut users = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let page = rt.store.list_users(org.id, after.as_deref(), 500).await?;
                let done = page.len() < 500;
                after = page.last().map(|u| u.handle.clone());
                users.extend(page);
                if done {
                    break;
                }
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&users)?);
            } else {
                for u in users {
                    let state = if u.disabled { "disabled" } else { "active" };
                    println!("{}\t{}\t{}", u.handle, u.role, state);
                }
            }
            Ok(())
        }
        UserCommand::SetRole { handle, role, org } => {
            let change = UserUpdate {
                role: Some(role),
                disabled: None,
            };
            update(rt, &org, &handle, change, "user set-role").await
        }
        UserCommand::Disable { handle, org } => {
            let change = UserUpdate {
                role: None,
                disabled: Some(true),
            };
            update(rt, &org, &handle, change, "user disable").await
        }
        UserCommand::Enable { handle, org } => {
            let change = UserUpdate {
                role: None,
                disabled: Some(false),
            };
            update(rt, &org, &handle, change, "user enable").await
        }
    })
    .await
}

async fn update(rt: &Runtime, slug: &str, handle: &str, change: UserUpdate, command: &str) -> Result<()> {
    let org = org(rt, slug).await?;
    let user = accounts::update_user(&rt.store, org.id, handle, change, &Actor::cli(command))
        .await
        .map_err(|e| explain(e, NO_SUCH_USER))?;
    let state = if user.disabled { "disabled" } else { "active" };
    println!("'{}' in '{}' is now {} ({state})", user.handle, org.slug, user.role);
    Ok(())
}

/// `cairn-registry token …`
pub async fn run_token(config: &Config, command: TokenCommand) -> Result<()> {
    with_runtime(config, async |rt| match command {
        TokenCommand::Issue {
            user,
            org: slug,
            ttl,
            name,
            scopes,
        } => {
            let org = org(rt, &slug).await?;
            let owner = rt.store.user_by_handle(org.id, &user).await.map_err(|e| match e {
                StoreError::NotFound(_) => anyhow::anyhow!(
                    "user '{user}' does not exist in '{slug}': add them with `cairn-registry user add {user} --role <role> --org {slug}`"
                ),
                other => anyhow::Error::new(other),
            })?;
            let spec = TokenSpec {
                owner: &owner,
                org_slug: &org.slug,
                issuer: Issuer::Operator,
                name: name.as_deref(),
                ttl,
                scopes: (!scopes.is_empty()).then_some(scopes.as_slice()),
            };
            let issued = accounts::issue(&rt.store, &rt.keys, &config.access, spec, &Actor::cli("token issue"))
                .await
                .map_err(|e| explain(e, ""))?;
            println!("{}", issued.token);
            Ok(())
        }
        TokenCommand::Revoke { id } => {
            let row = rt.store.token_principal(id).await.map_err(|e| match e {
                StoreError::NotFound(_) => anyhow::anyhow!("token {id} does not exist: list tokens with `cairn-registry token list`"),
                other => anyhow::Error::new(other),
            })?;
            let token = rt
                .store
                .revoke_token(row.org_id, None, id, &Actor::cli("token revoke"))
                .await?;
            let at = token.revoked_at.map(|t| t.to_rfc3339()).unwrap_or_default();
            println!("token {} ('{}' of {}) is revoked (since {at})", token.id, token.name, token.owner);
            Ok(())
        }
        TokenCommand::List { org: slug, user, all, json } => {
            let org = org(rt, &slug).await?;
            let user_id = match user {
                Some(handle) => Some(
                    rt.store
                        .user_by_handle(org.id, &handle)
                        .await
                        .map_err(|e| explain(e.into(), NO_SUCH_USER))?
                        .id,
                ),
                None => None,
            };
            let mut tokens = Vec::new();
            let mut query = cairn_store::TokenQuery {
                user_id,
                include_inactive: all,
                before: None,
                limit: 500,
            };
            loop {
                let page = rt.store.list_tokens(org.id, &query).await?;
                let done = page.len() < 500;
                query.before = page.last().map(|t| (t.created_at, t.id));
                tokens.extend(page);
                if done {
                    break;
                }
            }
            if json {
                let items: Vec<_> = tokens
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "id": t.id, "user": t.owner, "name": t.name, "scopes": t.scopes,
                            "created_at": t.created_at, "expires_at": t.expires_at,
                            "last_used_at": t.last_used_at, "revoked_at": t.revoked_at,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&items)?);
            } else {
                for t in tokens {
                    let state = if t.revoked_at.is_some() { "revoked" } else { "active" };
                    println!(
                        "{}\t{}\t{}\t{}\texpires {}\t{state}",
                        t.id,
                        t.owner,
                        t.name,
                        t.scopes.join(","),
                        t.expires_at.to_rfc3339()
                    );
                }
            }
            Ok(())
        }
    })
    .await
}

/// `cairn-registry key …`: the key lives in the data directory; the rotation is written
/// to every organisation's audit log (the database must be reachable, or nothing
/// changes).
pub async fn run_key(config: &Config, command: KeyCommand) -> Result<()> {
    match command {
        KeyCommand::Generate { out } => super::signing::generate(&out),
        KeyCommand::List { json } => with_runtime(config, async |rt| super::signing::list(rt, json).await).await,
        KeyCommand::Activate { file } => {
            with_runtime(config, async |rt| super::signing::activate(rt, &file).await).await
        }
        KeyCommand::Revoke { key_id, after_index } => {
            with_runtime(config, async |rt| {
                super::signing::revoke(rt, &key_id, after_index).await
            })
            .await
        }
        KeyCommand::Rotate { keep_old } => {
            anyhow::ensure!(
                config.jwt_secret.is_none(),
                "CAIRN_JWT_SECRET is set, so the key is not in the data directory: rotate by setting a new \
                 CAIRN_JWT_SECRET (and the old one in CAIRN_JWT_PREVIOUS_SECRETS to keep its tokens working)"
            );
            let key_file = config.data_dir.join(auth::SECRET_FILE);
            anyhow::ensure!(
                key_file.is_file(),
                "reading {}: no signing key there: is --data-dir right? (CAIRN_JWT_SECRET keys are rotated by \
                 changing the variable)",
                key_file.display()
            );
            with_runtime(config, async |rt| {
                let kid = auth::rotate(&config.data_dir, keep_old).context("rotating the signing key")?;
                let details = serde_json::json!({ "kid": kid, "keep_old": keep_old });
                rt.store
                    .audit_every_org(&Actor::cli("key rotate"), "key.rotate", &format!("key:{kid}"), details)
                    .await
                    .with_context(|| {
                        format!(
                            "the new key {kid} is in place, but writing the audit log failed: \
                             record the rotation by hand"
                        )
                    })?;
                println!("new signing key {kid} written to {}", key_file.display());
                if keep_old {
                    println!("tokens signed with the old key keep working until they expire");
                } else {
                    println!(
                        "every token issued before now stops working; issue new ones with `cairn-registry token issue`"
                    );
                }
                println!("restart the registry to use the new key");
                Ok(())
            })
            .await
        }
    }
}

/// `cairn-registry gc`: one collection of unreferenced blobs older than the grace period.
pub async fn run_gc(config: &Config, grace: Option<Duration>, dry_run: bool, json: bool) -> Result<()> {
    use cairn_store::gc::{CollectSettings, collect};
    let grace = grace.unwrap_or(config.operations.gc_grace);
    let report = with_runtime(config, async |rt| {
        let settings = CollectSettings {
            grace,
            batch: cairn_registry::app::gc::BATCH,
            dry_run,
        };
        collect(&rt.store, rt.blobs.as_ref(), settings)
            .await
            .context("collecting blobs failed (what was deleted before the failure is recorded); run it again")
    })
    .await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let verb = if dry_run { "would delete" } else { "deleted" };
        println!(
            "{verb} {} unreferenced blobs ({} bytes) not written or reused for {}",
            report.deleted,
            report.bytes,
            humantime::format_duration(grace)
        );
    }
    Ok(())
}

/// `cairn-registry blobs …`
#[derive(Debug, Subcommand)]
pub enum BlobsCommand {
    /// Copy every blob the database references into a directory (the backup's blob half;
    /// run it after `pg_dump`). Blobs already in the directory are skipped.
    Export {
        /// The backup directory (created if needed; same layout as the `fs` blob store).
        #[arg(long)]
        to: std::path::PathBuf,
    },
    /// Copy every blob of a backup directory into the configured blob store (the
    /// restore's blob half; run it after `pg_restore`). Each blob's digest is checked.
    Import {
        /// The backup directory written by `blobs export`.
        #[arg(long)]
        from: std::path::PathBuf,
    },
    /// Check that every blob the database references is in the blob store with the right
    /// digest; exit 1 listing those that are not.
    Verify,
}

/// Blobs copied at once by export and import.
const COPY_CONCURRENCY: usize = 16;

/// `cairn-registry blobs …`
pub async fn run_blobs(config: &Config, command: BlobsCommand) -> Result<()> {
    use cairn_skill::Sha256Hash;
    use cairn_store::blob::{BlobStore, FsBlobStore};
    use futures::{StreamExt, TryStreamExt};
    match command {
        BlobsCommand::Export { to } => {
            let backup = FsBlobStore::new(&to)
                .with_context(|| format!("cannot use {} as the backup directory", to.display()))?;
            let (copied, skipped) = with_runtime(config, async |rt| {
                // Referenced blobs must all be there; unreferenced ones the database still
                // records are copied when present (a collector may be removing them).
                let referenced = cairn_store::gc::referenced_blobs(&rt.store).await?;
                let unreferenced = cairn_store::gc::unreferenced_stored_blobs(&rt.store).await?;
                let ids = referenced
                    .into_iter()
                    .map(|hex| (hex, true))
                    .chain(unreferenced.into_iter().map(|hex| (hex, false)));
                let outcomes: Vec<(u64, u64)> = futures::stream::iter(ids)
                    .map(|(hex, required)| {
                        let (backup, source) = (&backup, rt.blobs.as_ref());
                        async move {
                            let id = Sha256Hash::parse_hex(&hex).context("a blob id in the database")?;
                            if backup.contains(&id).await? {
                                return Ok::<_, anyhow::Error>((0, 0));
                            }
                            match source.get(&id).await? {
                                Some(bytes) => {
                                    backup.put(&id, bytes).await?;
                                    Ok((1, 0))
                                }
                                None if required => anyhow::bail!(
                                    "blob {hex} is referenced but missing from the blob store: run `cairn-registry blobs verify`"
                                ),
                                None => Ok((0, 1)),
                            }
                        }
                    })
                    .buffer_unordered(COPY_CONCURRENCY)
                    .try_collect()
                    .await?;
                Ok(outcomes.iter().fold((0, 0), |(c, s), (dc, ds)| (c + dc, s + ds)))
            })
            .await?;
            println!("exported {copied} blobs to {}", to.display());
            if skipped > 0 {
                println!("skipped {skipped} unreferenced blobs already gone from the blob store");
            }
        }
        BlobsCommand::Import { from } => {
            if !from.join("sha256").is_dir() {
                anyhow::bail!(
                    "{} is not a blob backup (no sha256/ directory in it): pass the directory `cairn-registry blobs export --to` wrote",
                    from.display()
                );
            }
            let backup = FsBlobStore::new(&from)?;
            let files = backup_ids(&from)?;
            let present: Vec<String> = files.iter().map(Sha256Hash::to_hex).collect();
            let imported = with_runtime(config, async |rt| {
                let imported = futures::stream::iter(files)
                    .map(|id| {
                        let (backup, target) = (&backup, rt.blobs.as_ref());
                        async move {
                            let bytes = backup.get(&id).await?.context("a blob vanished from the backup")?;
                            // `put` checks the digest: a damaged backup file is refused.
                            target.put(&id, bytes).await?;
                            Ok::<u64, anyhow::Error>(1)
                        }
                    })
                    .buffer_unordered(COPY_CONCURRENCY)
                    .try_fold(0u64, |sum, n| async move { Ok(sum + n) })
                    .await?;
                // Rows whose bytes the backup did not have must not claim them: writers
                // reusing such a blob then upload it again.
                let unmarked = cairn_store::gc::mark_missing(&rt.store, &present).await?;
                Ok((imported, unmarked))
            })
            .await?;
            println!("imported {} blobs from {}", imported.0, from.display());
            if imported.1 > 0 {
                println!(
                    "{} recorded blobs were not in the backup: marked missing (uploaded again when reused)",
                    imported.1
                );
            }
        }
        BlobsCommand::Verify => {
            let (checked, missing) = with_runtime(config, async |rt| {
                let ids = cairn_store::gc::referenced_blobs(&rt.store).await?;
                let checked = ids.len();
                let missing: Vec<String> = futures::stream::iter(ids)
                    .map(|hex| {
                        let blobs = rt.blobs.as_ref();
                        async move {
                            let Ok(id) = Sha256Hash::parse_hex(&hex) else {
                                return Ok(Some(format!("{hex} (not a blob id)")));
                            };
                            Ok::<_, anyhow::Error>(match blobs.get(&id).await? {
                                Some(bytes) if Sha256Hash::of(&bytes) == id => None,
                                Some(_) => Some(format!("{hex} (content does not match its digest)")),
                                None => Some(format!("{hex} (missing)")),
                            })
                        }
                    })
                    .buffer_unordered(COPY_CONCURRENCY)
                    .try_filter_map(|problem| async move { Ok(problem) })
                    .try_collect()
                    .await?;
                Ok((checked, missing))
            })
            .await?;
            if !missing.is_empty() {
                for line in &missing {
                    println!("{line}");
                }
                anyhow::bail!(
                    "{} of {checked} referenced blobs are missing or damaged: restore them with `cairn-registry blobs import --from <backup>`",
                    missing.len()
                );
            }
            println!("all {checked} referenced blobs are present and intact");
        }
    }
    Ok(())
}

/// The blob ids of a backup directory (`sha256/<2 hex>/<64 hex>` files).
fn backup_ids(root: &std::path::Path) -> Result<Vec<cairn_skill::Sha256Hash>> {
    let mut ids = Vec::new();
    for shard in std::fs::read_dir(root.join("sha256"))? {
        let shard = shard?;
        if !shard.file_type()?.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(shard.path())? {
            let name = entry?.file_name();
            // Temporary files of an interrupted export are not blobs.
            if let Some(id) = name.to_str().and_then(|n| cairn_skill::Sha256Hash::parse_hex(n).ok()) {
                ids.push(id);
            }
        }
    }
    ids.sort_by_key(cairn_skill::Sha256Hash::to_hex);
    Ok(ids)
}
