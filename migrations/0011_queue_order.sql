-- A review queue that scales (issue 20): reviewers sort by how much a patch changes and by
-- its scan verdict.
-- `changed_lines` is the number of lines a patch adds or removes in its diff (or, for a
-- patch in conflict, in the diff its author made against their base), kept by PostgreSQL
-- itself whenever the report is written, so no write path can forget it.

-- Lines added or removed in a report's list of file diffs (`[{"unified": "--- a/…\n+++ b/…\n@@ …"}]`):
-- every line after each file's two header lines that starts with '+' or '-'.
CREATE FUNCTION cairn_diff_changed_lines(files JSONB) RETURNS INTEGER
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(sum((
        SELECT count(*)
        FROM regexp_split_to_table(f ->> 'unified', E'\n') WITH ORDINALITY AS l (line, n)
        WHERE n > 2 AND (starts_with(line, '+') OR starts_with(line, '-'))
    )), 0)::INTEGER
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(files) = 'array' THEN files ELSE '[]'::JSONB END) AS f
$$;

ALTER TABLE patches
    ADD COLUMN changed_lines INTEGER GENERATED ALWAYS AS (
        greatest(cairn_diff_changed_lines(report -> 'diff'), cairn_diff_changed_lines(report -> 'authored_diff'))
    ) STORED;

-- The scan verdict as a rank (dangerous 3, caution 2, safe 1, not scanned 0), so sorting and
-- filtering a queue by verdict reads no report.
ALTER TABLE patches
    ADD COLUMN verdict_rank SMALLINT GENERATED ALWAYS AS (
        CASE report -> 'scan' ->> 'verdict' WHEN 'dangerous' THEN 3 WHEN 'caution' THEN 2 WHEN 'safe' THEN 1 ELSE 0 END
    ) STORED;
