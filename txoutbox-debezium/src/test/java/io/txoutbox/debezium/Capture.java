package io.txoutbox.debezium;

import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.Binary;
import io.debezium.engine.format.ChangeEventFormat;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;
import io.debezium.engine.format.SimpleString;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

/**
 * The real Debezium engine on the embedded PostgreSQL, capturing what the outbox event router makes of
 * the table's change stream. {@link #kafkaConnect} runs it with a Kafka Connect configuration and applies
 * the key, value and header converters that configuration names, as a Connect worker would before
 * writing to Kafka; {@link #debeziumServer} runs it with Debezium Server's properties and its formats.
 * Either way the messages are kept in stream order.
 */
final class Capture implements AutoCloseable {

    /**
     * A message as a broker would receive it: topic, key and value bytes, headers as text (Debezium Server's
     * JSON-encoded header values decoded).
     */
    record Message(String topic, String key, byte[] value, Map<String, String> headers) {
        UUID eventId() {
            return UUID.fromString(headers.get("event-id"));
        }
    }

    private final List<Message> messages = new ArrayList<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private volatile boolean completed;
    private final ExecutorService executor;
    private final AutoCloseable engine;

    private Capture(String name, java.util.function.Function<Capture, AutoCloseable> start) {
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "debezium-" + name);
            t.setDaemon(true);
            return t;
        });
        this.engine = start.apply(this);
    }

    /**
     * @param properties a Kafka Connect connector's configuration, used as it is
     * @param name the engine's name
     * @return a running capture
     */
    static Capture kafkaConnect(Map<String, String> properties, String name) {
        return new Capture(name, capture -> {
            Converter keys = converter(properties, "key.converter", true);
            Converter values = converter(properties, "value.converter", false);
            HeaderConverter headers = instantiate(properties.get("header.converter"), HeaderConverter.class);
            headers.configure(subset(properties, "header.converter."));
            DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(
                            ChangeEventFormat.of(Connect.class))
                    .using(engineProperties(properties, name))
                    .using((success, message, error) -> capture.finished(success, message, error))
                    .notifying(event -> {
                        SourceRecord r = event.record();
                        Map<String, String> h = new LinkedHashMap<>();
                        for (Header header : r.headers()) {
                            byte[] bytes =
                                    headers.fromConnectHeader(r.topic(), header.key(), header.schema(), header.value());
                            h.put(header.key(), bytes == null ? null : new String(bytes, StandardCharsets.UTF_8));
                        }
                        byte[] key = keys.fromConnectData(r.topic(), r.keySchema(), r.key());
                        capture.add(new Message(
                                r.topic(),
                                key == null ? null : new String(key, StandardCharsets.UTF_8),
                                values.fromConnectData(r.topic(), r.valueSchema(), r.value()),
                                h));
                    })
                    .build();
            capture.executor.execute(engine);
            return engine;
        });
    }

    /**
     * @param applicationProperties Debezium Server's {@code application.properties} (source, transforms,
     *     formats); the sink is this capture
     * @param name the engine's name
     * @return a running capture
     */
    static Capture debeziumServer(String applicationProperties, String name) {
        Properties file = new Properties();
        try {
            file.load(new StringReader(applicationProperties));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Debezium Server hands debezium.source.* to the connector, debezium.transforms* to the engine and
        // debezium.format.<part>.* to that part's converter.
        Map<String, String> props = new LinkedHashMap<>();
        for (String key : file.stringPropertyNames()) {
            String value = file.getProperty(key);
            if (key.startsWith("debezium.source.")) {
                props.put(key.substring("debezium.source.".length()), value);
            } else if (key.startsWith("debezium.transforms")) {
                props.put(key.substring("debezium.".length()), value);
            } else if (key.startsWith("debezium.format.") && key.indexOf('.', "debezium.format.".length()) > 0) {
                String rest = key.substring("debezium.format.".length());
                String part = rest.substring(0, rest.indexOf('.'));
                props.put(part + ".converter." + rest.substring(part.length() + 1), value);
            }
        }
        if (!"simplestring".equals(file.getProperty("debezium.format.key"))
                || !"binary".equals(file.getProperty("debezium.format.value"))
                || !"json".equals(file.getProperty("debezium.format.header"))) {
            throw new IllegalArgumentException("this capture runs the formats simplestring, binary and json only");
        }
        return new Capture(name, capture -> {
            DebeziumEngine<ChangeEvent<String, Object>> engine = DebeziumEngine.create(
                            KeyValueHeaderChangeEventFormat.of(SimpleString.class, Binary.class, Json.class))
                    .using(engineProperties(props, name))
                    .using((success, message, error) -> capture.finished(success, message, error))
                    .notifying(event -> {
                        Map<String, String> h = new LinkedHashMap<>();
                        for (io.debezium.engine.Header<Object> header : event.headers()) {
                            Object v = header.getValue();
                            h.put(header.getKey(), v == null ? null : Delivered.jsonText(v.toString()));
                        }
                        capture.add(new Message(event.destination(), event.key(), (byte[]) event.value(), h));
                    })
                    .build();
            capture.executor.execute(engine);
            return engine;
        });
    }

    private static Properties engineProperties(Map<String, String> connector, String name) {
        Properties p = new Properties();
        p.putAll(connector);
        p.setProperty("name", name);
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        // Offsets reach the slot (confirmed_flush_lsn) soon after a record is handled: the switch
        // procedure reads them to know the connector has passed a point.
        p.setProperty("offset.flush.interval.ms", "100");
        p.setProperty("record.processing.threads", "1");
        p.setProperty("record.processing.order", "ORDERED");
        return p;
    }

    private static Converter converter(Map<String, String> properties, String key, boolean isKey) {
        Converter c = instantiate(properties.get(key), Converter.class);
        c.configure(subset(properties, key + "."), isKey);
        return c;
    }

    private static Map<String, String> subset(Map<String, String> properties, String prefix) {
        Map<String, String> m = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                m.put(k.substring(prefix.length()), v);
            }
        });
        return m;
    }

    private static <T> T instantiate(String className, Class<T> type) {
        try {
            return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + className, e);
        }
    }

    private synchronized void add(Message m) {
        messages.add(m);
    }

    private void finished(boolean success, String message, Throwable error) {
        completed = true;
        if (!success || error != null) {
            StringBuilder why = new StringBuilder(String.valueOf(message));
            for (Throwable t = error; t != null; t = t.getCause()) {
                why.append(" <- ").append(t);
            }
            failure.compareAndSet(null, why.toString());
        }
    }

    /** @return the messages so far, in stream order */
    synchronized List<Message> messages() {
        return List.copyOf(messages);
    }

    /** @return why the engine stopped on its own, or {@code null} while it runs (or stopped cleanly) */
    String failure() {
        return failure.get();
    }

    @Override
    public void close() throws Exception {
        if (!completed) {
            engine.close();
        }
        executor.shutdown();
        if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the Debezium engine did not stop within 30 s");
        }
    }
}
