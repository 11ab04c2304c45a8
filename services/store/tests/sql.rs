//! `cairn-store` against a real PostgreSQL: every query is exercised here.

use cairn_skill::{Category, SkillName};
use cairn_store::{
    Actor, AdminToken, CategoryUpdate, NewToken, NewVersion, PublishOutcome, RevisionSelector, Role, SkillQuery, Store,
    StoreError, VersionSource,
};
use cairn_test_support::db::{TestDb, table_counts};
use uuid::Uuid;

use cairn_test_support::skills::bundle;

async fn setup() -> (TestDb, Store, i64) {
    let db = TestDb::new().await.unwrap();
    let store = db.store().await.unwrap();
    let (org, _) = store
        .bootstrap("default", "admin", admin_token())
        .await
        .unwrap()
        .unwrap();
    (db, store, org.id)
}

/// Every scope an admin token carries.
static ADMIN_SCOPES: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| ["read", "submit", "review", "admin"].map(String::from).to_vec());

fn admin_token() -> AdminToken<'static> {
    AdminToken {
        id: Uuid::new_v4(),
        name: "bootstrap",
        scopes: &ADMIN_SCOPES,
        expires_at: chrono::Utc::now() + chrono::Duration::days(1),
    }
}

fn name(s: &str) -> SkillName {
    SkillName::parse(s).unwrap()
}

async fn publish(store: &Store, org: i64, skill: &str, category: Option<&str>, body: &str) -> PublishOutcome {
    let n = name(skill);
    let c = category.map(|c| Category::parse(c).unwrap());
    let b = bundle(skill, body, &[("references/notes.md", body)]);
    store
        .publish_version(
            org,
            NewVersion {
                name: &n,
                category: CategoryUpdate::Set(c.as_ref()),
                bundle: &b,
                source: VersionSource::Import,
                published_by: None,
                scan: None,
            },
            &Actor::cli("test"),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn migrations_apply_and_ping_works() {
    let (_db, store, _) = setup().await;
    store.ping().await.unwrap();
    // Applying again is a no-op.
    store.migrate().await.unwrap();
}

#[tokio::test]
async fn bootstrap_happens_exactly_once() {
    let (_db, store, org) = setup().await;
    assert!(
        store
            .bootstrap("default", "admin", admin_token())
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.has_organizations().await.unwrap());
    let admin = store.user_by_handle(org, "admin").await.unwrap();
    assert_eq!(admin.role, Role::Admin);
    assert!(!admin.disabled);
    // Organisation, admin and the admin's first token, each audited.
    assert_eq!(store.audit_count(org).await.unwrap(), 3);
    let tokens: i64 = sqlx::query_scalar("SELECT count(*) FROM api_tokens WHERE user_id = $1")
        .bind(admin.id)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(tokens, 1);
}

#[tokio::test]
async fn orgs_and_users_conflict_and_not_found() {
    let (_db, store, org) = setup().await;
    let actor = Actor::cli("test");
    let second = store.create_org("acme", "Acme", &actor).await.unwrap();
    assert_eq!(store.org_by_slug("acme").await.unwrap().id, second.id);
    assert!(
        matches!(store.create_org("acme", "Again", &actor).await, Err(StoreError::Conflict(m)) if m.contains("acme"))
    );
    assert!(matches!(store.org_by_slug("nope").await, Err(StoreError::NotFound(_))));

    store.create_user(org, "ci", Role::Reader, &actor).await.unwrap();
    assert!(matches!(
        store.create_user(org, "ci", Role::Member, &actor).await,
        Err(StoreError::Conflict(_))
    ));
    // Same handle in another organisation is fine.
    store.create_user(second.id, "ci", Role::Member, &actor).await.unwrap();
    assert!(matches!(
        store.user_by_handle(org, "ghost").await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn tokens_resolve_touch_and_revoke() {
    let (_db, store, org) = setup().await;
    let actor = Actor::cli("test");
    let admin = store.user_by_handle(org, "admin").await.unwrap();
    let id = Uuid::new_v4();
    let expires = chrono::Utc::now() + chrono::Duration::hours(1);
    let scopes = ["read".to_owned(), "submit".to_owned()];
    let new = NewToken {
        id,
        user_id: admin.id,
        org_id: org,
        name: "laptop",
        scopes: &scopes,
        expires_at: expires,
    };
    let token = store.create_token(new, &actor).await.unwrap();
    assert_eq!(token.name, "laptop");
    let principal = store.token_principal(id).await.unwrap();
    assert_eq!(principal.handle, "admin");
    assert_eq!(principal.org_slug, "default");
    assert_eq!(principal.scopes, scopes.to_vec());
    assert!(principal.revoked_at.is_none());

    store.touch_token(id).await.unwrap();
    let used: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT last_used_at FROM api_tokens WHERE id = $1")
            .bind(id)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert!(used.is_some());

    // Only the owner (or, with no owner given, an admin) can revoke.
    assert!(matches!(
        store.revoke_token(org, Some(admin.id + 1000), id, &actor).await,
        Err(StoreError::NotFound(_))
    ));
    let audits = store.audit_count(org).await.unwrap();
    let revoked = store.revoke_token(org, Some(admin.id), id, &actor).await.unwrap();
    assert!(revoked.revoked_at.is_some());
    assert!(store.token_principal(id).await.unwrap().revoked_at.is_some());
    // Revoking twice is fine and writes nothing; an unknown token is not found.
    store.revoke_token(org, None, id, &actor).await.unwrap();
    assert_eq!(store.audit_count(org).await.unwrap(), audits + 1);
    assert!(matches!(
        store.revoke_token(org, None, Uuid::new_v4(), &actor).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.token_principal(Uuid::new_v4()).await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn publish_creates_revisions_and_skips_unchanged_content() {
    let (_db, store, org) = setup().await;
    assert_eq!(
        publish(&store, org, "deploy", Some("devops"), "v1").await,
        PublishOutcome::Created {
            revision: 1,
            new_skill: true
        }
    );
    let before = table_counts(&store).await.unwrap();
    assert_eq!(
        publish(&store, org, "deploy", Some("devops"), "v1").await,
        PublishOutcome::Unchanged {
            revision: 1,
            recategorized: false
        }
    );
    assert_eq!(
        table_counts(&store).await.unwrap(),
        before,
        "an unchanged publish writes nothing"
    );
    assert_eq!(
        publish(&store, org, "deploy", Some("devops"), "v2").await,
        PublishOutcome::Created {
            revision: 2,
            new_skill: false
        }
    );

    let skill = store.skill(org, "deploy").await.unwrap();
    assert_eq!(skill.latest_revision, Some(2));
    assert_eq!(skill.version_count, 2);
    assert_eq!(skill.category.as_deref(), Some("devops"));

    let latest = store.version(skill.id, RevisionSelector::Latest).await.unwrap();
    assert_eq!(latest.revision, 2);
    assert_eq!(latest.frontmatter.0["metadata"]["hermes"]["tags"][0], "test");
    // The document's key order survives the database (jsonb would sort by key length).
    let keys: Vec<&String> = latest.frontmatter.0.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "metadata"]);
    let first = store.version(skill.id, RevisionSelector::Exact(1)).await.unwrap();
    assert_eq!(first.revision, 1);
    assert_ne!(first.digest, latest.digest);
    assert!(matches!(
        store.version(skill.id, RevisionSelector::Exact(9)).await,
        Err(StoreError::NotFound(_))
    ));

    let files = store.version_files(latest.id).await.unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "references/notes.md"]);
    let expected = bundle("deploy", "v2", &[("references/notes.md", "v2")]);
    assert_eq!(latest.digest, expected.digest());
    assert_eq!(files[0].sha256, expected.manifest()[0].sha256.to_hex());

    let versions = store.list_versions(skill.id, None, 10).await.unwrap();
    assert_eq!(versions.iter().map(|v| v.revision).collect::<Vec<_>>(), [2, 1]);
    let older = store.list_versions(skill.id, Some(2), 10).await.unwrap();
    assert_eq!(older.iter().map(|v| v.revision).collect::<Vec<_>>(), [1]);
}

#[tokio::test]
async fn recategorizing_unchanged_content_updates_the_skill_only() {
    let (_db, store, org) = setup().await;
    publish(&store, org, "deploy", Some("devops"), "v1").await;
    let cursor = store.index_cursor(org).await.unwrap();
    assert_eq!(
        publish(&store, org, "deploy", Some("ops/k8s"), "v1").await,
        PublishOutcome::Unchanged {
            revision: 1,
            recategorized: true
        }
    );
    assert_eq!(
        store.skill(org, "deploy").await.unwrap().category.as_deref(),
        Some("ops/k8s")
    );
    let delta = store.index(org, Some(cursor)).await.unwrap();
    assert_eq!(delta.skills.len(), 1);
    assert_eq!(delta.skills[0].category.as_deref(), Some("ops/k8s"));
}

#[tokio::test]
async fn list_skills_filters_and_pages() {
    let (_db, store, org) = setup().await;
    for (skill, category) in [
        ("alpha", Some("devops")),
        ("beta", Some("devops/k8s")),
        ("gamma", None),
        ("delta_x", Some("ml")),
    ] {
        publish(&store, org, skill, category, &format!("body of {skill}")).await;
    }
    let all = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 10,
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        all.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["alpha", "beta", "delta_x", "gamma"]
    );

    let page = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 2,
                after: Some("beta".into()),
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        page.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["delta_x", "gamma"]
    );

    let devops = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 10,
                category: Some("devops".into()),
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        devops.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["alpha", "beta"]
    );

    // Text matches name or description, literally (LIKE wildcards are escaped).
    let text = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 10,
                text: Some("GAMMA does".into()),
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(text.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["gamma"]);
    let underscore = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 10,
                text: Some("a_x".into()),
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        underscore.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["delta_x"]
    );
    let wildcard = store
        .list_skills(
            org,
            &SkillQuery {
                limit: 10,
                text: Some("%".into()),
                ..SkillQuery::default()
            },
        )
        .await
        .unwrap();
    assert!(wildcard.is_empty());

    assert!(matches!(store.skill(org, "nope").await, Err(StoreError::NotFound(_))));
}

#[tokio::test]
async fn index_full_and_delta_follow_the_cursor() {
    let (_db, store, org) = setup().await;
    let empty = store.index(org, None).await.unwrap();
    assert_eq!(empty.cursor, 0);
    assert!(empty.skills.is_empty());

    publish(&store, org, "one", None, "1").await;
    publish(&store, org, "two", None, "2").await;
    let full = store.index(org, None).await.unwrap();
    assert_eq!(
        full.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["one", "two"]
    );
    assert_eq!(full.cursor, store.index_cursor(org).await.unwrap());
    assert_eq!(full.skills[0].files.len(), 2);

    let nothing = store.index(org, Some(full.cursor)).await.unwrap();
    assert!(nothing.skills.is_empty() && nothing.removed.is_empty());
    assert_eq!(nothing.cursor, full.cursor);

    publish(&store, org, "two", None, "2b").await;
    let delta = store.index(org, Some(full.cursor)).await.unwrap();
    assert_eq!(delta.skills.len(), 1);
    assert_eq!(delta.skills[0].name, "two");
    assert_eq!(delta.skills[0].revision, 2);
    assert!(delta.cursor > full.cursor);

    // Yanking every version turns the skill into a removal in deltas.
    let two = store.skill(org, "two").await.unwrap();
    sqlx::query("UPDATE versions SET yanked = TRUE WHERE skill_id = $1")
        .bind(two.id)
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("INSERT INTO index_changes (org_id, skill_id, kind, revision) VALUES ($1, $2, 'yanked', 2)")
        .bind(org)
        .bind(two.id)
        .execute(store.pool())
        .await
        .unwrap();
    let removal = store.index(org, Some(delta.cursor)).await.unwrap();
    assert_eq!(removal.removed, ["two"]);
    assert!(removal.skills.is_empty());
    let full = store.index(org, None).await.unwrap();
    assert_eq!(full.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["one"]);
    assert!(matches!(
        store.version(two.id, RevisionSelector::Latest).await,
        Err(StoreError::NotFound(_))
    ));

    // A cursor from the future yields an empty delta, not an error.
    let future = store.index(org, Some(i64::MAX)).await.unwrap();
    assert!(future.skills.is_empty());
}

#[tokio::test]
async fn organisations_are_isolated() {
    let (_db, store, org) = setup().await;
    let other = store.create_org("other", "Other", &Actor::cli("test")).await.unwrap();
    publish(&store, org, "secret-sauce", None, "ours").await;
    assert!(store.index(other.id, None).await.unwrap().skills.is_empty());
    assert!(matches!(
        store.skill(other.id, "secret-sauce").await,
        Err(StoreError::NotFound(_))
    ));
    let sha = bundle("secret-sauce", "ours", &[("references/notes.md", "ours")]).manifest()[0]
        .sha256
        .to_hex();
    assert_eq!(
        store
            .blobs_visible_to_org(org, std::slice::from_ref(&sha))
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        store
            .blobs_visible_to_org(other.id, std::slice::from_ref(&sha))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.touch_blobs(&[sha.clone(), "0".repeat(64)]).await.unwrap(),
        vec![sha]
    );
}

#[tokio::test]
async fn concurrent_publishes_get_distinct_ordered_cursors() {
    let (_db, store, org) = setup().await;
    let mut tasks = Vec::new();
    for i in 0..12 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            publish(&store, org, &format!("skill-{}", i % 4), None, &format!("body {i}")).await
        }));
    }
    for task in tasks {
        assert!(matches!(task.await.unwrap(), PublishOutcome::Created { .. }));
    }
    let cursors: Vec<i64> = sqlx::query_scalar("SELECT cursor FROM index_changes WHERE org_id = $1 ORDER BY cursor")
        .bind(org)
        .fetch_all(store.pool())
        .await
        .unwrap();
    assert_eq!(cursors.len(), 12);
    // Cursor order is commit order: for every skill, revisions grow with the cursor.
    let changes: Vec<(i64, i32)> =
        sqlx::query_as("SELECT skill_id, revision FROM index_changes WHERE org_id = $1 ORDER BY cursor")
            .bind(org)
            .fetch_all(store.pool())
            .await
            .unwrap();
    let mut last: std::collections::HashMap<i64, i32> = std::collections::HashMap::new();
    for (skill, revision) in changes {
        let previous = last.insert(skill, revision).unwrap_or(0);
        assert_eq!(
            revision,
            previous + 1,
            "skill {skill}: revision {revision} after {previous}"
        );
    }
    // Every skill got revisions 1..=3 with no gaps or duplicates.
    for i in 0..4 {
        let skill = store.skill(org, &format!("skill-{i}")).await.unwrap();
        let revs: Vec<i32> = store
            .list_versions(skill.id, None, 10)
            .await
            .unwrap()
            .iter()
            .map(|v| v.revision)
            .collect();
        assert_eq!(revs, [3, 2, 1]);
    }
}

#[tokio::test]
async fn batch_publish_is_one_transaction() {
    let (_db, store, org) = setup().await;
    let names = [name("a"), name("b")];
    let bundles = [bundle("a", "x", &[]), bundle("b", "y", &[])];
    let version = |i: usize, published_by: Option<i64>| NewVersion {
        name: &names[i],
        category: CategoryUpdate::IfNew(None),
        bundle: &bundles[i],
        source: VersionSource::Import,
        published_by,
        scan: None,
    };
    // The second fails (no such user): the first must not be committed either.
    let before = table_counts(&store).await.unwrap();
    let failed = store
        .publish_versions(org, &[version(0, None), version(1, Some(999_999))], &Actor::cli("test"))
        .await;
    assert!(failed.is_err());
    assert_eq!(table_counts(&store).await.unwrap(), before);

    let outcomes = store
        .publish_versions(org, &[version(0, None), version(1, None)], &Actor::cli("test"))
        .await
        .unwrap();
    assert_eq!(outcomes.len(), 2);
    assert_eq!(store.index(org, None).await.unwrap().skills.len(), 2);
}

#[tokio::test]
async fn executable_bit_changes_make_a_new_version() {
    let (_db, store, org) = setup().await;
    let n = name("tool");
    let plain = bundle("tool", "run", &[("scripts/run.py", "print(1)")]);
    let mut files = plain.files().clone();
    files.get_mut("scripts/run.py").unwrap().executable = true;
    let executable = cairn_skill::Bundle::from_files(files, &cairn_skill::Limits::default()).unwrap();
    assert_eq!(
        plain.digest(),
        executable.digest(),
        "the digest covers paths and contents only"
    );
    let publish = |b| NewVersion {
        name: &n,
        category: CategoryUpdate::IfNew(None),
        bundle: b,
        source: VersionSource::Import,
        published_by: None,
        scan: None,
    };
    let actor = Actor::cli("test");
    store.publish_version(org, publish(&plain), &actor).await.unwrap();
    let outcome = store.publish_version(org, publish(&executable), &actor).await.unwrap();
    assert_eq!(
        outcome,
        PublishOutcome::Created {
            revision: 2,
            new_skill: false
        }
    );
    let again = store.publish_version(org, publish(&executable), &actor).await.unwrap();
    assert_eq!(
        again,
        PublishOutcome::Unchanged {
            revision: 2,
            recategorized: false
        }
    );
}

#[tokio::test]
async fn imports_never_rewrite_an_existing_category() {
    let (_db, store, org) = setup().await;
    publish(&store, org, "deploy", Some("devops"), "v1").await;
    let n = name("deploy");
    let other = Category::parse("k8s").unwrap();
    let actor = Actor::cli("test");
    for (body, category) in [("v1", None), ("v2", None), ("v3", Some(&other))] {
        let b = bundle("deploy", body, &[("references/notes.md", body)]);
        let version = NewVersion {
            name: &n,
            category: CategoryUpdate::IfNew(category),
            bundle: &b,
            source: VersionSource::Import,
            published_by: None,
            scan: None,
        };
        store.publish_version(org, version, &actor).await.unwrap();
        assert_eq!(
            store.skill(org, "deploy").await.unwrap().category.as_deref(),
            Some("devops")
        );
    }
    // An explicit Set(None) clears it.
    publish(&store, org, "deploy", None, "v4").await;
    assert_eq!(store.skill(org, "deploy").await.unwrap().category, None);
}

#[tokio::test]
async fn the_access_migration_normalises_foundation_tokens() {
    let db = TestDb::unmigrated().await.unwrap();
    let store = db.store().await.unwrap();
    cairn_store::MIGRATOR.run_to(1, store.pool()).await.unwrap();
    // Foundation data: tokens with no scopes, unknown scopes, and odd names.
    sqlx::raw_sql(
        "INSERT INTO organizations (slug, name) VALUES ('default', 'D'); \
         INSERT INTO users (org_id, handle, role) VALUES (1, 'ada', 'admin'), (1, 'max', 'member'); \
         INSERT INTO api_tokens (id, user_id, org_id, name, scopes, expires_at) VALUES \
           ('00000000-0000-0000-0000-000000000001', 1, 1, 'bootstrap', '{}', now() + interval '1 day'), \
           ('00000000-0000-0000-0000-000000000002', 2, 1, '', '{publish}', now() + interval '1 day'), \
           ('00000000-0000-0000-0000-000000000003', 2, 1, repeat('n', 300), '{submit,publish}', now() + interval '1 day')",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.migrate().await.unwrap();
    let rows: Vec<(String, Vec<String>)> = sqlx::query_as("SELECT name, scopes FROM api_tokens ORDER BY id")
        .fetch_all(store.pool())
        .await
        .unwrap();
    let scopes: Vec<Vec<&str>> = rows
        .iter()
        .map(|(_, s)| {
            let mut s: Vec<&str> = s.iter().map(String::as_str).collect();
            s.sort_unstable();
            s
        })
        .collect();
    assert_eq!(
        scopes,
        vec![
            vec!["admin", "read", "review", "submit"],
            vec!["read", "submit"],
            vec!["read", "submit"]
        ]
    );
    assert_eq!(rows[1].0, "token");
    assert_eq!(rows[2].0.len(), 100);
    store.pool().close().await;
}

#[tokio::test]
async fn text_the_database_cannot_hold_is_the_callers_error_and_changes_nothing() {
    let (_db, store, org) = setup().await;
    let before = table_counts(&store).await.unwrap();
    // PostgreSQL refuses NUL in text (SQLSTATE 22021): input to correct, not a fault.
    for handle in ["nul\0here", "\0"] {
        match store.list_users(org, Some(handle), 10).await {
            Err(StoreError::Invalid(message)) => assert!(message.contains("NUL"), "{message}"),
            other => panic!("{handle:?}: expected Invalid, got {other:?}"),
        }
        assert!(matches!(
            store.user_by_handle(org, handle).await,
            Err(StoreError::Invalid(_))
        ));
    }
    // `\u0000` inside JSON stored as jsonb (SQLSTATE 22P05): the same.
    let details = serde_json::json!({"agent": "nul\u{0}here"});
    match store
        .record_event(org, &Actor::system("test"), "test.nul", "t", details)
        .await
    {
        Err(StoreError::Invalid(message)) => assert!(message.contains("NUL"), "{message}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    assert_eq!(table_counts(&store).await.unwrap(), before);
    // Another data exception is a fault of the query, not the caller's input: it stays
    // a database error (a 500 that is logged), never a 400.
    let overflow = sqlx::query_scalar::<_, i32>("SELECT 2147483647::int4 + 1")
        .fetch_one(store.pool())
        .await;
    assert!(matches!(
        StoreError::from(overflow.unwrap_err()),
        StoreError::Database(_)
    ));
}
