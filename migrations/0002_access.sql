-- Identity and access (issue 3): explicit token scopes, audit filters, user state times.

-- Tokens now always carry explicit, known scopes, `read` included. The foundation accepted
-- any names: unknown ones are dropped; a token left with none meant "what the role
-- allows", so it gets exactly that.
UPDATE api_tokens SET scopes = ARRAY(
    SELECT s FROM unnest(scopes) AS s WHERE s IN ('read', 'submit', 'review', 'admin'));
UPDATE api_tokens SET scopes = array_prepend('read', scopes)
    WHERE scopes <> '{}' AND NOT ('read' = ANY (scopes));
UPDATE api_tokens t SET scopes = CASE u.role
        WHEN 'admin' THEN ARRAY['read', 'submit', 'review', 'admin']
        WHEN 'reviewer' THEN ARRAY['read', 'submit', 'review']
        WHEN 'member' THEN ARRAY['read', 'submit']
        ELSE ARRAY['read'] END
    FROM users u
    WHERE u.id = t.user_id AND t.scopes = '{}';
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_scopes_known
    CHECK (scopes <@ ARRAY['read', 'submit', 'review', 'admin'] AND cardinality(scopes) > 0);
UPDATE api_tokens SET name = 'token' WHERE name = '';
UPDATE api_tokens SET name = left(name, 100) WHERE length(name) > 100;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_name_length CHECK (length(name) BETWEEN 1 AND 100);
CREATE INDEX api_tokens_org_created ON api_tokens (org_id, created_at DESC, id DESC);

ALTER TABLE users ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT now();

-- `GET /v1/audit` filters by actor and action within an organisation, newest first.
CREATE INDEX audit_log_org_actor_id ON audit_log (org_id, actor, id);
CREATE INDEX audit_log_org_action_id ON audit_log (org_id, action, id);
