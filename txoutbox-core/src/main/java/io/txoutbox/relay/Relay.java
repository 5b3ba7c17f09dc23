package io.txoutbox.relay;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;

/**
 * Publishes the events of one outbox table, at least once. Each cycle claims a batch of due rows (at
 * most {@code batchSize} rows and about {@code maxBatchBytes} of payload) in one statement (a lease on
 * the database clock, committed at once), publishes it with no transaction open (with pipelining, while
 * the next batch is claimed), waits for the broker's confirmations with a timeout, and marks the batch
 * in one statement fenced by the lease owner. Failures are retried with backoff and end dead after the last attempt.
 * Several relays, in one JVM or many, may share a table.
 *
 * <p>A running relay wakes on an after-commit signal from this JVM, on PostgreSQL notifications (sent
 * after commit by appenders in other processes, or by the optional trigger for writers that are not
 * txoutbox), and on its adaptive poll as the safety net. A full batch loops again at once; between
 * batches it sleeps {@code minPollInterval}, doubling with every claim that finds nothing, up to the
 * poll interval and never past the next delayed event or retry.
 *
 * <pre>{@code
 * Relay relay = outbox.relay(publisher).name("orders").build();
 * relay.start();
 * ...
 * relay.stop();   // finishes the batch in flight, returns leases
 * }</pre>
 *
 * <p>{@code outbox.relay(publisher)} is the shortcut to {@link #builder(OutboxStore, InstantSource,
 * Publisher)} with the outbox's store and clock; a relay needs nothing else of an outbox.
 */
public interface Relay extends AutoCloseable {

    /**
     * @param store the table to relay ({@link io.txoutbox.Outbox.Builder#buildStore()}, or a store of
     *     your own)
     * @param clock the clock of due times, backoff and purges (leases always use the database clock)
     * @param publisher where to publish
     * @return a builder
     */
    static Builder builder(OutboxStore store, InstantSource clock, Publisher publisher) {
        return new Builder(store, clock, publisher);
    }

    /**
     * A builder without a store, clock or publisher, only to check settings ({@link Builder#validate()})
     * before a database is reachable, as a configuration loader does; its {@link Builder#build()} fails
     * naming the missing store.
     *
     * @return a builder of settings
     */
    static Builder settings() {
        return new Builder(null, null, null);
    }

    /**
     * Starts the relay's thread. A relay starts once; build a new one to start again.
     *
     * @throws IllegalStateException if it was started before
     */
    void start();

    /**
     * Stops gracefully: the batch in flight is published and marked, leases still held are returned,
     * and the relay's own threads end (bounded waits). Never closes the publisher or the data source.
     * Idempotent.
     */
    void stop();

    /** Same as {@link #stop()}. */
    @Override
    default void close() {
        stop();
    }

    /**
     * Runs one claim, publish and mark cycle on the calling thread: for tests and for callers that
     * schedule the relay themselves.
     *
     * @return how many rows were claimed (0 when nothing was due)
     * @throws io.txoutbox.OutboxStoreException when the claim fails
     */
    int runOnce();

    /** Stops claiming new batches until {@link #resume()}; the batch in flight completes. */
    void pause();

    /** Claims again after {@link #pause()}. */
    void resume();

    /** @return whether the relay is paused */
    boolean isPaused();

    /** @return whether the relay's thread is running */
    boolean isRunning();

    /** @return the relay's name, as configured */
    String name();

    /** @return the lease owner this relay writes on the rows it claims: unique per relay instance */
    String owner();

    /** @return counters of what the relay has done */
    RelayMetrics metrics();

    /** Builds a {@link Relay}; every setting is checked at {@link #build()}. */
    final class Builder {
        /** The default batch size. */
        public static final int DEFAULT_BATCH_SIZE = 100;
        /** The largest batch size. */
        public static final int MAX_BATCH_SIZE = 10_000;
        /** The default attempt budget of an event. */
        public static final int DEFAULT_MAX_ATTEMPTS = 8;
        /** The largest attempt budget. */
        public static final int MAX_ATTEMPTS_LIMIT = 1_000;
        /** The default name of a relay. */
        public static final String DEFAULT_NAME = "relay";
        /** The default longest sleep of an idle relay: the safety net under wake-ups. */
        public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(2);
        /** The default lease of a claim. */
        public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
        /** The default time a batch may take to be confirmed. */
        public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(10);
        /** The default interval between purges of a retaining relay. */
        public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);
        /** Whether a relay listens for database notifications by default. */
        public static final boolean DEFAULT_LISTEN = true;
        /** The default shortest sleep between claims, after one that found work. */
        public static final Duration DEFAULT_MIN_POLL_INTERVAL = Duration.ofMillis(25);

        /**
         * Batches in flight by default: two, so that the claim of the next batch overlaps the publish and
         * mark of the one before (W4 in BENCHMARKS.md), at the cost of one more connection (see {@link
         * #connectionsAtOnce(int, boolean)}).
         */
        public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 2;
        /** The most batches a pipelining relay has in flight. */
        public static final int MAX_IN_FLIGHT_BATCHES = 16;

        /** The largest default byte budget of a batch: 16 MiB. */
        public static final long MAX_DEFAULT_BATCH_BYTES = 16L * 1024 * 1024;
        /** The smallest default byte budget of a batch: 1 MiB. */
        public static final long MIN_DEFAULT_BATCH_BYTES = 1024L * 1024;

        final OutboxStore store;
        final InstantSource clock;
        final Publisher publisher;
        private final SettingValues values = new SettingValues();
        private Backoff backoff = Backoff.DEFAULT;
        private RelayListener listener = RelayListener.NOOP;
        private ThreadFactory threadFactory;
        private RandomGenerator random = new SplittableRandom();

        private Builder(OutboxStore store, InstantSource clock, Publisher publisher) {
            this.store = store;
            this.clock = clock;
            this.publisher = publisher;
        }

        /**
         * @param name the relay's name: letters, digits, {@code . _ -}, at most 64 (default {@code relay})
         * @return this builder
         */
        public Builder name(String name) {
            values.set(RelaySettings.NAME, name);
            return this;
        }

        /**
         * @param batchSize rows per claim, 1 to 10,000 (default 100)
         * @return this builder
         */
        public Builder batchSize(int batchSize) {
            values.set(RelaySettings.BATCH_SIZE, batchSize);
            return this;
        }

        /**
         * Pipelining: while the broker confirms a batch, the relay claims the next, up to this many batches
         * claimed and not yet marked, so that a slow broker round trip does not idle the database. Ordered
         * mode keeps its guarantee: an aggregate never has two events in flight.
         *
         * <p>A relay holds up to {@link #connectionsAtOnce(int, boolean)} connections of the pool at once;
         * 1 turns pipelining off (one connection, and batches finish in claim order).
         *
         * @param maxInFlightBatches 1 (no pipelining) to {@value #MAX_IN_FLIGHT_BATCHES} (default {@value
         *     #DEFAULT_MAX_IN_FLIGHT_BATCHES})
         * @return this builder
         */
        public Builder maxInFlightBatches(int maxInFlightBatches) {
            values.set(RelaySettings.MAX_IN_FLIGHT_BATCHES, maxInFlightBatches);
            return this;
        }

        /**
         * The most connections one relay borrows from its pool at once, what to size the pool for (plus
         * what the application itself needs): with one batch in flight, one connection (claim, publish and
         * mark take turns); with more, one per batch in flight (its claim, or its mark) and one for the relay
         * thread's other statements (the next due time, the purge); one for a rescan behind its cursor, which
         * on PostgreSQL runs beside its claims; and one more for the {@code LISTEN} connection of a listening
         * relay on PostgreSQL.
         *
         * @param maxInFlightBatches the relay's {@link #maxInFlightBatches(int)}
         * @param listen whether it listens ({@link #listen(boolean)}) on a database that has notifications
         * @return the connections it may hold at once
         */
        public static int connectionsAtOnce(int maxInFlightBatches, boolean listen) {
            return (maxInFlightBatches <= 1 ? 1 : maxInFlightBatches + 1) + 1 + (listen ? 1 : 0);
        }

        /**
         * Bounds the bytes of one claim, so that a backlog of large events cannot exhaust the heap: rows
         * are claimed in order while the rows before them (payload, headers and the other text columns a
         * claim reads) stay under the budget, and a row larger than the budget is still claimed, and read
         * alone. Rows beyond the budget are not read from the database.
         *
         * @param maxBatchBytes the budget in bytes, 1 or more (default {@link #defaultMaxBatchBytes()}:
         *     1/16 of the maximum heap, between 1 MiB and 16 MiB)
         * @return this builder
         */
        public Builder maxBatchBytes(long maxBatchBytes) {
            values.set(RelaySettings.MAX_BATCH_BYTES, maxBatchBytes);
            return this;
        }

        /**
         * The default byte budget of a batch, derived from the heap: a batch is held a few times over
         * while it is in flight (the driver's buffer, the event, the transport's message), so 1/16 of the
         * maximum heap keeps a batch's peak to a fraction of it; capped at 16 MiB, past which larger
         * batches gain no throughput, and at least 1 MiB.
         *
         * @return the default budget for this JVM
         */
        public static long defaultMaxBatchBytes() {
            long sixteenth = Runtime.getRuntime().maxMemory() / 16;
            return Math.max(MIN_DEFAULT_BATCH_BYTES, Math.min(MAX_DEFAULT_BATCH_BYTES, sixteenth));
        }

        /**
         * @param pollInterval the longest an idle relay sleeps between claims: the safety net under
         *     wake-ups (default 2 s)
         * @return this builder
         */
        public Builder pollInterval(Duration pollInterval) {
            values.set(RelaySettings.POLL_INTERVAL, pollInterval);
            return this;
        }

        /**
         * @param minPollInterval the sleep after a claim that found work but not a full batch; it doubles
         *     with every claim that finds nothing, up to {@link #pollInterval(Duration)}, so a relay polls
         *     often while rows flow (rows of writers that do not wake it are found quickly) and rarely when
         *     idle (default, also for {@code null}: 25 ms, or the poll interval where that is shorter; at
         *     most the poll interval, which turns the adaptive poll off)
         * @return this builder
         */
        public Builder minPollInterval(Duration minPollInterval) {
            values.set(RelaySettings.MIN_POLL_INTERVAL, minPollInterval);
            return this;
        }

        /**
         * @param leaseDuration how long a claim is held before another relay may take it over; must be
         *     longer than the publish timeout (default 30 s)
         * @return this builder
         */
        public Builder leaseDuration(Duration leaseDuration) {
            values.set(RelaySettings.LEASE_DURATION, leaseDuration);
            return this;
        }

        /**
         * @param publishTimeout how long to wait for the broker's confirmations of a batch; past it every
         *     unconfirmed event is retried (default 10 s)
         * @return this builder
         */
        public Builder publishTimeout(Duration publishTimeout) {
            values.set(RelaySettings.PUBLISH_TIMEOUT, publishTimeout);
            return this;
        }

        /**
         * @param backoff the delay between attempts (default base 1 s, factor 2, cap 5 min, full jitter)
         * @return this builder
         */
        public Builder backoff(Backoff backoff) {
            this.backoff = backoff;
            return this;
        }

        /**
         * @param maxAttempts attempts before an event is dead, 1 to 1,000 (default 8); an event's own
         *     {@code maxAttempts} wins
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            values.set(RelaySettings.MAX_ATTEMPTS, maxAttempts);
            return this;
        }

        /**
         * Keeps published rows (state {@code published}) for a while instead of deleting them at once,
         * and purges older ones in small batches every {@link #purgeInterval(Duration)}.
         *
         * @param retention how long to keep published rows; {@code null} deletes at once (the default)
         * @return this builder
         */
        public Builder retainPublished(Duration retention) {
            values.set(RelaySettings.RETAIN_PUBLISHED, retention);
            return this;
        }

        /**
         * @param purgeInterval how often a retaining relay purges (default 1 min)
         * @return this builder
         */
        public Builder purgeInterval(Duration purgeInterval) {
            values.set(RelaySettings.PURGE_INTERVAL, purgeInterval);
            return this;
        }

        /**
         * @param listen wake on database notifications where the database has them (default true)
         * @return this builder
         */
        public Builder listen(boolean listen) {
            values.set(RelaySettings.LISTEN, listen);
            return this;
        }

        /**
         * @param listener hears every batch and every failure (default none)
         * @return this builder
         */
        public Builder listener(RelayListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * @param threadFactory makes the relay's threads: its loop, its listener and the thread it calls the
         *     publisher on (default: daemon threads named {@code txoutbox-relay-<name>}, {@code
         *     txoutbox-listen-<name>} and {@code txoutbox-publish-<name>})
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * @param random the source of backoff jitter (default a fresh {@link SplittableRandom})
         * @return this builder
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * @return the relay, not started
         * @throws OutboxValidationException naming a setting that is out of bounds or contradicts another,
         *     or {@code Outbox.Builder.changeDataCapture} when the outbox's table is read by a connector
         */
        public Relay build() {
            if (store == null) {
                throw OutboxValidationException.missing("Relay.Builder.store");
            }
            if (clock == null) {
                throw OutboxValidationException.missing("Relay.Builder.clock");
            }
            if (publisher == null) {
                throw OutboxValidationException.missing("Relay.Builder.publisher");
            }
            if (store.changeDataCapture()) {
                throw new OutboxValidationException(
                        "Outbox.Builder.changeDataCapture",
                        null,
                        "txoutbox: no relay can be built on the outbox table '" + store.table()
                                + "': its outbox is in change-data-capture mode (Outbox.Builder.changeDataCapture):"
                                + " append deletes every row in its own transaction, so a connector reading the"
                                + " change stream publishes the events, and a relay would find nothing."
                                + " Build the relay from an outbox without changeDataCapture(true)");
            }
            return new DefaultRelay(store, clock, publisher, validated(), listener, threadFactory, random);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling), before customizations in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(RelaySettings settings) {
            values.setAll(settings.given());
            backoff = settings.backoff();
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters ({@link #batchSize(int)} and the
         * others) do the same.
         *
         * @param setting one of {@link RelaySettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         */
        public <T> Builder set(Setting<T> setting, T value) {
            if (!RelaySettings.SETTINGS.contains(setting)) {
                throw new IllegalArgumentException("'" + setting + "' is not a setting of a relay");
            }
            values.set(setting, value);
            return this;
        }

        /**
         * Checks every setting as {@link #build()} does, without the store, clock or publisher: for
         * configuration loaders that check a relay's settings before any database is reachable ({@link
         * Relay#settings()}).
         *
         * @return this builder
         * @throws OutboxValidationException naming a setting that is out of bounds or contradicts another
         */
        public Builder validate() {
            validated();
            return this;
        }

        /** @return the settings, checked */
        private RelaySettings validated() {
            if (backoff == null) {
                throw OutboxValidationException.missing("Relay.Builder.backoff");
            }
            return RelaySettings.of(values, backoff, RelaySettings.JAVA);
        }
    }
}
