-- Compatibility with the skill clients people already run (issue 9).

-- An organisation may open its read-only discovery and download endpoints
-- (`/.well-known/skills/…`, `/.well-known/agent-skills/…`) to clients without a token.
ALTER TABLE organizations ADD COLUMN anonymous_read BOOLEAN NOT NULL DEFAULT false;

-- The SHA-256 of a version's deterministic tar.gz archive, computed once when first
-- asked for (the agentskills discovery index publishes it; versions are immutable).
ALTER TABLE versions ADD COLUMN archive_sha256 TEXT;
