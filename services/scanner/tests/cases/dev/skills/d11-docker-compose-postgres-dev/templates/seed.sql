CREATE TABLE IF NOT EXISTS users (
  id bigserial PRIMARY KEY,
  email text UNIQUE NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO users (email) VALUES ('alice@example.test'), ('bob@example.test')
ON CONFLICT DO NOTHING;
