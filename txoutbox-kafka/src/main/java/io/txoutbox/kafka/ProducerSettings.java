package io.txoutbox.kafka;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The producer configuration of a {@link KafkaPublisher}: the user's settings, checked against what
 * the publisher's guarantees need (every acknowledgement from all in-sync replicas, idempotence, at most
 * five requests in flight), plus the publisher's own. A contradiction is rejected, never corrected.
 */
final class ProducerSettings {
    private static final int MAX_IN_FLIGHT = 5;

    /** The publisher serializes keys and values itself and sends outside transactions. */
    private static final Set<String> OWNED = Set.of(
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG);

    /**
     * What a publisher's own producer runs with.
     *
     * @param config the producer configuration
     * @param bootstrapServers where it finds the cluster
     * @param requestTimeout {@code request.timeout.ms}
     * @param deliveryTimeout {@code delivery.timeout.ms}
     */
    record Resolved(
            Map<String, Object> config, String bootstrapServers, Duration requestTimeout, Duration deliveryTimeout) {}

    private ProducerSettings() {}

    /**
     * @param b the builder, for where to connect and the producer properties
     * @param settings its settings, checked; a timeout not given there may come from the properties
     * @return what the publisher's own producer runs with
     * @throws OutboxValidationException naming a property that contradicts the publisher's guarantees, a
     *     setting given both ways, or a delivery timeout too short (in the settings' spelling)
     */
    static Resolved resolve(KafkaPublisher.Builder b, KafkaSettings settings) {
        Map<String, Object> user = b.properties();
        for (String key : user.keySet()) {
            if (OWNED.contains(key)) {
                throw invalid(
                        key,
                        "KafkaPublisher.producerProperties " + key + "=" + user.get(key)
                                + " cannot be set: the publisher sends byte keys and values outside transactions");
            }
        }
        String acks = text(user, ProducerConfig.ACKS_CONFIG);
        if (acks != null && !acks.equalsIgnoreCase("all") && !acks.equals("-1")) {
            throw invalid(
                    ProducerConfig.ACKS_CONFIG,
                    "KafkaPublisher.producerProperties acks=" + acks + " contradicts the publisher's guarantee: an"
                            + " event counts as published only when all in-sync replicas have it (acks=all)");
        }
        String idempotence = text(user, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && !idempotence.equalsIgnoreCase("true")) {
            throw invalid(
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    "KafkaPublisher.producerProperties enable.idempotence=" + idempotence + " contradicts the"
                            + " publisher's guarantee: the producer's retries must neither duplicate nor reorder"
                            + " (enable.idempotence=true)");
        }
        String inFlight = text(user, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        if (inFlight != null) {
            long n = number(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, inFlight);
            if (n < 1 || n > MAX_IN_FLIGHT) {
                throw invalid(
                        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                        "KafkaPublisher.producerProperties max.in.flight.requests.per.connection=" + inFlight
                                + " is out of range: 1 to " + MAX_IN_FLIGHT
                                + " keeps the order of a partition with an idempotent producer");
            }
        }
        String retries = text(user, ProducerConfig.RETRIES_CONFIG);
        if (retries != null && number(ProducerConfig.RETRIES_CONFIG, retries) < 1) {
            throw invalid(
                    ProducerConfig.RETRIES_CONFIG,
                    "KafkaPublisher.producerProperties retries=" + retries + " contradicts the idempotent"
                            + " producer, which needs retries of at least 1");
        }

        String servers = agree(
                "bootstrapServers",
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                b.bootstrapServers(),
                text(user, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
        if (servers == null || servers.isBlank()) {
            throw invalid(
                    "KafkaPublisher.bootstrapServers",
                    "KafkaPublisher.bootstrapServers is missing: give host:port of at least one broker, or a producer");
        }
        Spelling spelling = settings.spelling();
        Duration request = timeout(
                KafkaSettings.REQUEST_TIMEOUT,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                settings.isGiven(KafkaSettings.REQUEST_TIMEOUT) ? settings.requestTimeout() : null,
                user,
                spelling);
        Duration delivery = timeout(
                KafkaSettings.DELIVERY_TIMEOUT,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                settings.isGiven(KafkaSettings.DELIVERY_TIMEOUT) ? settings.deliveryTimeout() : null,
                user,
                spelling);
        String lingerText = text(user, ProducerConfig.LINGER_MS_CONFIG);
        long linger = lingerText == null ? 5 : number(ProducerConfig.LINGER_MS_CONFIG, lingerText);
        if (delivery.toMillis() < request.toMillis() + linger) {
            String deliverySpelled = spelling.of(KafkaSettings.DELIVERY_TIMEOUT);
            throw invalid(
                    deliverySpelled,
                    deliverySpelled + " " + delivery.toMillis() + " ms is shorter than "
                            + spelling.of(KafkaSettings.REQUEST_TIMEOUT) + " " + request.toMillis()
                            + " ms + linger.ms " + linger + " ms; Kafka needs it at least as long");
        }
        Map<String, Object> config = new LinkedHashMap<>(user);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, MAX_IN_FLIGHT);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) request.toMillis());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) delivery.toMillis());
        // A send waiting for metadata or buffer space must not outlast the delivery timeout either.
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, delivery.toMillis());
        return new Resolved(config, servers, request, delivery);
    }

    private static String agree(String option, String property, String fromBuilder, String fromProperties) {
        if (fromBuilder != null && fromProperties != null && !fromBuilder.trim().equals(fromProperties)) {
            throw invalid(
                    property,
                    "KafkaPublisher." + option + " is " + fromBuilder + " but producerProperties " + property + " is "
                            + fromProperties + "; set it once");
        }
        return fromBuilder != null ? fromBuilder.trim() : fromProperties;
    }

    /**
     * @return the timeout given as a setting (already checked), or else in the producer properties (checked
     *     here by the setting's rules, named by the property), or else the setting's default
     */
    private static Duration timeout(
            Setting<Duration> setting,
            String property,
            Duration fromSettings,
            Map<String, Object> user,
            Spelling spelling) {
        String fromProperties = text(user, property);
        Duration fromProps = fromProperties == null ? null : Duration.ofMillis(number(property, fromProperties));
        if (fromSettings != null && fromProps != null && !fromSettings.equals(fromProps)) {
            throw invalid(
                    property,
                    spelling.of(setting) + " is " + fromSettings.toMillis() + " ms but producerProperties " + property
                            + " is " + fromProperties + "; set it once");
        }
        if (fromSettings != null) {
            return fromSettings;
        }
        if (fromProps == null) {
            return setting.defaultValue();
        }
        try {
            return setting.check(fromProps, "KafkaPublisher.producerProperties " + property);
        } catch (OutboxValidationException e) {
            throw invalid(property, e.getMessage());
        }
    }

    private static String text(Map<String, Object> user, String key) {
        Object value = user.get(key);
        return value == null ? null : String.valueOf(value).trim();
    }

    private static long number(String property, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw invalid(property, "KafkaPublisher.producerProperties " + property + "=" + value + " is not a number");
        }
    }

    private static OutboxValidationException invalid(String field, String message) {
        return new OutboxValidationException(field, null, message);
    }
}
