-- The least-privilege PostgreSQL role of the txoutbox relay server (txoutbox-server): run it as the
-- table's owner, once per outbox table, after the table exists (created by your migrations, or by
-- `txoutbox schema --apply` run as the owner):
--
--   psql -v role=txoutbox_relay -v password="$RELAY_PASSWORD" -v schema=public -v table=outbox \
--        -f relay-role.sql "$DATABASE_URL"
--
-- What the relay does with the table, and so all it may do:
--   SELECT  claims (with FOR UPDATE SKIP LOCKED), the statistics and /metrics gauges, the dead listing;
--   UPDATE  leases, attempts, marking published or dead, revive;
--   DELETE  published rows (at once, or purged after relay.retain-published), delete-dead.
-- It inserts nothing (your services append), creates nothing (keep create-schema: false), and LISTEN
-- for wake-ups needs no grant. Checked by the server's LeastPrivilegeRoleTest, which relays, revives,
-- purges and reads statistics as a role made by this file and nothing else.
--
-- Not covered: `published-partitions` (the relay then also moves rows to <table>_published and creates
-- and drops its partitions, which needs INSERT there and ownership of it), and `create-schema: true`.

\set ON_ERROR_STOP on

CREATE ROLE :"role" LOGIN PASSWORD :'password';
GRANT CONNECT ON DATABASE :"DBNAME" TO :"role";
GRANT USAGE ON SCHEMA :"schema" TO :"role";
GRANT SELECT, UPDATE, DELETE ON TABLE :"schema".:"table" TO :"role";
