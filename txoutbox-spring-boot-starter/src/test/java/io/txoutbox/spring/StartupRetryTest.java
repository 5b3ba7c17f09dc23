package io.txoutbox.spring;

import static io.txoutbox.spring.TxOutboxAutoConfigurationTest.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter meets a database that is not up yet: the application starts, reports DOWN, and relays once
 * the database comes; a database that refuses the configuration fails the start at once with its own
 * reason. The outage is a {@link TcpProxy} in front of the real PostgreSQL.
 */
class StartupRetryTest {
    private static final URI PG = URI.create(TestDatabase.URL.substring("jdbc:".length()));

    private final String table = TestDatabase.uniqueTable("sb_late");
    private TcpProxy proxy;

    @AfterEach
    void cleanUp() {
        if (proxy != null) {
            proxy.close();
        }
        TestDatabase.dropOutbox(table);
    }

    private ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        TxOutboxAutoConfiguration.class,
                        TxOutboxActuatorAutoConfiguration.class))
                .withPropertyValues(TestDatabase.dataSourceProperties())
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        "txoutbox.table=" + table,
                        "txoutbox.create-schema=true",
                        "txoutbox.relay.poll-interval=300ms",
                        "txoutbox.startup.max-backoff=1s");
    }

    @Test
    void an_unreachable_database_at_start_is_waited_for_and_the_relay_starts_when_it_comes() throws Exception {
        proxy = new TcpProxy(PG.getHost(), PG.getPort());
        proxy.cut();
        runner("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + PG.getPath())
                .withUserConfiguration(TxOutboxAutoConfigurationTest.PublisherConfig.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SpringOutbox outbox = context.getBean(SpringOutbox.class);
                    assertThat(outbox.isReady()).isFalse();
                    assertThat(outbox.waitingFor()).contains("SQLState 08");
                    HealthIndicator health = context.getBean("txoutboxHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.health().getDetails().get("reason").toString())
                            .startsWith("waiting for the database");
                    RelayLifecycle relay = context.getBean(RelayLifecycle.class);
                    assertThat(relay.isRunning()).isTrue();
                    assertThat(relay.relay()).isNull();

                    proxy.restore();
                    await().atMost(Duration.ofSeconds(30)).until(outbox::isReady);
                    await().atMost(Duration.ofSeconds(10)).until(() -> relay.relay() != null);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    context.getBean(TransactionTemplate.class)
                            .executeWithoutResult(s -> outbox.append(event("order.placed", "o-1")));
                    RecordingPublisher broker = context.getBean(RecordingPublisher.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 1);
                });
    }

    @Test
    void a_missing_database_fails_the_start_at_once_with_the_databases_reason() {
        String nope = "nope_" + table;
        CompletableFuture<FailureAnalysis> analysis = CompletableFuture.supplyAsync(() -> {
            FailureAnalysis[] out = new FailureAnalysis[1];
            runner(TestDatabase.URL.replace("/test", "/" + nope))
                    .withPropertyValues("spring.datasource.hikari.connection-timeout=300000")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        out[0] = new TxOutboxDatabaseFailureAnalyzer().analyze(context.getStartupFailure());
                    });
            return out[0];
        });
        // Promptly: the pool's connection timeout is five minutes, the bound here far less.
        await().atMost(Duration.ofSeconds(60)).until(analysis::isDone);
        FailureAnalysis a = analysis.join();
        assertThat(a).isNotNull();
        assertThat(a.getDescription())
                .contains("database \"" + nope + "\" does not exist")
                .contains("SQLState 3D000");
        assertThat(a.getAction()).contains("spring.datasource.url");
    }

    @Test
    void with_start_up_retries_off_an_unreachable_database_fails_the_start() throws Exception {
        proxy = new TcpProxy(PG.getHost(), PG.getPort());
        proxy.cut();
        runner("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + PG.getPath())
                .withPropertyValues("txoutbox.startup.retry=false")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis a = new TxOutboxDatabaseFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(a.getDescription()).contains("SQLState 08");
                    assertThat(a.getAction()).contains("cannot be reached").contains("txoutbox.startup.retry");
                });
    }
}
