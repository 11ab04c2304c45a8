-- Concurrent lessons (issue 18): many agents propose lessons to one skill at once.
--
-- A conflicting patch is superseded by the one that carries its lesson on (a client's
-- resubmission or a reviewer's resolution): each links the other. A patch that repeats
-- another's lesson is marked as a likely duplicate (advisory; nothing closes by itself)
-- and grouped with it; a reviewer closes duplicates as `duplicate`, each recording the
-- patch it duplicated. A version remembers the patch that produced it and every agent
-- that reported its lesson.

ALTER TABLE patches DROP CONSTRAINT patches_status_check;
ALTER TABLE patches ADD CONSTRAINT patches_status_check CHECK (status IN
    ('pending_review', 'approved', 'rejected', 'blocked', 'conflict', 'withdrawn', 'superseded', 'duplicate'));

ALTER TABLE patches
    ADD COLUMN supersedes      UUID REFERENCES patches (id),
    ADD COLUMN superseded_by   UUID REFERENCES patches (id),
    -- Who resolved a conflict by hand (the patch's author stays the lesson's author).
    ADD COLUMN resolved_by     BIGINT REFERENCES users (id),
    -- The words the patch adds (Markdown and case normalised), compared with other
    -- patches' to find duplicates.
    ADD COLUMN lesson          TEXT NOT NULL DEFAULT '',
    -- A likely duplicate: {"patch": id | null, "file", "line", "excerpt", "similarity"}.
    ADD COLUMN duplicate       JSONB,
    -- The group of patches reporting one lesson (the first one's id); NULL: alone.
    ADD COLUMN duplicate_group UUID,
    -- Set when closed as a duplicate: the patch it duplicated.
    ADD COLUMN duplicate_of    UUID REFERENCES patches (id);

-- A patch supersedes at most one other, and is superseded by at most one.
CREATE UNIQUE INDEX patches_supersedes ON patches (supersedes) WHERE supersedes IS NOT NULL;
CREATE INDEX patches_open_by_skill ON patches (org_id, skill_name, created_at)
    WHERE status IN ('pending_review', 'blocked', 'conflict');
CREATE INDEX patches_duplicate_group ON patches (org_id, duplicate_group) WHERE duplicate_group IS NOT NULL;

ALTER TABLE versions
    ADD COLUMN patch_id     UUID REFERENCES patches (id),
    -- Everyone who reported the lesson this version publishes: [{"patch", "author", "agent"}].
    ADD COLUMN contributors JSONB NOT NULL DEFAULT '[]';
