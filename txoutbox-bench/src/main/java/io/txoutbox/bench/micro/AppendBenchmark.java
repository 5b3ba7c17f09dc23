package io.txoutbox.bench.micro;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Backoff;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The CPU cost of what txoutbox does per event before and around the database: building an event
 * (UUIDv7 and shape checks), appending it (payload JSON check, scope stamping, header JSON encoding,
 * parameter binding) on a connection whose statements do nothing, and computing a backoff. Run with
 * {@code ./mvnw -q -pl txoutbox-bench -am verify -Pjmh -DskipTests}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AppendBenchmark {
    private static final String SMALL =
            "{\"orderId\":42,\"customer\":\"c-0042\",\"amount\":123.45,\"currency\":\"EUR\",\"lines\":3}";

    private Outbox outbox;
    private Connection connection;
    private String large;
    private final SplittableRandom random = new SplittableRandom(42);
    private int attempt;

    /** Builds an outbox that never touches its data source, and a connection that only accepts calls. */
    @Setup
    public void setUp() {
        outbox = Outbox.builder(new NoDataSource())
                .table("bench_outbox")
                .dialect(Dialect.POSTGRESQL)
                .validateSchema(false)
                .build();
        connection = nullConnection();
        StringBuilder b = new StringBuilder("{\"lines\":[");
        while (b.length() < 16 * 1024) {
            b.append("{\"sku\":\"SKU-").append(b.length()).append("\",\"qty\":2,\"price\":9.99},");
        }
        b.setLength(b.length() - 1);
        large = b.append("]}").toString();
    }

    /** @return a JDK random (v4) UUID, for comparison with the UUIDv7 that txoutbox generates */
    @Benchmark
    public UUID uuidV4Jdk() {
        return UUID.randomUUID();
    }

    /** @return an event: UUIDv7 id plus the shape checks of the builder */
    @Benchmark
    public OutboxEvent buildEvent() {
        return OutboxEvent.builder("order.placed")
                .aggregate("order", "order-42")
                .jsonPayload(SMALL)
                .build();
    }

    /** @return the appended event: build, JSON check of a small payload, stamping, binding */
    @Benchmark
    public OutboxEvent appendSmallJson() {
        return outbox.append(
                connection,
                OutboxEvent.builder("order.placed")
                        .aggregate("order", "order-42")
                        .jsonPayload(SMALL)
                        .build());
    }

    /** @return the appended event with a 16 KiB JSON payload: the JSON check dominates */
    @Benchmark
    public OutboxEvent append16KiBJson() {
        return outbox.append(
                connection,
                OutboxEvent.builder("order.placed")
                        .aggregate("order", "order-42")
                        .jsonPayload(large)
                        .build());
    }

    /** @return the appended event with correlation, causation, traceparent and two own headers */
    @Benchmark
    public OutboxEvent appendWithHeaders() {
        return outbox.append(
                connection,
                OutboxEvent.builder("order.placed")
                        .aggregate("order", "order-42")
                        .jsonPayload(SMALL)
                        .correlationId("c0ffee00-1234-4321-8888-000000000001")
                        .causationId("c0ffee00-1234-4321-8888-000000000002")
                        .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                        .header("x-source", "checkout")
                        .header("x-region", "eu-west-1")
                        .build());
    }

    /** @return ten events appended as one batch */
    @Benchmark
    public List<OutboxEvent> appendTenAsBatch() {
        OutboxEvent[] events = new OutboxEvent[10];
        for (int i = 0; i < events.length; i++) {
            events[i] = OutboxEvent.builder("order.placed")
                    .aggregate("order", "order-" + i)
                    .jsonPayload(SMALL)
                    .build();
        }
        return outbox.appendAll(connection, List.of(events));
    }

    /** @return the default backoff's delay (full jitter) for attempts 1 to 8 */
    @Benchmark
    public long backoffDelay() {
        attempt = attempt % 8 + 1;
        return Backoff.DEFAULT.delay(attempt, random).toNanos();
    }

    /** A connection whose statements accept every call and do nothing: the database is not measured. */
    private static Connection nullConnection() {
        PreparedStatement statement = (PreparedStatement) Proxy.newProxyInstance(
                AppendBenchmark.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> defaultValue(method.getReturnType()));
        return (Connection) Proxy.newProxyInstance(
                AppendBenchmark.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        return statement;
                    }
                    if (method.getName().equals("getAutoCommit")) {
                        return false;
                    }
                    return defaultValue(method.getReturnType());
                });
    }

    private static Object defaultValue(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 1;
        }
        if (type == long.class) {
            return 1L;
        }
        if (type == int[].class) {
            return new int[10];
        }
        if (type == long[].class) {
            return new long[10];
        }
        return null;
    }

    /** The outbox is built with a dialect and without a schema check, so this is never asked. */
    private static final class NoDataSource implements DataSource {
        @Override
        public Connection getConnection() {
            throw new UnsupportedOperationException("the micro benchmarks do not use a database");
        }

        @Override
        public Connection getConnection(String username, String password) {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            return null;
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
