-- joulehook: the schema jh-ship(1) ships into (PostgreSQL 15).
--
-- Run once, as the role that is to own the tables (not a shipping role):
--     psql -v ON_ERROR_STOP=1 -d DB -f ship.sql
-- then give each developer a login in jh_shipper, and the team lead one
-- in jh_auditor:
--     CREATE ROLE alice LOGIN IN ROLE jh_shipper;
--     CREATE ROLE lead LOGIN IN ROLE jh_auditor;
--
-- The tables are append-only.  jh_shipper may INSERT and SELECT, nothing
-- else; triggers refuse UPDATE, DELETE and TRUNCATE to every role but the
-- owner (and roles with its privileges: superusers), whatever privileges
-- it was given; an entry is accepted only after the entry before it in
-- its session, linked by its prev; who shipped a row is stamped by the
-- database, not by the shipper.  An agent holding a developer's shipping
-- credentials can add rows but never remove or change one, so what was
-- shipped is a checkpoint sink it cannot cut.

BEGIN;

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jh_shipper') THEN
		CREATE ROLE jh_shipper NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jh_auditor') THEN
		CREATE ROLE jh_auditor NOLOGIN;
	END IF;
END $$;

CREATE SCHEMA joulehook;
REVOKE ALL ON SCHEMA joulehook FROM PUBLIC;
GRANT USAGE ON SCHEMA joulehook TO jh_shipper, jh_auditor;

-- One row per chain/1 entry (joulehook-formats(5), The chained log).
CREATE TABLE joulehook.entries (
	entry_hash	bytea PRIMARY KEY,	-- SHA-256 of raw
	session_hash	bytea NOT NULL,		-- SHA-256 of the session id:
						-- the log's file name
	seq		bigint NOT NULL,
	prev		bytea NOT NULL,
	raw		bytea NOT NULL,		-- the chain/1 envelope, exact
	receipt		bytea NOT NULL,		-- the receipt it embeds, exact
	kind		text NOT NULL,		-- the receipt's kind
	core		jsonb NOT NULL,		-- the receipt's core, decoded
	ts		bigint NOT NULL,	-- the entry's ts (Unix ms)
	steward		text NOT NULL,		-- the key that chained it
	session		text GENERATED ALWAYS AS (core ->> 'session') STORED,
	shipped_at	timestamptz NOT NULL DEFAULT now(),
	shipped_by	name NOT NULL DEFAULT current_user,
	UNIQUE (session_hash, seq),
	CHECK (entry_hash = sha256(raw)),
	CHECK (length(session_hash) = 32 AND length(prev) = 32),
	CHECK (seq >= 0)
);

-- One row per checkpoint/1 (joulehook-formats(5), Checkpoints).
CREATE TABLE joulehook.checkpoints (
	cp_hash		bytea PRIMARY KEY,	-- SHA-256 of raw
	session_hash	bytea NOT NULL,
	count		bigint NOT NULL,
	head		bytea NOT NULL,
	raw		bytea NOT NULL,		-- the checkpoint/1 envelope
	core		jsonb NOT NULL,
	ts		bigint NOT NULL,
	steward		text NOT NULL,
	session		text GENERATED ALWAYS AS (core ->> 'session') STORED,
	shipped_at	timestamptz NOT NULL DEFAULT now(),
	shipped_by	name NOT NULL DEFAULT current_user,
	CHECK (cp_hash = sha256(raw)),
	CHECK (length(session_hash) = 32 AND length(head) = 32),
	CHECK (count > 0)
);
CREATE INDEX checkpoints_session ON joulehook.checkpoints (session_hash);

-- Who shipped it and when are the database's word, not the shipper's.
CREATE FUNCTION joulehook.stamp() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	NEW.shipped_by := current_user;
	NEW.shipped_at := now();
	RETURN NEW;
END $$;

-- No gap: entry n only after entry n-1 of its session, whose hash is its
-- prev; entry 0 has 32 zero bytes.  A second, different entry n of a
-- session (a fork) is refused by UNIQUE (session_hash, seq).
CREATE FUNCTION joulehook.entries_link() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NEW.seq = 0 THEN
		IF NEW.prev <> '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea THEN
			RAISE EXCEPTION 'joulehook: entry 0 of session % has a prev',
			    encode(NEW.session_hash, 'hex') USING ERRCODE = 'JH001';
		END IF;
	ELSIF NOT EXISTS (SELECT 1 FROM joulehook.entries e
	    WHERE e.session_hash = NEW.session_hash AND e.seq = NEW.seq - 1
	    AND e.entry_hash = NEW.prev) THEN
		RAISE EXCEPTION 'joulehook: gap: entry % of session % follows no shipped entry % that it links to',
		    NEW.seq, encode(NEW.session_hash, 'hex'), NEW.seq - 1
		    USING ERRCODE = 'JH001';
	END IF;
	RETURN NEW;
END $$;

-- UPDATE, DELETE and TRUNCATE only for the owner (or roles with its
-- privileges); refused for everyone else, whatever they were granted.
CREATE FUNCTION joulehook.append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF pg_has_role(current_user, (SELECT c.relowner FROM pg_class c
	    WHERE c.oid = TG_RELID), 'USAGE') THEN
		IF TG_LEVEL = 'STATEMENT' THEN
			RETURN NULL;
		ELSIF TG_OP = 'DELETE' THEN
			RETURN OLD;
		END IF;
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'joulehook: %.% is append-only: % refused for %',
	    TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP, current_user
	    USING ERRCODE = 'JH002';
END $$;

CREATE TRIGGER link BEFORE INSERT ON joulehook.entries
    FOR EACH ROW EXECUTE FUNCTION joulehook.entries_link();
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['entries', 'checkpoints'] LOOP
		EXECUTE format('CREATE TRIGGER a_stamp BEFORE INSERT ON '
		    'joulehook.%I FOR EACH ROW EXECUTE FUNCTION '
		    'joulehook.stamp()', t);
		EXECUTE format('CREATE TRIGGER append_only BEFORE UPDATE OR '
		    'DELETE ON joulehook.%I FOR EACH ROW EXECUTE FUNCTION '
		    'joulehook.append_only()', t);
		EXECUTE format('CREATE TRIGGER append_only_truncate BEFORE '
		    'TRUNCATE ON joulehook.%I FOR EACH STATEMENT EXECUTE '
		    'FUNCTION joulehook.append_only()', t);
	END LOOP;
END $$;

-- Every receipt, flat, for the team lead's queries.  developer is the
-- role that shipped it; uid (hardened mode) and steward say more.
CREATE VIEW joulehook.receipts AS
SELECT e.session, e.seq, e.kind,
	e.shipped_by AS developer,
	(e.core ->> 'uid')::bigint AS uid,
	e.core ->> 'steward' AS steward,
	e.core ->> 'grant' AS grant_id,
	e.core ->> 'host' AS host,
	(to_timestamp((e.core ->> 'ts')::bigint / 1000.0)
	    AT TIME ZONE 'UTC')::date AS day,
	CASE WHEN e.kind = 'decision/1' THEN e.core ->> 'verdict' END
	    AS verdict,
	e.core ->> 'code' AS code,
	e.core ->> 'rule' AS rule,
	e.core ->> 'tool' AS tool,
	coalesce((e.core ->> 'debited_uj')::numeric, 0) AS debited_uj,
	e.core, e.entry_hash, e.shipped_at
FROM joulehook.entries e;

-- Spend and verdicts by developer, grant, host and day (UTC).
CREATE VIEW joulehook.spend AS
SELECT developer, grant_id, host, day,
	sum(debited_uj) AS spent_uj,
	count(*) FILTER (WHERE kind = 'decision/1') AS decisions,
	count(*) FILTER (WHERE verdict = 'allow') AS allow,
	count(*) FILTER (WHERE verdict = 'deny') AS deny,
	count(*) FILTER (WHERE verdict = 'ask') AS ask,
	count(*) FILTER (WHERE verdict = 'rewrite') AS rewrite,
	count(*) FILTER (WHERE kind = 'efficiency/1') AS model_units,
	count(DISTINCT session) AS sessions
FROM joulehook.receipts
GROUP BY developer, grant_id, host, day;

-- Denials by the rule (or, where no rule decided, the code).
CREATE VIEW joulehook.denials AS
SELECT coalesce(rule, '') AS rule, code,
	count(*) AS denials,
	count(DISTINCT session) AS sessions,
	count(DISTINCT developer) AS developers,
	min(day) AS first_day, max(day) AS last_day
FROM joulehook.receipts
WHERE verdict = 'deny'
GROUP BY coalesce(rule, ''), code;

-- Each session's latest checkpoint (the largest count) against the
-- entries shipped: ok, missing (the checkpoint vouches for entries the
-- database does not hold: not shipped yet, or cut before they were), or
-- head differs (the entry at count-1 is not the one it signed).
CREATE VIEW joulehook.checkpoint_status AS
WITH latest AS (
	SELECT DISTINCT ON (session_hash) session_hash, session, count, head
	FROM joulehook.checkpoints
	ORDER BY session_hash, count DESC, ts DESC
), shipped AS (
	SELECT session_hash, count(*) AS entries
	FROM joulehook.entries GROUP BY session_hash
)
SELECT l.session, encode(l.session_hash, 'hex') AS log,
	l.count AS checkpoint_count,
	coalesce(s.entries, 0) AS entries,
	CASE WHEN coalesce(s.entries, 0) < l.count THEN 'missing'
	    WHEN h.entry_hash IS DISTINCT FROM l.head THEN 'head differs'
	    ELSE 'ok' END AS status
FROM latest l
LEFT JOIN shipped s USING (session_hash)
LEFT JOIN joulehook.entries h
    ON h.session_hash = l.session_hash AND h.seq = l.count - 1;

REVOKE ALL ON ALL TABLES IN SCHEMA joulehook FROM PUBLIC;
GRANT SELECT, INSERT ON joulehook.entries, joulehook.checkpoints
    TO jh_shipper;
GRANT SELECT ON ALL TABLES IN SCHEMA joulehook TO jh_shipper, jh_auditor;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA joulehook FROM PUBLIC;

COMMIT;
