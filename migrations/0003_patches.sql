-- Patches (issue 5): every proposed change to a skill, with what each pipeline stage found.

CREATE TABLE patches (
    id               UUID PRIMARY KEY,
    org_id           BIGINT NOT NULL REFERENCES organizations (id),
    skill_name       TEXT NOT NULL,
    -- The revision the patch was made against; NULL for a new skill.
    base_revision    INTEGER,
    status           TEXT NOT NULL CHECK (status IN
                         ('pending_review', 'approved', 'rejected', 'blocked', 'conflict', 'withdrawn', 'superseded')),
    author_id        BIGINT NOT NULL REFERENCES users (id),
    agent            JSONB NOT NULL DEFAULT '{}',
    summary          TEXT NOT NULL DEFAULT '' CHECK (length(summary) <= 500),
    rationale        TEXT NOT NULL DEFAULT '' CHECK (length(rationale) <= 10000),
    category         TEXT,
    ops              JSONB NOT NULL,
    -- The stages' reports: match report, rebase, diff, scan, decision.
    report           JSONB NOT NULL,
    -- The latest revision's digest the candidate was built on (NULL: the skill did not exist).
    onto_digest      TEXT,
    -- The candidate bundle's manifest ([{path, sha256, size, executable}]) and digest; its
    -- blobs are stored at submission, so approval only writes the database.
    candidate        JSONB,
    candidate_digest TEXT,
    result_revision  INTEGER,
    decided_by       BIGINT REFERENCES users (id),
    decided_at       TIMESTAMPTZ,
    comment          TEXT CHECK (length(comment) <= 10000),
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX patches_org_created ON patches (org_id, created_at DESC, id DESC);
CREATE INDEX patches_org_status_created ON patches (org_id, status, created_at DESC, id DESC);
CREATE INDEX patches_org_skill_created ON patches (org_id, skill_name, created_at DESC, id DESC);

-- Each organisation's patch policy (who may approve what; see cairn_pipeline::policy).
ALTER TABLE organizations ADD COLUMN patch_policy JSONB NOT NULL DEFAULT '{}';
