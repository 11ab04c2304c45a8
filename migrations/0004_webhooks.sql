-- Webhooks (issue 5): organisations are told of patch and version events. Deliveries are
-- an outbox written in the same transaction as the event, and claimed by the registry's
-- workers with FOR UPDATE SKIP LOCKED, so every replica can deliver and none twice.

CREATE TABLE webhooks (
    id          UUID PRIMARY KEY,
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    url         TEXT NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2000),
    secret      TEXT NOT NULL,
    events      TEXT[] NOT NULL CHECK (cardinality(events) > 0),
    active      BOOLEAN NOT NULL DEFAULT true,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_org ON webhooks (org_id) WHERE active;

CREATE TABLE webhook_deliveries (
    id               BIGSERIAL PRIMARY KEY,
    webhook_id       UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event            TEXT NOT NULL,
    payload          JSONB NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_status_code INTEGER,
    last_error       TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at     TIMESTAMPTZ
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, id DESC);
