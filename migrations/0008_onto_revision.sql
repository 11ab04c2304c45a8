-- A patch's candidate was built on the latest revision it names here, not only on that
-- revision's digest: a revision that changed only file modes keeps the digest (modes are
-- in the manifest, not in the digest), and approval must notice it moved.
ALTER TABLE patches ADD COLUMN onto_revision INTEGER;
