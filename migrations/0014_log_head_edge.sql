-- The log's head carries everything an append reads, so appending an entry is one locked
-- read and one write instead of four round trips inside the publishing transaction:
--   active_key  the key that signs now (kept from signing_keys by a trigger, so a rotation
--               that commits while an append waits for the head is seen by its locked read);
--   edge_idx /  the stored hashes on the tree's right edge (the complete subtrees left of the
--   edge_hashes next leaf): what the next append and the new root read;
--   recorded_at when the last entry was recorded: entries' times never go back along the log.
ALTER TABLE transparency_log
    ADD COLUMN active_key  TEXT REFERENCES signing_keys (key_id),
    ADD COLUMN edge_idx    BIGINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN edge_hashes BYTEA[] NOT NULL DEFAULT '{}',
    ADD COLUMN recorded_at TIMESTAMPTZ,
    ADD CONSTRAINT transparency_log_edge_pairs
        CHECK (cardinality(edge_idx) = cardinality(edge_hashes));

CREATE FUNCTION keep_log_active_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE transparency_log SET active_key = (SELECT key_id FROM signing_keys WHERE status = 'active');
    RETURN NULL;
END
$$;
CREATE TRIGGER signing_keys_active_on_head AFTER INSERT OR UPDATE OF status ON signing_keys
    FOR EACH STATEMENT EXECUTE FUNCTION keep_log_active_key();

-- The edge is a copy of stored hashes, never a source of its own: at commit, every hash it
-- holds must be the stored hash of that number (log_hashes never changes, so a pair that
-- was right once stays right).
CREATE FUNCTION refuse_foreign_edge() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(NEW.edge_idx, NEW.edge_hashes) AS e(idx, hash)
               LEFT JOIN log_hashes h ON h.idx = e.idx
               WHERE h.hash IS DISTINCT FROM e.hash) THEN
        RAISE EXCEPTION 'the transparency log''s edge must repeat its stored hashes'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER transparency_log_edge_stored AFTER UPDATE ON transparency_log
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_foreign_edge();

-- An existing log: the active key now; the edge is empty, so the first append reads it from
-- log_hashes and writes it.
UPDATE transparency_log SET active_key = (SELECT key_id FROM signing_keys WHERE status = 'active');

-- Where each key's activation is in the log, so a verifier that trusts the previous key
-- can fetch that entry (signed by both keys) and follow the rotation without taking the
-- registry's word for the new key. Existing activations are found in their envelopes.
ALTER TABLE signing_keys ADD COLUMN activated_index BIGINT CHECK (activated_index >= 0);
UPDATE signing_keys k SET activated_index = a.idx
FROM (
    SELECT e.idx,
           convert_from(decode(convert_from(e.entry, 'UTF8')::jsonb ->> 'payload', 'base64'), 'UTF8')::jsonb
               -> 'predicate' ->> 'keyId' AS key_id
    FROM log_entries e WHERE e.event = 'activated'
) a
WHERE a.key_id = k.key_id;
