package io.txoutbox.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.txoutbox.EventScope;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.test.RecordingPublisher;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpenTelemetryScopeTest {
    private HikariDataSource dataSource;
    private final String table =
            "otscope_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    private SdkTracerProvider tracerProvider;
    private Tracer tracer;

    @BeforeEach
    void setUp() {
        dataSource = LocalPostgres.pool("opentelemetry-scope-test");
        tracerProvider = SdkTracerProvider.builder().build();
        tracer = tracerProvider.get("txoutbox-test");
    }

    @AfterEach
    void tearDown() throws Exception {
        tracerProvider.close();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
        } finally {
            dataSource.close();
        }
    }

    /** @return a builder on this test's table, created at build and dropped after the test */
    private Outbox.Builder outbox() {
        return Outbox.builder(dataSource).table(table).createSchemaIfMissing(true);
    }

    private static OutboxEvent event(String type, String aggregateId) {
        return OutboxEvent.builder(type)
                .aggregate("order", aggregateId)
                .jsonPayload("{\"orderId\":\"" + aggregateId + "\"}")
                .build();
    }

    @Test
    void an_event_appended_inside_a_span_carries_its_traceparent_to_the_publisher() {
        Outbox outbox = outbox().scope(OpenTelemetryScope.create()).build();
        Span span = tracer.spanBuilder("place-order").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));
        } finally {
            span.end();
        }

        ClaimedEvent published = publishOne(outbox);
        SpanContext sc = span.getSpanContext();
        assertThat(published.traceparent()).isEqualTo("00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-01");
        assertThat(published.header("tracestate")).isNull();
    }

    @Test
    void the_tracestate_of_the_trace_travels_with_the_event() {
        Outbox outbox = outbox().scope(OpenTelemetryScope.create()).build();
        SpanContext remoteParent = SpanContext.createFromRemoteParent(
                "4bf92f3577b34da6a3ce929d0e0e4736",
                "00f067aa0ba902b7",
                TraceFlags.getSampled(),
                TraceState.builder().put("vendor", "abc").build());
        Span span = tracer.spanBuilder("place-order")
                .setParent(Context.root().with(Span.wrap(remoteParent)))
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));
        } finally {
            span.end();
        }

        ClaimedEvent published = publishOne(outbox);
        assertThat(published.traceparent())
                .startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-")
                .doesNotContain("00f067aa0ba902b7")
                .endsWith("-01");
        assertThat(published.header("tracestate")).isEqualTo("vendor=abc");
    }

    @Test
    void without_a_current_span_the_base_scope_is_used_unchanged() {
        Outbox outbox = outbox().scope(OpenTelemetryScope.create()
                        .withBase(() -> new EventScope("corr-1", null, "tenant-a", null, null)))
                .build();
        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));

        ClaimedEvent published = publishOne(outbox);
        assertThat(published.traceparent()).isNull();
        assertThat(published.correlationId()).isEqualTo("corr-1");
        assertThat(published.tenantId()).isEqualTo("tenant-a");
    }

    @Test
    void an_event_that_names_its_own_traceparent_keeps_it() {
        Outbox outbox = outbox().scope(OpenTelemetryScope.create()).build();
        String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        Span span = tracer.spanBuilder("place-order").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            outbox.inTransaction(c -> outbox.append(
                    c,
                    OutboxEvent.builder("order.placed")
                            .aggregate("order", "o-1")
                            .jsonPayload("{}")
                            .header("traceparent", own)
                            .build()));
        } finally {
            span.end();
        }

        assertThat(publishOne(outbox).traceparent()).isEqualTo(own);
    }

    private static ClaimedEvent publishOne(Outbox outbox) {
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).hasSize(1);
        return broker.published().get(0);
    }
}
