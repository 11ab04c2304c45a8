-- Owners (issue 20): the reviewers an organisation names for a skill, or for a category of
-- skills (and the categories under it), set by admins. A patch to a skill they own asks
-- them for review: the queue's "review requested from you".
CREATE TABLE owners (
    org_id    BIGINT NOT NULL REFERENCES organizations (id),
    -- What is owned: one skill by name, or a category path (`ops`, `mlops/training`).
    kind      TEXT NOT NULL CHECK (kind IN ('skill', 'category')),
    name      TEXT COLLATE "C" NOT NULL CHECK (length(name) BETWEEN 1 AND 260),
    user_id   BIGINT NOT NULL REFERENCES users (id),
    added_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, kind, name, user_id)
);
-- "What do I own": the queue's filter starts from the reviewer.
CREATE INDEX owners_user ON owners (org_id, user_id);
