-- Review as a conversation (issue 20): comments on a patch, on a line or a range of lines
-- of its diff, in threads; "request changes", a reviewer's decision that keeps the patch
-- open and tells its author what to change; and rounds, the author's answer: a new
-- version of the same patch, the earlier rounds kept.

-- The round a patch is in (1 when submitted, one more with each new version) and when
-- the current round came.
ALTER TABLE patches
    ADD COLUMN round    INTEGER NOT NULL DEFAULT 1 CHECK (round >= 1),
    ADD COLUMN round_at TIMESTAMPTZ;

-- The earlier rounds of a patch, as they were when the next one replaced them.
CREATE TABLE patch_rounds (
    patch_id         UUID NOT NULL REFERENCES patches (id),
    round            INTEGER NOT NULL CHECK (round >= 1),
    base_revision    INTEGER,
    status           TEXT NOT NULL,
    agent            JSONB NOT NULL,
    summary          TEXT NOT NULL,
    rationale        TEXT NOT NULL,
    ops              JSONB NOT NULL,
    report           JSONB NOT NULL,
    candidate        JSONB,
    candidate_digest TEXT,
    submitted_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (patch_id, round)
);

CREATE TABLE patch_comments (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    patch_id    UUID NOT NULL REFERENCES patches (id),
    -- The comment that started the thread; NULL: this one starts it.
    reply_to    BIGINT REFERENCES patch_comments (id),
    author_id   BIGINT NOT NULL REFERENCES users (id),
    -- 'comment', or 'changes_requested' (a reviewer's decision, on the patch as a whole).
    kind        TEXT NOT NULL CHECK (kind IN ('comment', 'changes_requested')),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 10000),
    -- Where a thread is anchored in the diff (all NULL: on the patch as a whole). `side`
    -- says which numbering the lines use: 'new' (the candidate) or 'old' (the latest).
    file        TEXT CHECK (length(file) <= 1024),
    line        INTEGER CHECK (line >= 1),
    end_line    INTEGER,
    side        TEXT CHECK (side IN ('old', 'new')),
    -- The patch's round when it was written (its lines are that round's diff's).
    round       INTEGER NOT NULL DEFAULT 1,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((file IS NULL) = (line IS NULL) AND (line IS NULL) = (side IS NULL) AND (line IS NULL) = (end_line IS NULL)),
    CHECK (end_line >= line),
    -- Only a thread's first comment is anchored; replies follow their thread.
    CHECK (reply_to IS NULL OR file IS NULL)
);
CREATE INDEX patch_comments_patch ON patch_comments (patch_id, id);

-- The patch's last "request changes" decision (who and when); the patch stays open, and
-- the review shows it as outstanding while it does.
ALTER TABLE patches
    ADD COLUMN changes_requested_by BIGINT REFERENCES users (id),
    ADD COLUMN changes_requested_at TIMESTAMPTZ;
