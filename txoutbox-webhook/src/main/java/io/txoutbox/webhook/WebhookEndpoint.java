package io.txoutbox.webhook;

import io.txoutbox.OutboxValidationException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One receiver of webhooks: a URL, the secrets its requests are signed with, the event types it wants,
 * and optional fixed headers (an {@code Authorization}, say). Immutable; {@link #toString()} shows no
 * secret, no header value and no query string.
 *
 * <pre>{@code
 * WebhookEndpoint billing = WebhookEndpoint.builder("https://billing.example.com/hooks/orders")
 *         .name("billing")
 *         .secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
 *         .eventTypes("order.*", "invoice.paid")
 *         .build();
 * }</pre>
 */
public final class WebhookEndpoint {
    /** Headers the publisher writes itself; an endpoint may not set them. */
    static final Set<String> RESERVED_HEADERS = Set.of(
            WebhookPublisher.WEBHOOK_ID,
            WebhookPublisher.WEBHOOK_TIMESTAMP,
            WebhookPublisher.WEBHOOK_SIGNATURE,
            "content-type");

    private final String name;
    private final URI url;
    private final List<byte[]> keys;
    private final Set<String> exactTypes;
    private final List<String> typePrefixes;
    private final boolean allTypes;
    private final List<String> filters;
    private final Map<String, String> headers;

    private WebhookEndpoint(Builder b, URI url) {
        this.url = url;
        this.name = b.name != null ? b.name : target(url);
        List<byte[]> decoded = new ArrayList<>();
        for (int i = 0; i < b.secrets.size(); i++) {
            decoded.add(Signatures.decodeSecret(b.secrets.get(i), "WebhookEndpoint '" + name + "' secret #" + (i + 1)));
        }
        this.keys = List.copyOf(decoded);
        Set<String> exact = new LinkedHashSet<>();
        List<String> prefixes = new ArrayList<>();
        boolean all = b.eventTypes.isEmpty();
        for (String filter : b.eventTypes) {
            if (filter.equals("*")) {
                all = true;
            } else if (filter.endsWith("*")) {
                prefixes.add(filter.substring(0, filter.length() - 1));
            } else {
                exact.add(filter);
            }
        }
        this.allTypes = all;
        this.exactTypes = Set.copyOf(exact);
        this.typePrefixes = List.copyOf(prefixes);
        this.filters = b.eventTypes.isEmpty() ? List.of("*") : List.copyOf(b.eventTypes);
        this.headers = Map.copyOf(b.headers);
    }

    /**
     * @param url where to POST, {@code http} or {@code https}
     * @return a builder; give at least one secret
     */
    public static Builder builder(String url) {
        return new Builder(url);
    }

    /**
     * @param url where to POST, {@code http} or {@code https}
     * @param secret the signing secret, {@code whsec_<base64>} or plain text (see {@link Builder#secret})
     * @return an endpoint for every event type
     * @throws OutboxValidationException when the URL or the secret is rejected
     */
    public static WebhookEndpoint of(String url, String secret) {
        return builder(url).secret(secret).build();
    }

    /** @return the name used in outcomes and logs: the one given, or host and path */
    public String name() {
        return name;
    }

    /** @return the URL requests are sent to (it may contain a query string: do not log it) */
    public URI url() {
        return url;
    }

    /** @return the event type filters as given: exact types and prefixes ending in {@code *} */
    public List<String> eventTypes() {
        return filters;
    }

    /**
     * @param eventType an event type
     * @return whether this endpoint wants events of that type
     */
    public boolean accepts(String eventType) {
        if (allTypes || exactTypes.contains(eventType)) {
            return true;
        }
        for (String prefix : typePrefixes) {
            if (eventType.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The decoded signing keys, in the order given. */
    List<byte[]> keys() {
        return keys;
    }

    /** The fixed headers, by lower-case name. */
    Map<String, String> headers() {
        return headers;
    }

    /** @return host, port when given, and path: how an endpoint is named in reasons, never the query */
    String target() {
        return target(url);
    }

    static String target(URI url) {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        return url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort()) + path;
    }

    /** Shows no secret, no header value and no query string. */
    @Override
    public String toString() {
        return "WebhookEndpoint[name=" + name + ", url=" + url.getScheme() + "://" + target()
                + (url.getRawQuery() == null ? "" : "?****") + ", " + Signatures.mask(keys.size()) + ", eventTypes="
                + filters + ", headers=" + headers.keySet() + "]";
    }

    /** Builds a {@link WebhookEndpoint}; everything is checked at {@link #build()}. */
    public static final class Builder {
        private final String url;
        private String name;
        private final List<String> secrets = new ArrayList<>();
        private final List<String> eventTypes = new ArrayList<>();
        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder(String url) {
            this.url = url;
        }

        /**
         * @param name how this endpoint is named in outcomes and logs, unique within a publisher (default:
         *     host and path)
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Adds a signing secret. Every request carries one {@code v1} signature per secret, so that during a
         * rotation a receiver that knows either the old or the new secret accepts it: add the new secret,
         * let the receiver switch, then remove the old one.
         *
         * @param secret {@code whsec_<base64>} (the Standard Webhooks format: the base64 part is decoded to
         *     the key bytes) or any other text (its UTF-8 bytes are the key, unchanged); at least 16 bytes
         *     either way
         * @return this builder
         */
        public Builder secret(String secret) {
            secrets.add(secret);
            return this;
        }

        /**
         * @param filters exact event types ({@code order.placed}) and prefixes ending in {@code *}
         *     ({@code order.*}); {@code *} alone is every type, which is also the default
         * @return this builder (filters add up)
         */
        public Builder eventTypes(String... filters) {
            eventTypes.addAll(List.of(filters));
            return this;
        }

        /**
         * Adds a fixed header to every request, for example an {@code Authorization} the receiver requires.
         * It replaces an event header of the same name; its value never appears in logs or {@code toString()}.
         *
         * @param name a header name the JDK's HttpClient accepts; not {@code content-type} or a
         *     {@code webhook-*} name
         * @param value its value
         * @return this builder
         */
        public Builder header(String name, String value) {
            headers.put(name == null ? null : name.toLowerCase(Locale.ROOT), value);
            return this;
        }

        /**
         * @return the endpoint
         * @throws OutboxValidationException when the URL is not absolute {@code http(s)} with a host, carries
         *     user info or a fragment; when there is no secret or one is blank, malformed or shorter than 16
         *     bytes; when a filter is blank or has {@code *} anywhere but at the end; when a header is refused
         */
        public WebhookEndpoint build() {
            URI uri = parse(url);
            if (name != null && name.isBlank()) {
                throw new OutboxValidationException("WebhookEndpoint.name", null, "WebhookEndpoint.name is blank");
            }
            if (secrets.isEmpty()) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.secret",
                        null,
                        "WebhookEndpoint for " + target(uri)
                                + " has no secret; every webhook is signed: add secret(...)");
            }
            for (String filter : eventTypes) {
                if (filter == null
                        || filter.isBlank()
                        || filter.indexOf('*') != filter.length() - 1 && filter.contains("*")) {
                    throw new OutboxValidationException(
                            "WebhookEndpoint.eventTypes",
                            null,
                            "WebhookEndpoint.eventTypes filter '" + filter
                                    + "' is invalid; give an exact type or a prefix ending in *");
                }
            }
            for (Map.Entry<String, String> h : headers.entrySet()) {
                checkHeader(h.getKey(), h.getValue());
            }
            return new WebhookEndpoint(this, uri);
        }

        private static URI parse(String url) {
            if (url == null || url.isBlank()) {
                throw new OutboxValidationException("WebhookEndpoint.url", null, "WebhookEndpoint.url is blank");
            }
            URI uri;
            try {
                uri = new URI(url.trim());
            } catch (URISyntaxException e) {
                // The reason and index only: the URL may carry a token in its query.
                throw new OutboxValidationException(
                        "WebhookEndpoint.url",
                        null,
                        "WebhookEndpoint.url is not a valid URI: " + e.getReason() + " at index " + e.getIndex());
            }
            if (uri.getScheme() == null) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url", null, "WebhookEndpoint.url has no scheme; give an absolute http(s) URL");
            }
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            if (!"http".equals(scheme) && !"https".equals(scheme)) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url",
                        null,
                        "WebhookEndpoint.url scheme '" + uri.getScheme() + "' is not allowed; use http or https");
            }
            if (uri.getHost() == null || uri.getHost().isBlank()) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url", null, "WebhookEndpoint.url has no host (or an invalid one)");
            }
            if (uri.getRawUserInfo() != null) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url",
                        null,
                        "WebhookEndpoint.url for " + target(uri)
                                + " carries user info; credentials go in a header (WebhookEndpoint.Builder.header)");
            }
            if (uri.getRawFragment() != null) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url",
                        null,
                        "WebhookEndpoint.url for " + target(uri) + " has a fragment (#...), which is never sent");
            }
            return uri;
        }

        private static void checkHeader(String name, String value) {
            if (name == null || RESERVED_HEADERS.contains(name)) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.header",
                        null,
                        "WebhookEndpoint.header '" + name + "' is reserved: the publisher sets it");
            }
            Objects.requireNonNull(value, "value of header " + name);
            try {
                // The JDK's own rules: restricted names (host, connection, ...) and invalid characters.
                HttpRequest.newBuilder().header(name, value);
            } catch (IllegalArgumentException e) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.header",
                        null,
                        "WebhookEndpoint.header '" + name + "' is refused by the JDK's HttpClient: name restricted or "
                                + "characters invalid");
            }
        }
    }
}
