package io.txoutbox.webhook;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A webhook publisher's settings, checked: each is declared here once, as a {@link Setting} with its
 * default, its limits and its doc. {@link WebhookPublisher.Builder} and the relay server's {@code
 * transport: {webhook: ...}} YAML bind through these descriptors and are checked by {@link #of}, which
 * names a refused setting as the caller spelled it. The endpoints (URLs, secrets, headers) are not
 * settings of the publisher but {@link WebhookEndpoint}s of their own.
 */
public final class WebhookSettings {
    /** The longest connect or request timeout: a day. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    /** How long a connection may take to open. */
    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.builder("connectTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(MAX_TIMEOUT)
            .doc("How long a connection to an endpoint may take to open.")
            .build();

    /** How long a request may take to be answered. */
    public static final Setting<Duration> REQUEST_TIMEOUT = Setting.builder("requestTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(10))
            .positiveUpTo(MAX_TIMEOUT)
            .doc("How long an endpoint may take to answer a request; past it the event is retried.")
            .build();

    /** Requests in flight at once, across endpoints. */
    public static final Setting<Integer> MAX_CONCURRENT_REQUESTS = Setting.builder(
                    "maxConcurrentRequests", Integer.class)
            .defaultValue(16)
            .between(1, 10_000)
            .doc("Requests in flight at once, across the endpoints.")
            .build();

    /** Whether endpoints may resolve to private addresses. */
    public static final Setting<Boolean> ALLOW_PRIVATE_NETWORKS = Setting.builder("allowPrivateNetworks", Boolean.class)
            .defaultValue(false)
            .doc("Let endpoints resolve to loopback, private and link-local addresses (refused by default, checked"
                    + " at every send, so a name cannot be pointed at the inside of your network).")
            .build();

    /** Deliveries an endpoint confirmed that are remembered, so a retried batch does not send them again. */
    public static final Setting<Integer> REMEMBER_ACCEPTED_DELIVERIES = Setting.builder(
                    "rememberAcceptedDeliveries", Integer.class)
            .defaultValue(10_000)
            .between(0, 1_000_000)
            .doc("Deliveries an endpoint accepted that the publisher remembers, so that a batch retried for"
                    + " another endpoint is not sent again to this one; 0 remembers none.")
            .build();

    /** What the publisher sends as its {@code User-Agent}. */
    public static final Setting<String> USER_AGENT = Setting.builder("userAgent", String.class)
            .defaultValue("txoutbox-webhook")
            .matching(Pattern.compile("[\\x21-\\x7e][\\x20-\\x7e]{0,199}"), "be 1 to 200 printable ASCII characters")
            .doc("The User-Agent of every request, for receivers that allow-list or log callers"
                    + " (orders-relay/2.1 (+ops@example.com)).")
            .build();

    /** The settings of a webhook publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(
            CONNECT_TIMEOUT,
            REQUEST_TIMEOUT,
            MAX_CONCURRENT_REQUESTS,
            ALLOW_PRIVATE_NETWORKS,
            REMEMBER_ACCEPTED_DELIVERIES,
            USER_AGENT);

    /** The Java spelling: {@code WebhookPublisher.connectTimeout}. */
    static final Spelling JAVA = Spelling.java("WebhookPublisher");

    private final SettingValues given;
    private final Spelling spelling;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int maxConcurrentRequests;
    private final boolean allowPrivateNetworks;
    private final int rememberAcceptedDeliveries;
    private final String userAgent;

    private WebhookSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.connectTimeout = v.checked(CONNECT_TIMEOUT, spelling);
        this.requestTimeout = v.checked(REQUEST_TIMEOUT, spelling);
        this.maxConcurrentRequests = v.checked(MAX_CONCURRENT_REQUESTS, spelling);
        this.allowPrivateNetworks = v.checked(ALLOW_PRIVATE_NETWORKS, spelling);
        this.rememberAcceptedDeliveries = v.checked(REMEMBER_ACCEPTED_DELIVERIES, spelling);
        this.userAgent = v.checked(USER_AGENT, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal (also the refusals of {@link
     *     WebhookPublisher.Builder#build()} that depend on a setting, such as a private address)
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static WebhookSettings of(SettingValues values, Spelling spelling) {
        return new WebhookSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return how long a connection may take to open */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return how long a request may take to be answered */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** @return requests in flight at once */
    public int maxConcurrentRequests() {
        return maxConcurrentRequests;
    }

    /** @return whether endpoints may resolve to private addresses */
    public boolean allowPrivateNetworks() {
        return allowPrivateNetworks;
    }

    /** @return accepted deliveries remembered */
    public int rememberAcceptedDeliveries() {
        return rememberAcceptedDeliveries;
    }

    /** @return the {@code User-Agent} the publisher sends */
    public String userAgent() {
        return userAgent;
    }
}
