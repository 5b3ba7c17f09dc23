-- Optional, for tables that programs other than txoutbox insert into (psql, services in other
-- languages): wake idle relays at commit. txoutbox's own appenders do not need it (they wake relays
-- after commit, Outbox#committed), and while every relay is busy it notifies only for a late row.
--
-- How it stays cheap and loses no wake-up: an idle relay holds the advisory lock (1415073609, 2123445301)
-- in shared mode. At commit this deferred trigger takes (1415073603, 2123445301) in shared mode until the
-- commit is visible, then tries (1415073609, 2123445301) in exclusive mode: that fails only while a relay
-- is idle, and only then does the transaction notify (and take PostgreSQL's notification lock). A relay
-- going idle takes its lock, waits on (1415073603, 2123445301) for writers that checked before it, then
-- looks once more before it sleeps. Neither try ever waits.
--
-- The payload says where the transaction's (first) row sits in the due index, its available_at as
-- seconds since the epoch, so that relays whose cursor is past it look behind from there. While every
-- relay is busy, a row more than 100 ms behind its commit there (the transaction was held open, or
-- the row has an old time) notifies too: busy relays may have claimed past it.
CREATE OR REPLACE FUNCTION outbox_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('txoutbox.txoutbox_outbox', true) = 'checked' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('txoutbox.txoutbox_outbox', 'checked', true);
    IF pg_try_advisory_xact_lock_shared(1415073603, 2123445301) THEN
        IF pg_try_advisory_lock(1415073609, 2123445301) THEN
            PERFORM pg_advisory_unlock(1415073609, 2123445301);
            IF NOT (isfinite(NEW.available_at)
                    AND NEW.available_at < clock_timestamp() - interval '100 milliseconds') THEN
                RETURN NULL;
            END IF;
        END IF;
    END IF;
    PERFORM pg_notify('txoutbox_outbox',
        CASE WHEN isfinite(NEW.available_at) THEN extract(epoch FROM NEW.available_at)::text ELSE '' END);
    RETURN NULL;
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'outbox'::regclass AND tgname = 'outbox_wake') THEN
        CREATE CONSTRAINT TRIGGER outbox_wake AFTER INSERT ON outbox
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION outbox_wake();
    END IF;
END
$$;
