-- Optional, for tables that programs other than txoutbox insert into (psql, services in other
-- languages): wake idle relays at commit. txoutbox's own appenders do not need it (they wake relays
-- after commit, Outbox#committed), and while every relay is busy it notifies only for a late row.
--
-- How it stays cheap and loses no wake-up: an idle relay holds the advisory lock ({idle_class}, {key})
-- in shared mode. At commit this deferred trigger takes ({commit_class}, {key}) in shared mode until the
-- commit is visible, then tries ({idle_class}, {key}) in exclusive mode: that fails only while a relay
-- is idle, and only then does the transaction notify (and take PostgreSQL's notification lock). A relay
-- going idle takes its lock, waits on ({commit_class}, {key}) for writers that checked before it, then
-- looks once more before it sleeps. Neither try ever waits.
--
-- The payload says where the transaction's (first) row sits in the due index, its available_at as
-- seconds since the epoch, so that relays whose cursor is past it look behind from there. While every
-- relay is busy, a row more than {late_ms} ms behind its commit there (the transaction was held open, or
-- the row has an old time) notifies too: busy relays may have claimed past it.
CREATE OR REPLACE FUNCTION {table}_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('txoutbox.{channel}', true) = 'checked' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('txoutbox.{channel}', 'checked', true);
    IF pg_try_advisory_xact_lock_shared({commit_class}, {key}) THEN
        IF pg_try_advisory_lock({idle_class}, {key}) THEN
            PERFORM pg_advisory_unlock({idle_class}, {key});
            IF NOT (isfinite(NEW.available_at)
                    AND NEW.available_at < clock_timestamp() - interval '{late_ms} milliseconds') THEN
                RETURN NULL;
            END IF;
        END IF;
    END IF;
    PERFORM pg_notify('{channel}',
        CASE WHEN isfinite(NEW.available_at) THEN extract(epoch FROM NEW.available_at)::text ELSE '' END);
    RETURN NULL;
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '{table}'::regclass AND tgname = '{name}_wake') THEN
        CREATE CONSTRAINT TRIGGER {name}_wake AFTER INSERT ON {table}
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {table}_wake();
    END IF;
END
$$;
