package io.txoutbox.spring.modulith.shop;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.harness.TestEnv;
import io.txoutbox.rabbitmq.RabbitPublisher;
import io.txoutbox.test.Sql;
import io.txoutbox.test.TcpProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * What one test class of the shop runs on, unique to it and removed by {@link #close()}: a PostgreSQL schema
 * (the orders table, the outbox table, Modulith's event publication table), a RabbitMQ topic exchange with a
 * queue bound to every routing key and a consumer that records what arrives, and a {@link TcpProxy} between
 * the relay's publisher and RabbitMQ to cut the broker off. A test class gets one with {@code
 * @ContextConfiguration(initializers = ShopInfrastructure.Initializer.class)} and {@code shop.name} (see
 * {@link Initializer}).
 */
public final class ShopInfrastructure implements AutoCloseable {
    /** The local PostgreSQL; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
    public static final String PG_URL = LocalPostgres.URL;

    public static final String PG_USER = LocalPostgres.USER;
    private static final String RABBIT_HOST = TestEnv.get("TXOUTBOX_RABBIT_HOST", "localhost");
    /** A connection of its own for each call, as the tests' checks need no pool. */
    private static final DataSource POSTGRES = LocalPostgres.unpooled();

    private final String schema;
    private final String exchange;
    private final Connection rabbit;
    private final Channel channel;
    private final TcpProxy proxy;
    private final List<Message> received = new CopyOnWriteArrayList<>();

    /** A message as the consumer received it. */
    public record Message(String routingKey, Map<String, String> headers, String contentType, String body) {
        /** @return the header's value, or {@code null} */
        public String header(String name) {
            return headers.get(name);
        }
    }

    private ShopInfrastructure(String name) throws IOException, TimeoutException {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        this.schema = ("txoutbox_modulith_" + name + "_" + suffix).toLowerCase(Locale.ROOT);
        this.exchange = "txoutbox.modulith." + name + "." + suffix;
        execute("CREATE SCHEMA " + schema);
        execute("CREATE TABLE " + schema + ".orders (id text PRIMARY KEY, total_cents integer NOT NULL)");

        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(RABBIT_HOST);
        factory.setUsername("guest");
        factory.setPassword("guest");
        this.rabbit = factory.newConnection("txoutbox-modulith-test");
        this.channel = rabbit.createChannel();
        channel.exchangeDeclare(exchange, "topic", false);
        // Exclusive and auto-delete: the queue goes with the connection, whatever happens to the test.
        String queue = channel.queueDeclare("", false, true, true, null).getQueue();
        channel.queueBind(queue, exchange, "#");
        channel.basicConsume(queue, true, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                Map<String, String> headers = new LinkedHashMap<>();
                if (properties.getHeaders() != null) {
                    properties.getHeaders().forEach((k, v) -> headers.put(k, String.valueOf(v)));
                }
                received.add(new Message(
                        envelope.getRoutingKey(),
                        headers,
                        properties.getContentType(),
                        new String(body, StandardCharsets.UTF_8)));
            }
        });
        this.proxy = new TcpProxy(RABBIT_HOST, 5672);
    }

    /**
     * @param name a short name for the test class, part of every name this creates
     * @return the infrastructure, created
     */
    private static ShopInfrastructure start(String name) {
        try {
            return new ShopInfrastructure(name);
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("cannot reach RabbitMQ on " + RABBIT_HOST + ":5672", e);
        }
    }

    /**
     * Starts a shop for a test class's context and hands it to that context: the application's properties
     * point at its schema (data source, outbox table, Modulith's publication table), and the shop (bean
     * {@code shopInfrastructure}) and its {@link #publisher()} (the relay's transport) are beans, so that the
     * shop is removed when the context closes, after the relay stopped and the publisher closed.
     *
     * <p>The test class names its shop with the property {@code shop.name} (a short name, part of every name
     * the shop creates).
     */
    public static final class Initializer implements ApplicationContextInitializer<GenericApplicationContext> {
        @Override
        public void initialize(GenericApplicationContext context) {
            ShopInfrastructure shop = start(context.getEnvironment().getRequiredProperty("shop.name"));
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("shop", shop.properties()));
            context.registerBean("shopInfrastructure", ShopInfrastructure.class, () -> shop);
            context.registerBean(
                    "rabbitPublisher",
                    RabbitPublisher.class,
                    shop::publisher,
                    publisher -> publisher.setDependsOn("shopInfrastructure"));
        }
    }

    /** @return the properties that point the application at this schema */
    private Map<String, Object> properties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", PG_URL);
        properties.put("spring.datasource.username", PG_USER);
        properties.put("spring.datasource.hikari.maximum-pool-size", "6");
        properties.put("shop.schema", schema);
        properties.put("txoutbox.table", schema + ".outbox");
        properties.put("txoutbox.create-schema", "true");
        properties.put("spring.modulith.events.jdbc.schema", schema);
        properties.put("spring.modulith.events.jdbc.schema-initialization.enabled", "true");
        return properties;
    }

    /** @return a publisher to this exchange, through the proxy */
    public RabbitPublisher publisher() {
        return RabbitPublisher.builder()
                .host(proxy.host())
                .port(proxy.port())
                .credentials("guest", "guest")
                .exchange(exchange)
                .confirmTimeout(Duration.ofSeconds(2))
                .build();
    }

    /** @return the proxy between the publisher and RabbitMQ */
    public TcpProxy proxy() {
        return proxy;
    }

    /** @return the schema of this test class */
    public String schema() {
        return schema;
    }

    /** @return every message received so far, in arrival order */
    public List<Message> received() {
        return List.copyOf(received);
    }

    /** @return the messages received so far whose {@code aggregate-id} is the given one */
    public List<Message> receivedFor(String aggregateId) {
        return received.stream()
                .filter(m -> aggregateId.equals(m.header("aggregate-id")))
                .toList();
    }

    /** @return the one message for the aggregate id, once it arrived */
    public Optional<Message> messageFor(String aggregateId) {
        return receivedFor(aggregateId).stream().findFirst();
    }

    /** @return a number from the database: the first column of the first row */
    public long count(String sql, Object... args) {
        return Sql.count(POSTGRES, sql, args);
    }

    /** Deletes the exchange and queue, closes the proxy, drops the schema. Called when the context closes. */
    @Override
    public void close() throws Exception {
        try {
            channel.exchangeDelete(exchange);
            rabbit.close();
        } finally {
            proxy.close();
            execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static void execute(String sql) {
        Sql.execute(POSTGRES, sql);
    }
}
