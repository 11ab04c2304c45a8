-- Provable provenance (issue 19): every version event is a DSSE envelope appended to an
-- RFC 6962 transparency log kept here, in the transaction that makes the event.

-- The scan a version passed, for its attestation (NULL: published before this was kept).
ALTER TABLE versions ADD COLUMN scan_verdict TEXT CHECK (scan_verdict IN ('safe', 'caution', 'dangerous'));
ALTER TABLE versions ADD COLUMN scan_rules TEXT;

-- The registry's signing keys: public halves only (the private key is configuration and
-- never enters the database). One key is active; retired keys' signatures stay valid;
-- a revoked key's count only on entries below `revoked_after_index`.
CREATE TABLE signing_keys (
    key_id              TEXT PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{64}$'),
    public_key          BYTEA NOT NULL UNIQUE CHECK (length(public_key) = 32),
    status              TEXT NOT NULL CHECK (status IN ('active', 'retired', 'revoked')),
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    retired_at          TIMESTAMPTZ,
    revoked_at          TIMESTAMPTZ,
    revoked_after_index BIGINT CHECK (revoked_after_index >= 0),
    CHECK ((status = 'revoked') = (revoked_after_index IS NOT NULL))
);
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((TRUE)) WHERE status = 'active';

-- The log's head, one row: its name (fixed when the log is first opened), size and root.
-- Appends lock this row, so entries get consecutive indexes in commit order.
CREATE TABLE transparency_log (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    origin    TEXT,
    size      BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0),
    root      BYTEA NOT NULL CHECK (length(root) = 32)
);
INSERT INTO transparency_log (origin, size, root)
    VALUES (NULL, 0, '\xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

-- The entries: each one a DSSE envelope's compact JSON, hashed as a leaf.
CREATE TABLE log_entries (
    idx        BIGINT PRIMARY KEY CHECK (idx >= 0),
    entry      BYTEA NOT NULL,
    -- What the entry is about: a version event or a key event.
    version_id BIGINT REFERENCES versions (id),
    event      TEXT NOT NULL CHECK (event IN ('published', 'yanked', 'unyanked', 'activated', 'retired', 'revoked')),
    key_id     TEXT NOT NULL REFERENCES signing_keys (key_id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX log_entries_version ON log_entries (version_id, idx) WHERE version_id IS NOT NULL;

-- Every complete subtree's hash, numbered as tlog numbers stored hashes: proofs read
-- O(log n) of them.
CREATE TABLE log_hashes (
    idx  BIGINT PRIMARY KEY CHECK (idx >= 0),
    hash BYTEA NOT NULL CHECK (length(hash) = 32)
);

-- Append-only, whatever role connects (owners and superusers included): rows are never
-- changed or removed.
CREATE FUNCTION refuse_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the transparency log is append-only: % on % is refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER log_entries_append_only BEFORE UPDATE OR DELETE ON log_entries
    FOR EACH ROW EXECUTE FUNCTION refuse_log_change();
CREATE TRIGGER log_entries_no_truncate BEFORE TRUNCATE ON log_entries
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_log_change();
CREATE TRIGGER log_hashes_append_only BEFORE UPDATE OR DELETE ON log_hashes
    FOR EACH ROW EXECUTE FUNCTION refuse_log_change();
CREATE TRIGGER log_hashes_no_truncate BEFORE TRUNCATE ON log_hashes
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_log_change();
-- The head only grows: its size never goes back, and its origin never changes once set.
CREATE FUNCTION refuse_log_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.size < OLD.size OR (NEW.size = OLD.size AND NEW.root <> OLD.root)
       OR (OLD.origin IS NOT NULL AND NEW.origin IS DISTINCT FROM OLD.origin) THEN
        RAISE EXCEPTION 'the transparency log only grows: its size cannot shrink, its root cannot change at the same size and its origin cannot change'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER transparency_log_only_grows BEFORE UPDATE ON transparency_log
    FOR EACH ROW EXECUTE FUNCTION refuse_log_rewind();
CREATE TRIGGER transparency_log_kept BEFORE DELETE OR TRUNCATE ON transparency_log
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_log_change();
-- A key's status only moves forward (active → retired → revoked, or active → revoked),
-- its public key never changes, and a revocation index only ever comes down; keys are
-- never deleted.
CREATE FUNCTION refuse_key_rollback() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.key_id <> OLD.key_id OR NEW.public_key <> OLD.public_key
       OR (OLD.status = 'retired' AND NEW.status = 'active')
       OR (OLD.status = 'revoked' AND (NEW.status <> 'revoked' OR NEW.revoked_after_index > OLD.revoked_after_index)) THEN
        RAISE EXCEPTION 'a signing key''s status only moves forward (active, retired, revoked)'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER signing_keys_forward_only BEFORE UPDATE ON signing_keys
    FOR EACH ROW EXECUTE FUNCTION refuse_key_rollback();
CREATE TRIGGER signing_keys_kept BEFORE DELETE OR TRUNCATE ON signing_keys
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_log_change();
