-- Reviewers handle false positives (issue 22).
--
-- A reviewer dismisses one finding of a skill with a reason. The dismissal names the
-- finding by rule, file, the text the rule matched and what it said (line numbers move
-- between revisions; the text does not), so every later scan of the same skill — new
-- patches, rescans — shows that finding as dismissed instead of raising it again, unless
-- it is now more severe than the reviewer judged. A dismissal is
-- revoked, never deleted: the history of who judged what stays.
CREATE TABLE finding_dismissals (
    id            BIGSERIAL PRIMARY KEY,
    org_id        BIGINT NOT NULL REFERENCES organizations (id),
    skill_name    TEXT COLLATE "C" NOT NULL,
    rule          TEXT NOT NULL,
    file          TEXT NOT NULL,
    excerpt       TEXT NOT NULL,
    -- What the finding said, line numbers left out (a flow's message names its source).
    message       TEXT NOT NULL,
    -- The finding's severity when it was dismissed (high and critical need an admin); a
    -- more severe finding of the same text is not dismissed by it.
    severity      TEXT NOT NULL CHECK (severity IN ('medium', 'high', 'critical')),
    reason        TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
    dismissed_by  BIGINT NOT NULL REFERENCES users (id),
    -- The patch the reviewer was reading.
    patch_id      UUID REFERENCES patches (id),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at    TIMESTAMPTZ,
    revoked_by    BIGINT REFERENCES users (id)
);
CREATE UNIQUE INDEX finding_dismissals_active
    ON finding_dismissals (org_id, skill_name, rule, file, excerpt, message) WHERE revoked_at IS NULL;
CREATE INDEX finding_dismissals_skill ON finding_dismissals (org_id, skill_name, id);

-- An imported skill that scans `dangerous` is kept out of the index but not dropped: its
-- bundle (blobs stored) and findings wait here for an admin to release it (published as
-- an import) or delete it.
CREATE TABLE quarantined_skills (
    id           UUID PRIMARY KEY,
    org_id       BIGINT NOT NULL REFERENCES organizations (id),
    name         TEXT COLLATE "C" NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    category     TEXT,
    digest       TEXT NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
    -- The bundle's manifest: [{path, sha256, size, executable}].
    manifest     JSONB NOT NULL,
    scan         JSONB NOT NULL,
    -- Where the import read it.
    source_path  TEXT NOT NULL,
    imported_by  TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Importing the same content again is a no-op.
    UNIQUE (org_id, name, digest)
);
CREATE INDEX quarantined_skills_org ON quarantined_skills (org_id, created_at, id);
CREATE INDEX quarantined_skills_manifest ON quarantined_skills USING GIN (manifest jsonb_path_ops);
