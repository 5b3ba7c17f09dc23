package io.txoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.txoutbox.EventScope;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.micrometer.OutboxMetrics;
import io.txoutbox.opentelemetry.OpenTelemetryScope;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.transaction.support.TransactionTemplate;

class TxOutboxAutoConfigurationTest {
    private static final AutoConfigurations TXOUTBOX = AutoConfigurations.of(
            TxOutboxAutoConfiguration.class,
            TxOutboxMetricsAutoConfiguration.class,
            TxOutboxActuatorAutoConfiguration.class);

    private final List<String> tables = new ArrayList<>();

    /** No database: only the txoutbox auto-configuration. */
    private final ApplicationContextRunner bare = new ApplicationContextRunner().withConfiguration(TXOUTBOX);

    @AfterEach
    void dropTables() {
        tables.forEach(TestDatabase::dropOutbox);
    }

    /** The local PostgreSQL as the application's DataSource, with a fresh outbox table. */
    private ApplicationContextRunner withDatabase() {
        String table = TestDatabase.uniqueTable("sb_ctx");
        tables.add(table);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class))
                .withConfiguration(TXOUTBOX)
                .withPropertyValues(TestDatabase.dataSourceProperties())
                .withPropertyValues("txoutbox.table=" + table, "txoutbox.create-schema=true");
    }

    @Test
    void without_a_data_source_nothing_is_configured() {
        bare.withUserConfiguration(PublisherConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Outbox.class);
            assertThat(context).doesNotHaveBean(RelayLifecycle.class);
            assertThat(context).doesNotHaveBean(TxOutboxEndpoint.class);
        });
    }

    @Test
    void a_data_source_alone_gives_an_outbox_and_no_relay() {
        withDatabase().run(context -> {
            assertThat(context).hasSingleBean(SpringOutbox.class);
            assertThat(context).doesNotHaveBean(RelayLifecycle.class);
        });
    }

    @Test
    void the_relay_publishes_through_the_application_publisher_bean() {
        withDatabase().withUserConfiguration(PublisherConfig.class).run(context -> {
            RelayLifecycle relay = context.getBean(RelayLifecycle.class);
            assertThat(relay.isRunning()).isTrue();
            appendInTransaction(context, "order.placed", "o-1");

            RecordingPublisher broker = context.getBean(RecordingPublisher.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 1);
            assertThat(broker.published().get(0).eventType()).isEqualTo("order.placed");
        });
    }

    @Test
    void relay_properties_reach_the_relay() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class)
                .withPropertyValues("txoutbox.relay.name=orders-relay")
                .run(context -> {
                    Relay relay = context.getBean(RelayLifecycle.class).relay();
                    assertThat(relay.name()).isEqualTo("orders-relay");
                });
    }

    @Test
    void handler_beans_receive_the_events_of_their_route() {
        withDatabase().withUserConfiguration(HandlersConfig.class).run(context -> {
            appendInTransaction(context, "order.placed", "o-1");
            appendInTransaction(context, "email.welcome", "o-2");
            appendInTransaction(context, "email.receipt", "o-3");

            Received received = context.getBean(Received.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> received.events.size() == 3);
            assertThat(received.events)
                    .containsExactlyInAnyOrder("orders:order.placed", "mail:email.welcome", "mail:email.receipt");
        });
    }

    @Test
    void two_handler_beans_for_one_route_stop_the_start_naming_the_beans() {
        withDatabase().withUserConfiguration(ClashingHandlersConfig.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context))
                    .contains("order.placed")
                    .contains("two handlers")
                    .contains("first")
                    .contains("second");
        });
    }

    @Test
    void two_publisher_beans_stop_the_start_unless_one_is_primary() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, SecondPublisherConfig.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context)).contains("found 2").contains("@Primary");
                });
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, PrimaryPublisherConfig.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    appendInTransaction(context, "order.placed", "o-1");
                    RecordingPublisher primary = context.getBean("primaryPublisher", RecordingPublisher.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> primary.publishedCount() == 1);
                    assertThat(context.getBean("publisher", RecordingPublisher.class)
                                    .attempts())
                            .isEmpty();
                });
    }

    @Test
    void relay_disabled_means_no_relay_even_with_a_publisher() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class)
                .withPropertyValues("txoutbox.relay.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(Outbox.class);
                    assertThat(context).doesNotHaveBean(RelayLifecycle.class);
                });
    }

    @Test
    void every_relay_setting_of_the_library_is_a_property_without_the_starter_declaring_it() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class)
                .withPropertyValues(
                        "txoutbox.relay.lease-owner-prefix=pod-7.orders",
                        "txoutbox.relay.max-batch-bytes=2097152",
                        "txoutbox.relay.backoff.base=2s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Relay relay = context.getBean(RelayLifecycle.class).relay();
                    assertThat(relay.owner()).startsWith("pod-7.orders:");
                });
        withDatabase()
                .withUserConfiguration(PublisherConfig.class)
                .withPropertyValues("txoutbox.relay.lease-owner-prefix=pod 7")
                .run(context -> assertThat(allMessages(context))
                        .contains("txoutbox.relay.lease-owner-prefix is 'pod 7'; it must be 1 to 128 letters"));
    }

    @Test
    void closing_the_context_stops_the_relay() {
        List<Relay> relays = new ArrayList<>();
        withDatabase().withUserConfiguration(PublisherConfig.class).run(context -> {
            Relay relay = context.getBean(RelayLifecycle.class).relay();
            assertThat(relay.isRunning()).isTrue();
            relays.add(relay);
        });
        assertThat(relays.get(0).isRunning()).isFalse();
    }

    @Test
    void a_stopped_relay_lifecycle_starts_again_with_a_fresh_relay() {
        withDatabase().withUserConfiguration(PublisherConfig.class).run(context -> {
            RelayLifecycle lifecycle = context.getBean(RelayLifecycle.class);
            Relay first = lifecycle.relay();
            context.stop();
            assertThat(first.isRunning()).isFalse();
            context.start();
            assertThat(lifecycle.relay()).isNotSameAs(first);
            assertThat(lifecycle.relay().isRunning()).isTrue();
        });
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "txoutbox.relay.batch-size=0            | txoutbox.relay.batch-size",
                "txoutbox.relay.max-attempts=5000       | txoutbox.relay.max-attempts",
                "txoutbox.relay.name=has space          | txoutbox.relay.name",
                "txoutbox.relay.lease-duration=5s       | txoutbox.relay.lease-duration",
                "txoutbox.relay.poll-interval=0s        | txoutbox.relay.poll-interval",
                "txoutbox.relay.backoff.factor=0.5      | txoutbox.relay.backoff.factor",
                "txoutbox.relay.max-batch-bytes=0       | txoutbox.relay.max-batch-bytes",
                "txoutbox.max-payload-bytes=0           | txoutbox.max-payload-bytes",
                "txoutbox.table=Bad-Name                | txoutbox.table",
                "txoutbox.health.dead-threshold=-1      | txoutbox.health.dead-threshold",
                "txoutbox.metrics.percentiles=0.5,1.5   | txoutbox.metrics.percentiles",
                "txoutbox.relay.publish-timeout=soon    | txoutbox.relay.publish-timeout",
                "txoutbox.published-partitions=30m      | txoutbox.published-partitions"
            })
    void an_invalid_property_stops_the_start_naming_it(String setting, String property) {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class)
                .withPropertyValues(setting)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(allMessages(context)).contains(property);
                });
    }

    @Test
    void a_relay_property_that_contradicts_another_is_named_with_the_other_as_written() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class)
                .withPropertyValues("txoutbox.relay.lease-duration=5s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(allMessages(context))
                            .contains("txoutbox.relay.lease-duration is 5s; it must be longer than"
                                    + " txoutbox.relay.publish-timeout (10s)")
                            .doesNotContain("Relay.Builder");
                });
    }

    @Test
    void a_customizer_setting_is_named_as_the_java_that_set_it() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class)
                .withBean(RelayCustomizer.class, () -> b -> b.batchSize(0))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(allMessages(context))
                            .contains("Relay.Builder.batchSize is 0; it must be between 1 and 10000");
                });
    }

    @Test
    void published_partitions_keep_the_retained_rows_out_of_the_table() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class)
                .withPropertyValues("txoutbox.published-partitions=1d", "txoutbox.relay.retain-published=7d")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SpringOutbox outbox = context.getBean(SpringOutbox.class);
                    appendInTransaction(context, "order.placed", "o-1");
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> outbox.admin().stats().published() == 1);
                    assertThat(outbox.admin().stats().pending()).isZero();
                    assertThat(TestDatabase.count("SELECT count(*) FROM " + outbox.table()))
                            .isZero();
                    assertThat(TestDatabase.count("SELECT count(*) FROM " + outbox.table() + "_published"))
                            .isEqualTo(1);
                });
    }

    @Test
    void append_outside_a_transaction_is_refused_because_it_breaks_atomicity() {
        withDatabase().run(context -> {
            SpringOutbox outbox = context.getBean(SpringOutbox.class);
            assertThatThrownBy(() -> outbox.append(event("order.placed", "o-1")))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("needs an active Spring-managed transaction")
                    .hasMessageContaining("atomicity")
                    .hasMessageContaining("txoutbox.allow-append-without-transaction");
            assertThat(outbox.admin().stats().pending()).isZero();
        });
    }

    @Test
    void append_outside_a_transaction_commits_on_its_own_when_allowed() {
        withDatabase()
                .withPropertyValues("txoutbox.allow-append-without-transaction=true")
                .run(context -> {
                    SpringOutbox outbox = context.getBean(SpringOutbox.class);
                    outbox.append(event("order.placed", "o-1"));
                    assertThat(outbox.admin().stats().pending()).isEqualTo(1);
                });
    }

    @Test
    void with_a_meter_registry_the_relay_reports_to_outbox_metrics() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(OutboxMetrics.class);
                    appendInTransaction(context, "order.placed", "o-1");
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(20))
                            .until(() ->
                                    registry.find("txoutbox.events.published").counter() != null);
                    assertThat(registry.get("txoutbox.events.published")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("txoutbox.events.pending").gauge()).isNotNull();
                });
    }

    @Test
    void without_a_meter_registry_or_with_metrics_disabled_there_are_no_metrics() {
        withDatabase().withUserConfiguration(PublisherConfig.class).run(context -> {
            assertThat(context).doesNotHaveBean(OutboxMetrics.class);
        });
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class)
                .withPropertyValues("txoutbox.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(OutboxMetrics.class));
    }

    @Test
    void other_relay_listener_beans_hear_every_batch_too() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, MeterRegistryConfig.class, ListenerConfig.class)
                .run(context -> {
                    appendInTransaction(context, "order.placed", "o-1");
                    Received received = context.getBean(Received.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> received.events.size() == 1);
                    assertThat(received.events).containsExactly("batch:1");
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> context.getBean(MeterRegistry.class)
                                            .find("txoutbox.events.published")
                                            .counter()
                                    != null);
                });
    }

    @Test
    void the_health_indicator_and_the_endpoint_come_with_the_actuator() {
        withDatabase()
                .withPropertyValues("management.endpoints.web.exposure.include=txoutbox")
                .run(context -> {
                    assertThat(context).hasBean("txoutboxHealthIndicator");
                    assertThat(context).hasSingleBean(TxOutboxEndpoint.class);
                });
    }

    @Test
    void the_endpoint_is_left_out_until_the_application_exposes_it() {
        withDatabase().run(context -> {
            assertThat(context).hasBean("txoutboxHealthIndicator");
            assertThat(context).doesNotHaveBean(TxOutboxEndpoint.class);
        });
    }

    @Test
    void without_the_actuator_there_is_no_health_indicator_and_no_endpoint() {
        withDatabase()
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class, Endpoint.class))
                .withPropertyValues("management.endpoints.web.exposure.include=txoutbox")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(Outbox.class);
                    assertThat(context).doesNotHaveBean("txoutboxHealthIndicator");
                    assertThat(context).doesNotHaveBean(TxOutboxEndpoint.class);
                });
    }

    @Test
    void the_health_indicator_can_be_turned_off() {
        withDatabase()
                .withPropertyValues("management.health.txoutbox.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("txoutboxHealthIndicator"));
    }

    @Test
    void with_opentelemetry_on_the_classpath_appends_carry_the_trace_context_scope() {
        withDatabase().run(context -> assertThat(context).hasSingleBean(OpenTelemetryScope.class));
        withDatabase().withPropertyValues("txoutbox.trace-context=false").run(context -> assertThat(context)
                .doesNotHaveBean(OpenTelemetryScope.class));
        withDatabase()
                .withClassLoader(new FilteredClassLoader("io.opentelemetry"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(OpenTelemetryScope.class);
                });
    }

    @Test
    void an_application_scope_bean_replaces_the_trace_context_scope() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, ScopeConfig.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(OpenTelemetryScope.class);
                    appendInTransaction(context, "order.placed", "o-1");
                    RecordingPublisher broker = context.getBean(RecordingPublisher.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 1);
                    assertThat(broker.published().get(0).correlationId()).isEqualTo("corr-42");
                });
    }

    @Test
    void an_application_outbox_bean_wins_and_the_relay_uses_it() {
        withDatabase()
                .withUserConfiguration(PublisherConfig.class, OwnOutboxConfig.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(SpringOutbox.class);
                    assertThat(context).hasSingleBean(RelayLifecycle.class);
                });
    }

    @Test
    void health_is_down_when_the_oldest_unpublished_event_is_older_than_the_threshold() {
        withDatabase()
                .withPropertyValues("txoutbox.health.oldest-pending-age-threshold=1ms")
                .run(context -> {
                    HealthIndicator health = context.getBean("txoutboxHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    appendInTransaction(context, "order.placed", "o-1"); // no relay: it stays pending
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus().equals(Status.DOWN));
                    assertThat((String) health.health().getDetails().get("reason"))
                            .contains("oldest unpublished event");
                });
    }

    @Test
    void an_event_appended_inside_a_span_reaches_the_publisher_with_its_traceparent() {
        try (SdkTracerProvider tracing = SdkTracerProvider.builder().build()) {
            withDatabase().withUserConfiguration(PublisherConfig.class).run(context -> {
                Span span = tracing.get("test").spanBuilder("place-order").startSpan();
                try (Scope ignored = span.makeCurrent()) {
                    appendInTransaction(context, "order.placed", "o-1");
                } finally {
                    span.end();
                }
                RecordingPublisher broker = context.getBean(RecordingPublisher.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 1);
                assertThat(broker.published().get(0).traceparent())
                        .isEqualTo("00-" + span.getSpanContext().getTraceId() + "-"
                                + span.getSpanContext().getSpanId() + "-01");
            });
        }
    }

    @Test
    void the_failure_analyzer_names_the_property_to_fix() {
        OutboxValidationException cause = new OutboxValidationException(
                "txoutbox.relay.batch-size", "1..10000", "Invalid property txoutbox.relay.batch-size: is 0");
        FailureAnalysis analysis =
                new TxOutboxFailureAnalyzer().analyze(new IllegalStateException("context failed", cause));
        assertThat(analysis.getDescription()).contains("txoutbox.relay.batch-size");
        assertThat(analysis.getAction()).contains("txoutbox.relay.batch-size").contains("1..10000");
    }

    @Test
    void the_outbox_waits_for_the_database_initializers_before_its_schema_check() {
        withDatabase()
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:txoutbox-test-init.sql")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String[] initializers = context.getBeanNamesForType(DataSourceScriptDatabaseInitializer.class);
                    assertThat(initializers).isNotEmpty();
                    assertThat(context.getBeanFactory()
                                    .getBeanDefinition("txoutbox")
                                    .getDependsOn())
                            .contains(initializers);
                });
        TestDatabase.execute("DROP TABLE IF EXISTS txoutbox_sbt_init_marker");
    }

    private static void appendInTransaction(AssertableApplicationContext context, String type, String id) {
        SpringOutbox outbox = context.getBean(SpringOutbox.class);
        context.getBean(TransactionTemplate.class).executeWithoutResult(s -> outbox.append(event(type, id)));
    }

    static OutboxEvent event(String type, String aggregateId) {
        return OutboxEvent.builder(type)
                .aggregate("order", aggregateId)
                .jsonPayload("{\"orderId\":\"" + aggregateId + "\"}")
                .build();
    }

    private static String rootMessage(AssertableApplicationContext context) {
        Throwable t = context.getStartupFailure();
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static String allMessages(AssertableApplicationContext context) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    static final class Received {
        final List<String> events = new CopyOnWriteArrayList<>();
    }

    @Configuration(proxyBeanMethods = false)
    static class PublisherConfig {
        @Bean
        RecordingPublisher publisher() {
            return new RecordingPublisher();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondPublisherConfig {
        @Bean
        Publisher secondPublisher() {
            return new RecordingPublisher();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryPublisherConfig {
        @Bean
        @Primary
        RecordingPublisher primaryPublisher() {
            return new RecordingPublisher();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlersConfig {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        OutboxHandler orders(Received received) {
            return OutboxHandler.of("order.placed", e -> received.events.add("orders:" + e.eventType()));
        }

        @Bean
        OutboxHandler mail(Received received) {
            return OutboxHandler.of("email.*", e -> received.events.add("mail:" + e.eventType()));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClashingHandlersConfig {
        @Bean
        OutboxHandler first() {
            return OutboxHandler.of("order.placed", e -> {});
        }

        @Bean
        OutboxHandler second() {
            return OutboxHandler.of("order.placed", e -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MeterRegistryConfig {
        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ListenerConfig {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        RelayListener countingListener(Received received) {
            return new RelayListener() {
                @Override
                public void onBatch(BatchReport report) {
                    received.events.add("batch:" + report.events().size());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ScopeConfig {
        @Bean
        Supplier<EventScope> correlationScope() {
            return () -> new EventScope("corr-42", null, null, null, null);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnOutboxConfig {
        @Bean
        Outbox ownOutbox(javax.sql.DataSource dataSource, org.springframework.core.env.Environment environment) {
            return Outbox.builder(dataSource)
                    .table(environment.getProperty("txoutbox.table", "outbox"))
                    .createSchemaIfMissing(true)
                    .build();
        }
    }
}
