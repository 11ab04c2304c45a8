-- Operations (issue 10): blob garbage collection.
--
-- Every blob the registry writes gets a row *before* its bytes are written (`stored`
-- false until the write succeeds), and every write or reuse refreshes `seen_at` under a
-- row lock. The collector deletes blobs that nothing references and that nobody has
-- written or reused for a grace period, claiming rows with FOR UPDATE SKIP LOCKED: a
-- writer reusing a blob waits for a collector that holds it, then writes it again, and
-- replicas collecting at once never pick the same row.

ALTER TABLE blobs ADD COLUMN seen_at TIMESTAMPTZ NOT NULL DEFAULT now();
ALTER TABLE blobs ADD COLUMN stored BOOLEAN NOT NULL DEFAULT true;
CREATE INDEX blobs_seen_at ON blobs (seen_at);

-- What may reference a blob besides version files: a version's archive, and the
-- candidate of a patch that can still be published or shown as a proposal.
CREATE INDEX versions_archive_sha256 ON versions (archive_sha256) WHERE archive_sha256 IS NOT NULL;
CREATE INDEX patches_candidate ON patches USING GIN (candidate jsonb_path_ops);

-- Blobs written before this migration that only an archive or a patch referenced had no
-- row: record them so they are counted (and kept while referenced).
INSERT INTO blobs (sha256, size)
SELECT DISTINCT ON (e->>'sha256') e->>'sha256', (e->>'size')::bigint
FROM patches p, jsonb_array_elements(p.candidate) e
WHERE p.candidate IS NOT NULL AND jsonb_typeof(p.candidate) = 'array'
ON CONFLICT DO NOTHING;
