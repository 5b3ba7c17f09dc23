package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.Outbox;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue 24: rows fuzzed on every database. Each try writes rows by plain SQL, as another program would,
 * with every column at its type's extremes or holding garbage (NULLs, the largest and smallest integers,
 * unknown statuses, far past and far future times, huge and malformed headers, ids of the wrong shape,
 * the lease of another owner), among good rows, and relays them. The property: every good row is
 * published once, every bad row that is due ends dead with its reason within its attempt budget, rows
 * that are not due or not pending are left alone, no claim fails, and the relay carries on publishing.
 * Rows the database itself refuses are not written. A concrete subclass per database runs it (jqwik runs
 * the inherited property).
 */
abstract class RowFuzzProperties extends DatabaseTest {
    /** The relay's attempt budget, for rows without one of their own. */
    private static final int BUDGET = 3;

    private static final OffsetDateTime FAR_PAST = OffsetDateTime.of(1000, 1, 2, 0, 0, 0, 0, ZoneOffset.UTC);
    private static final OffsetDateTime FAR_FUTURE =
            OffsetDateTime.of(9999, 12, 30, 23, 59, 59, 999_999_000, ZoneOffset.UTC);

    private Outbox outbox;

    /** What must become of a row, from what its columns hold. The later constants win. */
    enum Expect {
        /** Published once, then deleted. */
        PUBLISHED,
        /** Either published once or dead with a reason: a value whose reading a database decides. */
        ENDS,
        /** Dead with a reason, never published. */
        DEAD,
        /** Pending and never claimed: not due, or leased by another owner whose lease runs. */
        LEFT_PENDING,
        /** Not pending (dead or published): never claimed, unchanged. */
        UNTOUCHED
    }

    /**
     * A column's value and what it makes of its row.
     *
     * @param sql the value to bind, or a {@link Literal} to write into the statement
     */
    record Value(Object sql, Expect expect, String label) {
        @Override
        public String toString() {
            return label;
        }
    }

    /** SQL text written into the statement, for values no driver binds (PostgreSQL's infinities). */
    record Literal(String text) {}

    /** A generated row: its columns (absent ones take their defaults) and the values of its budget. */
    record FuzzRow(Map<String, Value> columns) {
        Expect expect() {
            Expect e = Expect.PUBLISHED;
            for (Value v : columns.values()) {
                if (v.expect().compareTo(e) > 0) {
                    e = v.expect();
                }
            }
            return e;
        }

        @Override
        public String toString() {
            return columns.toString();
        }
    }

    @BeforeProperty
    void createOutbox() {
        outbox = newOutbox();
    }

    @AfterProperty
    void dropOutbox() throws SQLException {
        dropTables();
    }

    /** Tries: {@code jqwik.tries.default} in junit-platform.properties (CI), or a system property of the fork. */
    @Property(shrinking = ShrinkingMode.BOUNDED)
    void good_rows_are_published_bad_rows_end_dead_and_no_claim_fails(
            @ForAll("rows") List<FuzzRow> fuzzed, @ForAll("goodRows") List<FuzzRow> good) throws SQLException {
        execute("DELETE FROM " + outbox.table());
        List<FuzzRow> rows = new ArrayList<>(fuzzed);
        rows.addAll(good);
        Map<Object, FuzzRow> written = new LinkedHashMap<>();
        Map<Object, Long> attemptsBefore = new LinkedHashMap<>();
        for (FuzzRow row : rows) {
            Object id = write(row);
            Statistics.label("rows").collect(id == null ? "refused by the database" : row.expect());
            if (id != null) {
                written.put(id, row);
                attemptsBefore.put(id, attempts(id));
            }
        }

        List<String> errors = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker)
                .maxAttempts(BUDGET)
                .backoff(new Backoff(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), false))
                .listener(errorsInto(errors))
                .build()) {
            for (int cycle = 0; cycle < 12 && relay.runOnce() > 0; cycle++) {
                // every due row ends within a few claims: dead at once, or published at once
            }
            assertThat(relay.runOnce()).as("nothing loops").isZero();
            assertThat(errors).as("no claim, publish or mark failed").isEmpty();

            for (Map.Entry<Object, FuzzRow> w : written.entrySet()) {
                check(w.getKey(), w.getValue(), attemptsBefore.get(w.getKey()), broker);
            }

            UUID after = appendCommitted(outbox, event("order.placed", "after"))
                    .get(0)
                    .id();
            relay.runOnce();
            assertThat(broker.publishedIds()).as("the relay carries on").contains(after);
        }
        assertThat(broker.duplicates()).as("nothing published twice").isEmpty();
    }

    private void check(Object id, FuzzRow row, Long attemptsBefore, RecordingPublisher broker) throws SQLException {
        UUID uuid = asUuid(id);
        boolean published = uuid != null && broker.publishedIds().contains(uuid);
        String[] state = state(id);
        String status = state == null ? null : state[0];
        String lastError = state == null ? null : state[1];
        Long attempts = state == null || state[2] == null ? null : Long.valueOf(state[2]);
        String what = "row " + id + " " + row;
        switch (row.expect()) {
            case PUBLISHED -> {
                assertThat(published).as("published: " + what).isTrue();
                assertThat(status).as("deleted once published: " + what).isNull();
            }
            case ENDS -> {
                if (published) {
                    assertThat(status).as("deleted once published: " + what).isNull();
                } else {
                    assertThat(status).as("dead: " + what).isEqualTo("dead");
                    assertThat(lastError).as("with a reason: " + what).isNotBlank();
                }
            }
            case DEAD -> {
                assertThat(published).as("not published: " + what).isFalse();
                assertThat(status).as("dead: " + what).isEqualTo("dead");
                assertThat(lastError).as("with a reason: " + what).isNotBlank();
                if (attemptsBefore != null && attempts != null) {
                    assertThat(attempts)
                            .as("at most the one attempt of the claim that ended it: " + what)
                            .isLessThanOrEqualTo(Math.min(attemptsBefore + 1, Integer.MAX_VALUE));
                }
            }
            case LEFT_PENDING -> {
                assertThat(published).as("not published: " + what).isFalse();
                assertThat(status).as("still pending: " + what).isEqualToIgnoringCase("pending");
                assertThat(attempts).as("no attempt counted: " + what).isEqualTo(attemptsBefore);
            }
            case UNTOUCHED -> {
                assertThat(published).as("not published: " + what).isFalse();
                assertThat(status)
                        .as("unchanged: " + what)
                        .isEqualTo(row.columns().get("status").sql());
                assertThat(attempts).as("no attempt counted: " + what).isEqualTo(attemptsBefore);
            }
        }
    }

    // ---- generators --------------------------------------------------------------------------------

    @Provide
    Arbitrary<List<FuzzRow>> rows() {
        return fuzzRow().list().ofMinSize(1).ofMaxSize(6);
    }

    @Provide
    Arbitrary<List<FuzzRow>> goodRows() {
        return Arbitraries.just(new FuzzRow(Map.of("aggregate_id", good("o-good"))))
                .list()
                .ofMinSize(1)
                .ofMaxSize(3);
    }

    private Arbitrary<FuzzRow> fuzzRow() {
        List<String> names = List.of(
                "id",
                "aggregate_type",
                "aggregate_id",
                "event_type",
                "event_version",
                "payload",
                "content_type",
                "headers",
                "tenant_id",
                "destination",
                "created_at",
                "available_at",
                "status",
                "attempts",
                "max_attempts",
                "lease",
                "last_error");
        List<Arbitrary<Value>> columns = List.of(
                ids(),
                text("order"),
                text("o-1"),
                text("order.placed"),
                integers(1, Expect.DEAD, Expect.DEAD, Expect.ENDS),
                payloads(),
                text("application/json"),
                headers(),
                optionalText(),
                optionalText(),
                createdAt(),
                availableAt(),
                statuses(),
                attemptsValues(),
                maxAttempts(),
                leases(),
                lastErrors());
        return Combinators.combine(columns).as(values -> {
            Map<String, Value> row = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                row.put(names.get(i), values.get(i));
            }
            return new FuzzRow(budgeted(row));
        });
    }

    /** The attempt columns decide together: a row whose attempts reached its budget is dead at the claim. */
    private static Map<String, Value> budgeted(Map<String, Value> row) {
        Object attempts = row.get("attempts").sql();
        Object max = row.get("max_attempts").sql();
        if (attempts instanceof Integer a && (max == null || max instanceof Integer)) {
            Integer m = (Integer) max;
            boolean validMax = m == null || (m >= 1 && m <= 1_000);
            int budget = m == null ? BUDGET : m;
            Expect e = !validMax || a < 0 || a >= budget ? Expect.DEAD : Expect.PUBLISHED;
            row.put("attempts", new Value(attempts, e, "attempts " + a + " of " + (m == null ? "relay " + BUDGET : m)));
        }
        return row;
    }

    private static Value good(Object value) {
        return new Value(value, Expect.PUBLISHED, String.valueOf(value));
    }

    private static Value bad(Object value, Expect expect, String label) {
        return new Value(value, expect, label);
    }

    @SafeVarargs
    private static Arbitrary<Value> oneOf(Value usual, Value... unusual) {
        List<Tuple.Tuple2<Integer, Value>> choices = new ArrayList<>();
        // About one column in eight unusual: two or three per row, so that most rows get past the database's
        // own constraints and reach the relay.
        choices.add(Tuple.of(unusual.length * 7, usual));
        for (Value v : unusual) {
            choices.add(Tuple.of(1, v));
        }
        return Arbitraries.frequency(choices);
    }

    private Arbitrary<Value> ids() {
        if (database() == TestDatabase.MARIADB) {
            UUID upper = UUID.randomUUID();
            return oneOf(
                    bad(null, Expect.PUBLISHED, "random id"),
                    bad("order-1", Expect.DEAD, "id 'order-1'"),
                    bad("1-1-1-1-1", Expect.DEAD, "id '1-1-1-1-1'"),
                    bad(upper.toString().toUpperCase(java.util.Locale.ROOT), Expect.ENDS, "upper-case id"),
                    bad(" " + UUID.randomUUID().toString().substring(1), Expect.DEAD, "id with a space"));
        }
        return Arbitraries.just(bad(null, Expect.PUBLISHED, "random id"));
    }

    private static Arbitrary<Value> text(String usual) {
        return oneOf(
                good(usual),
                bad("", Expect.DEAD, "empty"),
                bad("   ", Expect.DEAD, "blank"),
                bad("a\nb", Expect.DEAD, "line feed"),
                bad("a\u2028b", Expect.DEAD, "line separator"),
                bad("a\u0000b", Expect.DEAD, "NUL"),
                bad("x".repeat(255), Expect.PUBLISHED, "255 characters"),
                bad("x".repeat(256), Expect.DEAD, "256 characters"),
                bad("\ud83d\ude00 \u00e9", Expect.PUBLISHED, "emoji and accent"),
                bad("\ud83d\ude00".repeat(255), Expect.DEAD, "255 emoji: 510 UTF-16 characters"),
                bad("null", Expect.PUBLISHED, "the text null"),
                bad(null, Expect.DEAD, "NULL"));
    }

    private static Arbitrary<Value> optionalText() {
        return oneOf(
                good(null),
                good("t-1"),
                bad("", Expect.ENDS, "empty"),
                bad("a\rb", Expect.DEAD, "carriage return"),
                bad("x".repeat(256), Expect.DEAD, "256 characters"));
    }

    private static Arbitrary<Value> integers(int usual, Expect zero, Expect negative, Expect max) {
        return oneOf(
                good(usual),
                bad(0, zero, "0"),
                bad(-1, negative, "-1"),
                bad(Integer.MIN_VALUE, negative, "MIN_INT"),
                bad(Integer.MAX_VALUE, max, "MAX_INT"),
                bad(null, Expect.DEAD, "NULL"));
    }

    private static Arbitrary<Value> attemptsValues() {
        return oneOf(
                good(0),
                good(1),
                good(2),
                good(3),
                good(4),
                good(-1),
                good(Integer.MIN_VALUE),
                good(Integer.MAX_VALUE),
                bad(null, Expect.DEAD, "NULL"));
    }

    private static Arbitrary<Value> maxAttempts() {
        return oneOf(
                good(null),
                good(5),
                good(1_000),
                good(0),
                good(-1),
                good(Integer.MIN_VALUE),
                good(Integer.MAX_VALUE),
                good(1_001));
    }

    private static Arbitrary<Value> payloads() {
        byte[] big = new byte[64 * 1024];
        java.util.Arrays.fill(big, (byte) 'x');
        return oneOf(
                good("{}".getBytes(StandardCharsets.UTF_8)),
                bad(new byte[0], Expect.PUBLISHED, "empty payload"),
                bad(new byte[] {0, (byte) 0xff, (byte) 0xfe}, Expect.PUBLISHED, "binary payload"),
                bad(big, Expect.PUBLISHED, "64 KiB payload"),
                bad(null, Expect.DEAD, "NULL payload"));
    }

    private Arbitrary<Value> headers() {
        boolean jsonb = database() == TestDatabase.POSTGRES;
        String many = RowLimitsContract.headersOf(65, 1);
        return oneOf(
                good("{}"),
                bad("{\"a\": \"b\"}", Expect.PUBLISHED, "one header"),
                bad("{\"n\": 1, \"t\": true, \"z\": null}", Expect.PUBLISHED, "number, boolean, null"),
                bad("[1, 2]", Expect.DEAD, "array"),
                bad("{\"a\": {\"b\": \"c\"}}", Expect.DEAD, "nested object"),
                bad("{\"a\": \"b\"", Expect.DEAD, "truncated"),
                bad("", jsonb ? Expect.DEAD : Expect.ENDS, "empty text"),
                bad(many, Expect.DEAD, "65 headers"),
                bad(RowLimitsContract.headersOf(1, 8_193), Expect.DEAD, "a value of 8,193 characters"),
                bad("{\"h\": \"" + "x".repeat(2 * 1024 * 1024) + "\"}", Expect.DEAD, "2 MiB of headers"),
                bad("{\"a\\nb\": \"c\"}", Expect.DEAD, "line feed in a name"),
                bad("{\"a\": \"1\", \"a\": \"2\"}", Expect.PUBLISHED, "a name twice"),
                bad("{\"n\": 1e999999}", Expect.ENDS, "a number beyond double"),
                bad("{\"a\": " + "[".repeat(2_000) + "]".repeat(2_000) + "}", Expect.DEAD, "nested 2,000 deep"),
                bad(null, Expect.DEAD, "NULL headers"));
    }

    private Arbitrary<Value> createdAt() {
        List<Value> unusual = new ArrayList<>(List.of(
                bad(time(FAR_PAST), Expect.PUBLISHED, "created far past"),
                bad(time(FAR_FUTURE), Expect.PUBLISHED, "created far future")));
        if (database() == TestDatabase.MARIADB) {
            unusual.add(bad(new Literal("'0000-00-00 00:00:00'"), Expect.ENDS, "created zero date"));
        }
        if (database() == TestDatabase.POSTGRES) {
            unusual.add(bad(new Literal("'infinity'::timestamptz"), Expect.ENDS, "created infinity"));
            unusual.add(bad(new Literal("'-infinity'::timestamptz"), Expect.ENDS, "created -infinity"));
        }
        return oneOf(good(time(OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1))), unusual.toArray(Value[]::new));
    }

    private Arbitrary<Value> availableAt() {
        List<Value> unusual = new ArrayList<>(List.of(
                bad(time(FAR_PAST), Expect.PUBLISHED, "due far past"),
                bad(time(FAR_FUTURE), Expect.LEFT_PENDING, "due far future"),
                bad(time(OffsetDateTime.now(ZoneOffset.UTC).plusHours(1)), Expect.LEFT_PENDING, "due in an hour")));
        if (database() == TestDatabase.MARIADB) {
            unusual.add(bad(new Literal("'0000-00-00 00:00:00'"), Expect.ENDS, "due zero date"));
        }
        if (database() == TestDatabase.POSTGRES) {
            unusual.add(bad(new Literal("'-infinity'::timestamptz"), Expect.PUBLISHED, "due -infinity"));
            unusual.add(bad(new Literal("'infinity'::timestamptz"), Expect.LEFT_PENDING, "due infinity"));
        }
        return oneOf(good(time(OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1))), unusual.toArray(Value[]::new));
    }

    private static Arbitrary<Value> statuses() {
        return oneOf(
                good("pending"),
                bad("dead", Expect.UNTOUCHED, "status dead"),
                bad("published", Expect.UNTOUCHED, "status published"),
                bad("unknown", Expect.UNTOUCHED, "status unknown"),
                // MariaDB compares text without case: there, 'PENDING' is pending.
                bad("PENDING", Expect.ENDS, "status PENDING"));
    }

    /** Written as two columns: the lease owner and its expiry. */
    private Arbitrary<Value> leases() {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return oneOf(
                good(null),
                bad(new Object[] {"other", time(now.plusHours(1))}, Expect.LEFT_PENDING, "leased by another"),
                bad(new Object[] {"other", time(FAR_FUTURE)}, Expect.LEFT_PENDING, "leased forever"),
                bad(new Object[] {"other", time(now.minusMinutes(5))}, Expect.PUBLISHED, "lease expired"),
                bad(new Object[] {"other", null}, Expect.PUBLISHED, "owner without expiry"),
                bad(new Object[] {null, time(now.plusHours(1))}, Expect.LEFT_PENDING, "expiry without owner"),
                bad(new Object[] {"x".repeat(255), time(FAR_PAST)}, Expect.PUBLISHED, "long owner, expired"));
    }

    private static Arbitrary<Value> lastErrors() {
        return oneOf(
                good(null),
                bad("x".repeat(60_000), Expect.PUBLISHED, "long last error"),
                bad("a\u0000b", Expect.PUBLISHED, "NUL in last error"));
    }

    /** @return the time as this database's driver takes it */
    private Object time(OffsetDateTime t) {
        return database() == TestDatabase.MARIADB
                ? t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()
                : t;
    }

    // ---- writing and reading rows ------------------------------------------------------------------

    /** @return the row's id as bound, or {@code null} when the database refused the row */
    private Object write(FuzzRow row) throws SQLException {
        Object id = row.columns().containsKey("id") && row.columns().get("id").sql() != null
                ? row.columns().get("id").sql()
                : database() == TestDatabase.MARIADB ? UUID.randomUUID().toString() : UUID.randomUUID();
        List<String> names = new ArrayList<>(List.of("id"));
        List<String> marks = new ArrayList<>(List.of("?"));
        List<Object> values = new ArrayList<>();
        values.add(id);
        Map<String, Value> columns = new LinkedHashMap<>(row.columns());
        columns.remove("id");
        Map<String, Object> defaults = Map.of(
                "aggregate_type", "order",
                "aggregate_id", "o-1",
                "event_type", "order.placed",
                "payload", "{}".getBytes(StandardCharsets.UTF_8),
                "headers", "{}");
        for (Map.Entry<String, Object> d : defaults.entrySet()) {
            columns.putIfAbsent(d.getKey(), good(d.getValue()));
        }
        for (Map.Entry<String, Value> c : columns.entrySet()) {
            Object v = c.getValue().sql();
            if (c.getKey().equals("lease")) {
                Object[] lease = (Object[]) v;
                names.add("lease_owner");
                names.add("lease_expires_at");
                marks.add(lease == null || lease[0] == null ? "NULL" : "?");
                marks.add(lease == null || lease[1] == null ? "NULL" : "?");
                if (lease != null) {
                    for (Object part : lease) {
                        if (part != null) {
                            values.add(part);
                        }
                    }
                }
                continue;
            }
            if (v == null && c.getValue().expect() == Expect.PUBLISHED) {
                continue; // the column's default
            }
            names.add(c.getKey());
            if (v == null) {
                marks.add("NULL");
            } else if (v instanceof Literal literal) {
                marks.add(literal.text());
            } else {
                marks.add(
                        database() == TestDatabase.POSTGRES && c.getKey().equals("headers") ? "CAST(? AS jsonb)" : "?");
                values.add(v);
            }
        }
        String sql = "INSERT INTO " + outbox.table() + " (" + String.join(", ", names) + ") VALUES ("
                + String.join(", ", marks) + ")";
        try (Connection c = dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.size(); i++) {
                Object v = values.get(i);
                if (v instanceof byte[] bytes) {
                    ps.setBytes(i + 1, bytes);
                } else {
                    ps.setObject(i + 1, v);
                }
            }
            ps.executeUpdate();
            return id;
        } catch (SQLException refused) {
            String state = refused.getSQLState();
            if (state != null && (state.startsWith("22") || state.startsWith("23") || state.startsWith("HY"))) {
                return null; // the database's constraints refuse the row: no program can write it
            }
            throw refused;
        }
    }

    private Long attempts(Object id) throws SQLException {
        String[] s = state(id);
        return s == null || s[2] == null ? null : Long.valueOf(s[2]);
    }

    /** @return status, last_error and attempts of the row, or {@code null} when there is none */
    private String[] state(Object id) throws SQLException {
        try (Connection c = dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT status, last_error, attempts FROM " + outbox.table() + " WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new String[] {rs.getString(1), rs.getString(2), rs.getString(3)} : null;
            }
        }
    }

    private static UUID asUuid(Object id) {
        if (id instanceof UUID uuid) {
            return uuid;
        }
        try {
            return UUID.fromString(String.valueOf(id));
        } catch (IllegalArgumentException notAUuid) {
            return null;
        }
    }

    private static RelayListener errorsInto(List<String> errors) {
        return new RelayListener() {
            @Override
            public void onError(String relay, String phase, Throwable error) {
                errors.add(phase + ": " + error);
            }
        };
    }
}
