package io.txoutbox.relay;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * A relay's settings, checked: the immutable value a relay runs on. Each setting is declared here once,
 * as a {@link Setting} with its default, its limits and its doc; {@link Relay.Builder}, the Spring
 * starter's {@code txoutbox.relay.*} properties and the relay server's {@code sources[].relay} YAML all
 * bind through these descriptors and are checked by {@link #of(SettingValues, Backoff, Spelling)}, which
 * names a refused setting as the caller spelled it.
 */
public final class RelaySettings {
    /**
     * The longest lease, publish timeout or poll interval: a day. Longer ones are mistakes (a lease of years
     * lends a crashed relay's batch out for years), and past a point their arithmetic fails on every claim
     * ({@code toMillis()} overflows; MariaDB's {@code DATE_ADD} past year 9999 gives a NULL expiry, which
     * reads as no lease at all).
     */
    static final Duration MAX_CYCLE_DURATION = Duration.ofDays(1);

    /** The longest retention or purge interval: a hundred years, as the relay server's YAML allows. */
    static final Duration MAX_RETENTION = Duration.ofDays(36_525);

    /** Rows a retaining relay purges per statement. */
    static final int PURGE_BATCH_SIZE = 1_000;

    /** The relay's name. */
    public static final Setting<String> NAME = Setting.builder("name", String.class)
            .defaultValue(Relay.Builder.DEFAULT_NAME)
            .matching(Pattern.compile("[A-Za-z0-9._-]{1,64}"), "be 1 to 64 letters, digits, '.', '_' or '-'")
            .doc("The relay's name, in its threads, logs, metrics and lease owner.")
            .build();

    /** Rows per claim. */
    public static final Setting<Integer> BATCH_SIZE = Setting.builder("batchSize", Integer.class)
            .defaultValue(Relay.Builder.DEFAULT_BATCH_SIZE)
            .between(1, Relay.Builder.MAX_BATCH_SIZE)
            .doc("Rows per claim.")
            .build();

    /** Batches claimed and not yet marked. */
    public static final Setting<Integer> MAX_IN_FLIGHT_BATCHES = Setting.builder("maxInFlightBatches", Integer.class)
            .defaultValue(Relay.Builder.DEFAULT_MAX_IN_FLIGHT_BATCHES)
            .between(1, Relay.Builder.MAX_IN_FLIGHT_BATCHES)
            .doc("Pipelining: batches claimed and not yet marked at once; above 1 the relay claims the next batch while"
                    + " the broker confirms one (ordered mode keeps one event per aggregate in flight); 1 turns it off."
                    + " A relay holds up to this many connections + 2 (2 with 1), plus its listening one.")
            .build();

    /** The byte budget of one claim. */
    public static final Setting<Long> MAX_BATCH_BYTES = Setting.builder("maxBatchBytes", Long.class)
            .optional()
            .defaultText("1/16 of the heap, 1 MiB to 16 MiB")
            .positiveNumber()
            .doc("The byte budget of a claim: rows are taken in order while the bytes before them stay under it; a row"
                    + " larger than the budget is still claimed, alone, and rows beyond it are not read.")
            .build();

    /** The longest sleep of an idle relay. */
    public static final Setting<Duration> POLL_INTERVAL = Setting.builder("pollInterval", Duration.class)
            .defaultValue(Relay.Builder.DEFAULT_POLL_INTERVAL)
            .positiveUpTo(MAX_CYCLE_DURATION)
            .doc("The longest an idle relay sleeps between claims: the safety net under wake-ups.")
            .build();

    /** The sleep after a claim that found work but not a full batch. */
    public static final Setting<Duration> MIN_POLL_INTERVAL = Setting.builder("minPollInterval", Duration.class)
            .optional()
            .defaultText("25ms, or the poll interval where that is shorter")
            .positiveUpTo(MAX_CYCLE_DURATION)
            .doc("The sleep after a claim that found work, doubling up to the poll interval while claims find"
                    + " nothing; at most the poll interval.")
            .build();

    /** How long a claim is held. */
    public static final Setting<Duration> LEASE_DURATION = Setting.builder("leaseDuration", Duration.class)
            .defaultValue(Relay.Builder.DEFAULT_LEASE_DURATION)
            .positiveUpTo(MAX_CYCLE_DURATION)
            .doc("How long a claim is held before another relay may take it over; longer than the publish"
                    + " timeout.")
            .build();

    /** How long a batch may take to be confirmed. */
    public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.builder("publishTimeout", Duration.class)
            .defaultValue(Relay.Builder.DEFAULT_PUBLISH_TIMEOUT)
            .positiveUpTo(MAX_CYCLE_DURATION)
            .doc("How long a batch may take from the call to publish() to the broker's last confirmation; past it"
                    + " every unconfirmed event is retried.")
            .build();

    /** Attempts before an event is dead. */
    public static final Setting<Integer> MAX_ATTEMPTS = Setting.builder("maxAttempts", Integer.class)
            .defaultValue(Relay.Builder.DEFAULT_MAX_ATTEMPTS)
            .between(1, Relay.Builder.MAX_ATTEMPTS_LIMIT)
            .doc("Attempts before an event is dead; an event's own maxAttempts wins.")
            .build();

    /** How long published rows are kept. */
    public static final Setting<Duration> RETAIN_PUBLISHED = Setting.builder("retainPublished", Duration.class)
            .optional()
            .defaultText("none (deleted at once)")
            .notNegativeUpTo(MAX_RETENTION)
            .doc("Keep published rows this long (state published), then purge them in small batches or drop whole"
                    + " partitions (the outbox's publishedPartitions), instead of deleting them at once.")
            .build();

    /** How often a retaining relay purges. */
    public static final Setting<Duration> PURGE_INTERVAL = Setting.builder("purgeInterval", Duration.class)
            .defaultValue(Relay.Builder.DEFAULT_PURGE_INTERVAL)
            .positiveUpTo(MAX_RETENTION)
            .doc("How often a retaining relay purges published rows past their retention.")
            .build();

    /** Whether the relay wakes on database notifications. */
    public static final Setting<Boolean> LISTEN = Setting.builder("listen", Boolean.class)
            .defaultValue(Relay.Builder.DEFAULT_LISTEN)
            .doc("Wake on PostgreSQL notifications (appenders' after-commit ones, and the foreign-writer trigger's);"
                    + " the LISTEN connection is one more of the pool's for the relay's life.")
            .build();

    /** The start of the lease owner a relay writes on the rows it claims. */
    public static final Setting<String> LEASE_OWNER_PREFIX = Setting.builder("leaseOwnerPrefix", String.class)
            .optional()
            .defaultText("<name>@<HOSTNAME>")
            .matching(
                    Pattern.compile("[A-Za-z0-9._@/-]{1,128}"),
                    "be 1 to 128 letters, digits, '.', '_', '@', '/' or '-'")
            .doc("The start of the lease owner a relay writes on the rows it claims (a pod or instance name, to see"
                    + " in the table who holds a lease); the process id and a random nonce follow it, so owners stay"
                    + " unique.")
            .build();

    /** The settings of a relay, in the order the docs show them; its backoff is {@link Backoff#SETTINGS}. */
    public static final List<Setting<?>> SETTINGS = List.of(
            NAME,
            BATCH_SIZE,
            MAX_IN_FLIGHT_BATCHES,
            MAX_BATCH_BYTES,
            POLL_INTERVAL,
            MIN_POLL_INTERVAL,
            LEASE_DURATION,
            PUBLISH_TIMEOUT,
            MAX_ATTEMPTS,
            RETAIN_PUBLISHED,
            PURGE_INTERVAL,
            LISTEN,
            LEASE_OWNER_PREFIX);

    /** The Java spelling: {@code Relay.Builder.batchSize}. */
    static final Spelling JAVA = Spelling.java("Relay.Builder");

    private final SettingValues given;
    private final String name;
    private final int batchSize;
    private final int maxInFlightBatches;
    private final long maxBatchBytes;
    private final Duration pollInterval;
    private final Duration minPollInterval;
    private final Duration leaseDuration;
    private final Duration publishTimeout;
    private final int maxAttempts;
    private final Duration retainPublished;
    private final Duration purgeInterval;
    private final boolean listen;
    private final String leaseOwnerPrefix;
    private final Backoff backoff;

    private RelaySettings(SettingValues v, Backoff backoff, Spelling spelling) {
        this.given = v.copy();
        this.name = v.checked(NAME, spelling);
        this.batchSize = v.checked(BATCH_SIZE, spelling);
        this.maxInFlightBatches = v.checked(MAX_IN_FLIGHT_BATCHES, spelling);
        Long bytes = v.checked(MAX_BATCH_BYTES, spelling);
        this.maxBatchBytes = bytes != null ? bytes : Relay.Builder.defaultMaxBatchBytes();
        this.pollInterval = v.checked(POLL_INTERVAL, spelling);
        Duration minPoll = v.checked(MIN_POLL_INTERVAL, spelling);
        if (minPoll == null) {
            minPoll = Relay.Builder.DEFAULT_MIN_POLL_INTERVAL.compareTo(pollInterval) < 0
                    ? Relay.Builder.DEFAULT_MIN_POLL_INTERVAL
                    : pollInterval;
        } else if (minPoll.compareTo(pollInterval) > 0) {
            throw contradiction(
                    spelling, MIN_POLL_INTERVAL, minPoll, "not be longer than", POLL_INTERVAL, pollInterval, "");
        }
        this.minPollInterval = minPoll;
        this.leaseDuration = v.checked(LEASE_DURATION, spelling);
        this.publishTimeout = v.checked(PUBLISH_TIMEOUT, spelling);
        if (leaseDuration.compareTo(publishTimeout) <= 0) {
            throw contradiction(
                    spelling,
                    LEASE_DURATION,
                    leaseDuration,
                    "be longer than",
                    PUBLISH_TIMEOUT,
                    publishTimeout,
                    ": a lease that ends while the broker is still confirming lets another relay publish the same"
                            + " batch");
        }
        this.maxAttempts = v.checked(MAX_ATTEMPTS, spelling);
        this.retainPublished = v.checked(RETAIN_PUBLISHED, spelling);
        this.purgeInterval = v.checked(PURGE_INTERVAL, spelling);
        this.listen = v.checked(LISTEN, spelling);
        this.leaseOwnerPrefix = v.checked(LEASE_OWNER_PREFIX, spelling);
        this.backoff = Objects.requireNonNull(backoff, "backoff");
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param backoff the delay between attempts
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws OutboxValidationException naming, in {@code spelling}, a setting that is out of bounds or
     *     contradicts another
     */
    public static RelaySettings of(SettingValues values, Backoff backoff, Spelling spelling) {
        return new RelaySettings(values, backoff, spelling);
    }

    /** @return every setting at its default */
    public static RelaySettings defaults() {
        return of(new SettingValues(), Backoff.DEFAULT, JAVA);
    }

    private static OutboxValidationException contradiction(
            Spelling spelling,
            Setting<Duration> setting,
            Duration value,
            String must,
            Setting<Duration> other,
            Duration otherValue,
            String why) {
        String field = spelling.of(setting);
        String otherField = spelling.of(other);
        return new OutboxValidationException(
                field,
                (must.startsWith("not") ? "<= " : "> ") + other.name(),
                field + " is " + Setting.show(value) + "; it must " + must + " " + otherField + " ("
                        + Setting.show(otherValue) + ")" + why);
    }

    /** @return the values as given, to set them again on a builder */
    SettingValues given() {
        return given.copy();
    }

    /** @return the relay's name */
    public String name() {
        return name;
    }

    /** @return rows per claim */
    public int batchSize() {
        return batchSize;
    }

    /** @return batches claimed and not yet marked at most */
    public int maxInFlightBatches() {
        return maxInFlightBatches;
    }

    /** @return the byte budget of one claim, the default resolved for this JVM */
    public long maxBatchBytes() {
        return maxBatchBytes;
    }

    /** @return the longest sleep of an idle relay */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** @return the sleep after a claim that found work, the default resolved */
    public Duration minPollInterval() {
        return minPollInterval;
    }

    /** @return how long a claim is held */
    public Duration leaseDuration() {
        return leaseDuration;
    }

    /** @return how long a batch may take to be confirmed */
    public Duration publishTimeout() {
        return publishTimeout;
    }

    /** @return attempts before an event is dead */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return how long published rows are kept, or {@code null} when they are deleted at once */
    public Duration retainPublished() {
        return retainPublished;
    }

    /** @return how often a retaining relay purges */
    public Duration purgeInterval() {
        return purgeInterval;
    }

    /** @return whether the relay wakes on database notifications */
    public boolean listen() {
        return listen;
    }

    /** @return the delay between attempts */
    public Backoff backoff() {
        return backoff;
    }

    /** @return the start of the lease owner, the default ({@code <name>@<HOSTNAME>}) resolved */
    public String leaseOwnerPrefix() {
        if (leaseOwnerPrefix != null) {
            return leaseOwnerPrefix;
        }
        String host = System.getenv().getOrDefault("HOSTNAME", "host");
        return name + "@" + (host.length() > 64 ? host.substring(0, 64) : host);
    }

    /**
     * @return a lease owner for one relay instance, unique to it: {@link #leaseOwnerPrefix()}, the process
     *     id and a random nonce ({@code relay@host-1:4711:9f3a0c21})
     */
    String newLeaseOwner() {
        byte[] nonce = new byte[4];
        ThreadLocalRandom.current().nextBytes(nonce);
        return leaseOwnerPrefix() + ":" + ProcessHandle.current().pid() + ":"
                + HexFormat.of().formatHex(nonce);
    }

    @Override
    public String toString() {
        return "RelaySettings[name=" + name + ", batchSize=" + batchSize + ", maxInFlightBatches=" + maxInFlightBatches
                + ", pollInterval=" + Setting.show(pollInterval) + ", leaseDuration=" + Setting.show(leaseDuration)
                + ", publishTimeout=" + Setting.show(publishTimeout) + ", maxAttempts=" + maxAttempts + "]";
    }
}
