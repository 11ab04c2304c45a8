-- Foundation schema: tenants, people, tokens, skills, immutable versions, content-addressed
-- blobs, the per-organisation index change log and the audit log. Forward-only.

CREATE TABLE organizations (
    id          BIGSERIAL PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id          BIGSERIAL PRIMARY KEY,
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    handle      TEXT NOT NULL CHECK (handle ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    role        TEXT NOT NULL CHECK (role IN ('admin', 'reviewer', 'member', 'reader')),
    disabled    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (org_id, handle)
);

-- Every issued JWT has a row keyed by its `jti`: revocable, with its last use recorded.
CREATE TABLE api_tokens (
    id            UUID PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users (id),
    org_id        BIGINT NOT NULL REFERENCES organizations (id),
    name          TEXT NOT NULL,
    scopes        TEXT[] NOT NULL DEFAULT '{}',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE skills (
    id               BIGSERIAL PRIMARY KEY,
    org_id           BIGINT NOT NULL REFERENCES organizations (id),
    -- Byte order ("C"): listings and the index sort like the client does, and use the index.
    name             TEXT COLLATE "C" NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    category         TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (org_id, name)
);
CREATE INDEX skills_org_category ON skills (org_id, category);

-- A blob row exists only once its bytes are in the blob store (blobs are written first).
CREATE TABLE blobs (
    sha256      TEXT PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size        BIGINT NOT NULL CHECK (size >= 0),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE versions (
    id             BIGSERIAL PRIMARY KEY,
    skill_id       BIGINT NOT NULL REFERENCES skills (id),
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    digest         TEXT NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
    description    TEXT NOT NULL,
    frontmatter    JSON NOT NULL,  -- JSON, not JSONB: keeps the document's key order
    file_count     INTEGER NOT NULL,
    total_size     BIGINT NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('import', 'publish', 'patch')),
    published_by   BIGINT REFERENCES users (id),
    yanked         BOOLEAN NOT NULL DEFAULT FALSE,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (skill_id, revision)
);

CREATE TABLE version_files (
    version_id  BIGINT NOT NULL REFERENCES versions (id),
    path        TEXT COLLATE "C" NOT NULL,
    sha256      TEXT NOT NULL REFERENCES blobs (sha256),
    size        BIGINT NOT NULL,
    executable  BOOLEAN NOT NULL,
    PRIMARY KEY (version_id, path)
);
CREATE INDEX version_files_sha256 ON version_files (sha256);

-- The team index change log. Writers take a per-organisation advisory lock before
-- inserting, so within an organisation cursor order is commit order and a reader that
-- resumes from a cursor never misses a change committed later with a smaller number.
CREATE TABLE index_changes (
    cursor      BIGSERIAL PRIMARY KEY,
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    skill_id    BIGINT NOT NULL REFERENCES skills (id),
    kind        TEXT NOT NULL CHECK (kind IN ('published', 'yanked', 'unyanked', 'recategorized')),
    revision    INTEGER,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX index_changes_org_cursor ON index_changes (org_id, cursor);

CREATE TABLE audit_log (
    id           BIGSERIAL PRIMARY KEY,
    org_id       BIGINT REFERENCES organizations (id),
    actor_id     BIGINT REFERENCES users (id),
    actor        TEXT NOT NULL,
    action       TEXT NOT NULL,
    target       TEXT NOT NULL,
    request_id   TEXT,
    client_addr  TEXT,
    details      JSONB NOT NULL DEFAULT '{}',
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_org_id ON audit_log (org_id, id);
