package io.txoutbox.spring.modulith;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.spring.TxOutboxAutoConfiguration;
import io.txoutbox.spring.modulith.shop.ShopInfrastructure;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.SimpleApplicationEventMulticaster;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.Externalized;
import org.springframework.modulith.events.support.DelegatingEventExternalizer;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The auto-configuration's decisions, each in a context of its own on the local PostgreSQL: which mapper
 * writes payloads, what it refuses to start beside, and how routing expressions resolve.
 */
class TxOutboxModulithAutoConfigurationTest {
    private static final String TABLE = "txoutbox_modulith_autoconf_"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));

    /** Every context of this class: the outbox on this class's table in the local PostgreSQL, no relay. */
    private static final String[] ON_LOCAL_POSTGRES = {
        "spring.datasource.url=" + ShopInfrastructure.PG_URL,
        "spring.datasource.username=" + ShopInfrastructure.PG_USER,
        "txoutbox.table=" + TABLE,
        "txoutbox.create-schema=true",
        "txoutbox.relay.enabled=false"
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    TxOutboxAutoConfiguration.class,
                    TxOutboxModulithAutoConfiguration.class))
            .withPropertyValues(ON_LOCAL_POSTGRES)
            .withUserConfiguration(Routes.class);

    /** A parcel: target from a bean, key from the event, both in SpEL. */
    @Externalized("#{@shippingRoutes.topic()}::#{parcelId}")
    record ParcelShipped(String parcelId, String carrier) {}

    /** Not annotated. */
    record ParcelWeighed(String parcelId) {}

    /** Names the shipping topic. */
    static final class ShippingRoutes {
        public String topic() {
            return "shipping.parcels";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Routes {
        @Bean
        ShippingRoutes shippingRoutes() {
            return new ShippingRoutes();
        }

        @Bean
        EventExternalizationConfiguration externalization() {
            return EventExternalizationConfiguration.externalizing()
                    .select(EventExternalizationConfiguration.annotatedAsExternalized())
                    .headers(ParcelShipped.class, parcel -> {
                        Map<String, Object> headers = new HashMap<>();
                        headers.put("carrier", parcel.carrier());
                        headers.put("signature", "abc".getBytes(StandardCharsets.UTF_8));
                        headers.put("insurance", null);
                        return headers;
                    })
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ModulithKafkaLike {
        @Bean
        DelegatingEventExternalizer kafkaEventExternalizer(EventExternalizationConfiguration configuration) {
            return new DelegatingEventExternalizer(
                    configuration, (target, payload) -> CompletableFuture.completedFuture(null));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Jackson2Only {
        @Bean
        ObjectMapper objectMapper() {
            return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE);
        }
    }

    /** Delivers events on another thread, as an application may configure its multicaster to. */
    @Configuration(proxyBeanMethods = false)
    static class AsyncMulticaster {
        @Bean
        SimpleApplicationEventMulticaster applicationEventMulticaster() {
            SimpleApplicationEventMulticaster multicaster = new SimpleApplicationEventMulticaster();
            multicaster.setTaskExecutor(new SimpleAsyncTaskExecutor("async-events-"));
            return multicaster;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainOutbox {
        @Bean
        Outbox outbox(DataSource dataSource) {
            return Outbox.builder(dataSource)
                    .table(TABLE)
                    .createSchemaIfMissing(true)
                    .build();
        }
    }

    @AfterAll
    static void dropTable() throws SQLException {
        try (java.sql.Connection c =
                        DriverManager.getConnection(ShopInfrastructure.PG_URL, ShopInfrastructure.PG_USER, null);
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE + " CASCADE");
            st.execute("DROP FUNCTION IF EXISTS " + TABLE + "_notify() CASCADE");
        }
    }

    @Test
    void target_and_key_expressions_resolve_against_the_event_and_the_beans() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            TxOutboxEventExternalizer externalizer = context.getBean(TxOutboxEventExternalizer.class);
            OutboxEvent event = externalizer.toOutboxEvent(new ParcelShipped("p-1", "acme"));

            assertThat(event.destination()).isEqualTo("shipping.parcels");
            assertThat(event.aggregateType()).isEqualTo("shipping.parcels");
            assertThat(event.aggregateId()).isEqualTo("p-1");
            assertThat(event.eventType()).isEqualTo(ParcelShipped.class.getName());
            assertThat(event.headers())
                    .as("values as text, null values left out")
                    .containsExactlyInAnyOrderEntriesOf(Map.of("carrier", "acme", "signature", "abc"));
            assertThat(new JsonMapper().readTree(event.payload()))
                    .isEqualTo(new JsonMapper().readTree("{\"parcelId\":\"p-1\",\"carrier\":\"acme\"}"));
        });
    }

    @Test
    void an_event_the_configuration_does_not_select_is_ignored_even_outside_a_transaction() {
        runner.run(context -> {
            context.publishEvent(new ParcelWeighed("p-2"));
            assertThat(context.getBean(Outbox.class).admin().stats().pending()).isZero();
        });
    }

    @Test
    void with_an_asynchronous_multicaster_the_event_is_still_appended_in_the_publishing_transaction() {
        runner.withUserConfiguration(AsyncMulticaster.class).run(context -> {
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            Outbox outbox = context.getBean(Outbox.class);
            long before = outbox.admin().stats().pending();

            tx.executeWithoutResult(status -> {
                context.publishEvent(new ParcelShipped("p-4", "acme"));
                status.setRollbackOnly();
            });
            assertThat(outbox.admin().stats().pending())
                    .as("rolled back with the transaction")
                    .isEqualTo(before);

            tx.executeWithoutResult(status -> context.publishEvent(new ParcelShipped("p-5", "acme")));
            assertThat(outbox.admin().stats().pending()).as("committed with it").isEqualTo(before + 1);
        });
    }

    @Test
    void beside_one_of_modulith_s_own_externalizers_the_application_does_not_start() {
        runner.withUserConfiguration(ModulithKafkaLike.class).run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("Spring Modulith's own event externalizer [kafkaEventExternalizer]")
                .hasMessageContaining("spring.modulith.events.externalization.enabled=false")
                .hasMessageContaining("txoutbox.modulith.enabled=false"));
    }

    @Test
    void txoutbox_modulith_enabled_false_leaves_externalization_to_modulith() {
        runner.withUserConfiguration(ModulithKafkaLike.class)
                .withPropertyValues("txoutbox.modulith.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(TxOutboxEventExternalizer.class);
                });
    }

    /**
     * The outbox and the externalizer on the local PostgreSQL, without the JSON auto-configurations: the
     * test gives the mapper, or none.
     */
    private static ApplicationContextRunner withoutJsonAutoConfiguration() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        TxOutboxAutoConfiguration.class,
                        TxOutboxModulithAutoConfiguration.class))
                .withPropertyValues(ON_LOCAL_POSTGRES);
    }

    @Test
    void without_jackson_3_the_application_s_jackson_2_object_mapper_writes_the_payload() {
        withoutJsonAutoConfiguration()
                .withUserConfiguration(Routes.class, Jackson2Only.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ExternalizedPayloadSerializer.class))
                            .hasToString("the application's Jackson 2 ObjectMapper");
                    OutboxEvent event = context.getBean(TxOutboxEventExternalizer.class)
                            .toOutboxEvent(new ParcelShipped("p-3", "acme"));
                    assertThat(event.payloadAsString()).contains("\"parcel-id\":\"p-3\"");
                });
    }

    @Test
    void without_any_json_mapper_the_application_does_not_start_and_says_what_is_missing() {
        withoutJsonAutoConfiguration().withUserConfiguration(Routes.class).run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("no Jackson 3 JsonMapper bean, no Jackson 2 ObjectMapper bean")
                .hasMessageContaining("ExternalizedPayloadSerializer"));
    }

    @Test
    void an_outbox_of_the_application_s_that_does_not_join_spring_transactions_is_refused() {
        runner.withUserConfiguration(PlainOutbox.class).run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("appended through a SpringOutbox")
                .hasMessageContaining("new SpringOutbox(outbox, dataSource, false)"));
    }
}
