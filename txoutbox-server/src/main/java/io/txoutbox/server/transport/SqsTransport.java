package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import io.txoutbox.sqs.SqsPublisher;
import io.txoutbox.sqs.SqsSettings;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * {@code transport: {sqs: ...}}: {@code SendMessageBatch} with an outcome per event, through {@code
 * txoutbox-sqs}.
 *
 * <pre>
 * sqs:
 *   region: eu-west-1                         # required (${AWS_REGION} works)
 *   endpoint: http://elasticmq:9324           # optional: an SQS-compatible server or a VPC endpoint
 *   access-key-id: ${SQS_ACCESS_KEY_ID}       # optional, with secret-access-key; else the SDK's chain
 *   secret-access-key: ${SQS_SECRET_ACCESS_KEY}
 *   queue-prefix: prod-                       # order events go to the queue prod-order
 *   queues:                                   # optional: a route to a queue name or URL
 *     invoice: https://sqs.eu-west-1.amazonaws.com/123456789012/billing.fifo
 *   fifo: true                                # routed names get .fifo
 *   publish-timeout: 5s
 *   max-message-bytes: 262144
 *   max-concurrency: 50
 * </pre>
 *
 * <p>{@code queue-prefix}, {@code publish-timeout}, {@code max-message-bytes} and {@code max-concurrency}
 * are the library's settings ({@link SqsSettings}), read through their descriptors and refused by its rules
 * under their keys; where to connect (region, endpoint, credentials) and the routing ({@code queues},
 * {@code fifo}, {@code route-by}, {@code destination}) are the server's to read.
 */
final class SqsTransport {
    private static final String FIFO_SUFFIX = ".fifo";

    private SqsTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        // No region from the environment behind the operator's back: the SDK's chain would also ask the
        // instance metadata service, and a relay that publishes to the wrong region loses nothing visibly.
        String region = s.requiredString("region");
        String endpoint = s.string("endpoint", null);
        String accessKeyId = s.string("access-key-id", null);
        Secret secretKey = s.secret("secret-access-key");
        if (accessKeyId != null && secretKey == null) {
            throw new ConfigException(
                    s.key("secret-access-key"),
                    "is required with access-key-id (e.g. secret-access-key: ${SQS_SECRET_ACCESS_KEY})");
        }
        if (secretKey != null && accessKeyId == null) {
            throw new ConfigException(s.key("access-key-id"), "is required with secret-access-key");
        }
        SqsSettings checked;
        try {
            checked = SqsSettings.of(SettingReader.values(s, SqsSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        String prefix = checked.queuePrefix().isEmpty() ? null : checked.queuePrefix();
        boolean fifo = s.bool("fifo", false);
        Transports.Routing routing = Transports.Routing.parse(s, "queue");
        String fixed = s.string("destination", null);
        Map<String, String> queues = s.stringMap("queues");
        if (!queues.isEmpty() && fixed != null) {
            throw new ConfigException(
                    s.key("queues"), "give queues (a queue per route) or destination (one queue), not both");
        }
        if (fifo) {
            requireFifoUrl(s.key("destination"), fixed);
            queues.forEach((route, queue) -> requireFifoUrl(s.key("queues") + "." + route, queue));
        }
        Router router = router(routing.router(), queues, fifo);
        String key = s.path();
        String target =
                (endpoint == null ? "region " + region : Redaction.redact(endpoint) + " (region " + region + ")")
                        + (accessKeyId == null ? ", credentials from the SDK's chain" : ", access key " + accessKeyId);
        String routes = (prefix == null ? "" : "prefix '" + prefix + "' + ")
                + routing.description()
                + (queues.isEmpty() ? "" : ", queues " + queues)
                + (fifo ? ", FIFO" : "");
        // The builder's own refusals left are of where to connect (region, endpoint, credentials): named by
        // their keys.
        Transports.Keys keys = Transports.Keys.of(s, Map.of("credentials", "access-key-id"));
        return new Transports.Spec("sqs", key) {
            @Override
            public String describe() {
                return "sqs " + target + ", " + routes;
            }

            @Override
            public Publisher open() {
                SqsPublisher.Builder b =
                        SqsPublisher.builder().region(region).settings(checked).router(router);
                ConfigNode.ifGiven(endpoint, b::endpoint);
                if (accessKeyId != null) {
                    b.credentials(accessKeyId, secretKey.value());
                }
                return keys.build(b::build);
            }

            /**
             * Looks up each queue the route names in full ({@code GetQueueUrl} for a name, {@code
             * GetQueueAttributes} for a URL), and lists the queues under the prefix when it routes by
             * type: signed requests that read, never send.
             */
            @Override
            public String check(Duration timeout) throws Exception {
                long millis = timeout.toMillis();
                try (SqsAsyncClient client = client(timeout)) {
                    List<String> found = new ArrayList<>();
                    for (String queue : namedQueues()) {
                        try {
                            if (queue.startsWith("https://") || queue.startsWith("http://")) {
                                client.getQueueAttributes(
                                                r -> r.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN))
                                        .get(millis, TimeUnit.MILLISECONDS);
                            } else {
                                client.getQueueUrl(r -> r.queueName(queue)).get(millis, TimeUnit.MILLISECONDS);
                            }
                        } catch (java.util.concurrent.ExecutionException e) {
                            if (e.getCause() instanceof QueueDoesNotExistException) {
                                throw new IllegalStateException(
                                        "SQS queue " + queue + " does not exist (create it first)", e);
                            }
                            throw e;
                        }
                        found.add(queue);
                    }
                    String listed = "";
                    if (fixed == null) {
                        ListQueuesResponse r = client.listQueues(b -> {
                                    b.maxResults(1000);
                                    if (prefix != null && !prefix.isEmpty()) {
                                        b.queueNamePrefix(prefix);
                                    }
                                })
                                .get(millis, TimeUnit.MILLISECONDS);
                        listed = r.queueUrls().size() + (r.nextToken() == null ? "" : "+") + " queue(s)"
                                + (prefix == null ? "" : " named " + prefix + "*");
                    }
                    return "SQS at " + target + ": " + String.join(", ", nonEmpty(listed, found));
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new java.util.concurrent.TimeoutException(
                            "no answer from SQS at " + target + " within " + millis + " ms");
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof AwsServiceException service
                            ? new IllegalStateException(
                                    service.awsErrorDetails() == null
                                            ? service.getMessage()
                                            : service.awsErrorDetails().errorCode() + ": "
                                                    + service.awsErrorDetails().errorMessage() + " (HTTP "
                                                    + service.statusCode() + ")")
                            : e;
                }
            }

            /** @return the queues the route names in full: its one destination, and the mapped ones */
            private Set<String> namedQueues() {
                Set<String> named = new LinkedHashSet<>();
                if (fixed != null) {
                    named.add(withPrefix(fifo(fixed, fifo)));
                }
                for (String queue : queues.values()) {
                    named.add(withPrefix(fifo(queue, fifo)));
                }
                return named;
            }

            private String withPrefix(String queue) {
                return prefix == null || isUrl(queue) ? queue : prefix + queue;
            }

            private SqsAsyncClient client(Duration timeout) {
                SqsAsyncClientBuilder b = SqsAsyncClient.builder()
                        .region(Region.of(region))
                        .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                                .connectionTimeout(timeout)
                                .connectionAcquisitionTimeout(timeout))
                        .overrideConfiguration(ClientOverrideConfiguration.builder()
                                .apiCallTimeout(timeout)
                                .build());
                if (endpoint != null) {
                    b.endpointOverride(URI.create(endpoint));
                }
                if (accessKeyId != null) {
                    b.credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(accessKeyId, secretKey.value())));
                }
                return b.build();
            }
        };
    }

    private static List<String> nonEmpty(String listed, List<String> found) {
        List<String> parts = new ArrayList<>();
        if (!listed.isEmpty()) {
            parts.add(listed);
        }
        if (!found.isEmpty()) {
            parts.add("queue(s) " + found + " exist");
        }
        return parts;
    }

    /**
     * The route's rule, then the mapping of a route to a queue, then {@code .fifo} for a FIFO route. The
     * library puts the prefix before what this returns (never before a URL).
     */
    private static Router router(Router rule, Map<String, String> queues, boolean fifo) {
        Map<String, String> mapped = new LinkedHashMap<>(queues);
        return e -> {
            String route = rule.route(e);
            String queue = mapped.getOrDefault(route, route);
            return fifo(queue, fifo);
        };
    }

    private static String fifo(String queue, boolean fifo) {
        if (!fifo || queue == null || isUrl(queue) || queue.endsWith(FIFO_SUFFIX)) {
            return queue;
        }
        return queue + FIFO_SUFFIX;
    }

    private static boolean isUrl(String queue) {
        String q = queue.toLowerCase(Locale.ROOT);
        return q.startsWith("https://") || q.startsWith("http://");
    }

    /** With {@code fifo: true} a queue URL must name a FIFO queue: {@code .fifo} cannot be added to it. */
    private static void requireFifoUrl(String key, String queue) {
        if (queue != null && isUrl(queue) && !queue.endsWith(FIFO_SUFFIX)) {
            throw new ConfigException(
                    key, "with fifo: true the queue URL must name a FIFO queue (its name ends in .fifo): " + queue);
        }
    }
}
