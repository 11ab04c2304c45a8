-- Re-baseline: bring the schema to exactly the baseline state.
-- :baseline_file is loaded afterwards by rebaseline.sh
SELECT pg_terminate_backend(pid)
  FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid();

DO $$
DECLARE s text;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace
           WHERE nspname NOT LIKE 'pg_%' AND nspname <> 'information_schema'
  LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END $$;

CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
