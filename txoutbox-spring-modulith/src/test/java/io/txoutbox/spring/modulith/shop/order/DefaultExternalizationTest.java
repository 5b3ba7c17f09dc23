package io.txoutbox.spring.modulith.shop.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spring.modulith.shop.ShopInfrastructure;
import io.txoutbox.spring.modulith.shop.ShopInfrastructure.Message;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.core.EventPublicationRegistry;
import org.springframework.modulith.test.ApplicationModuleTest;
import org.springframework.modulith.test.Scenario;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.TestPropertySource;

/**
 * Modulith's own externalization switched off, no externalization configuration of the application's and
 * no event publication registry: txoutbox builds Modulith's defaults and externalizes on its own.
 */
@ApplicationModuleTest
@DirtiesContext
@ContextConfiguration(initializers = ShopInfrastructure.Initializer.class)
@TestPropertySource(
        properties = {
            "shop.name=defaults",
            "spring.modulith.events.externalization.enabled=false",
            "shop.custom-externalization=false",
            // No registry: Modulith's event publication auto-configuration (in 2.0 it needs a registry) and the JDBC
            // one.
            "spring.autoconfigure.exclude=org.springframework.modulith.events.config.EventPublicationAutoConfiguration,"
                    + "org.springframework.modulith.events.jdbc.JdbcEventPublicationAutoConfiguration",
            "txoutbox.relay.name=modulith-defaults",
            "txoutbox.relay.poll-interval=500ms"
        })
class DefaultExternalizationTest {
    private final ShopInfrastructure shop;
    private final OrderService orders;
    private final ApplicationContext context;

    DefaultExternalizationTest(ShopInfrastructure shop, OrderService orders, ApplicationContext context) {
        this.shop = shop;
        this.orders = orders;
        this.context = context;
    }

    @Test
    void with_modulith_externalization_off_txoutbox_externalizes_on_modulith_defaults(Scenario scenario) {
        assertThat(context.getBeansOfType(EventExternalizationConfiguration.class))
                .containsOnlyKeys("txoutboxEventExternalizationConfiguration");
        assertThat(context.getBeansOfType(EventPublicationRegistry.class)).isEmpty();

        scenario.stimulate(() -> orders.place("d-1", 100, "eu-west"))
                .andWaitForStateChange(() -> shop.messageFor("d-1"))
                .andVerify(found -> {
                    Message m = found.orElseThrow();
                    assertThat(m.routingKey()).as("the annotation's target").isEqualTo("orders");
                    assertThat(m.header("event-version")).isEqualTo("1");
                    assertThat(m.headers()).doesNotContainKey("shop-region");
                });

        scenario.stimulate(() -> orders.cancel("d-2"))
                .andWaitForStateChange(() -> shop.received().stream()
                        .filter(m -> m.body().contains("\"d-2\""))
                        .findFirst())
                .andVerify(found -> assertThat(found.orElseThrow().routingKey())
                        // A module test makes the module's package the application's: the local name is relative to it.
                        .isEqualTo("OrderCancelled"));
    }
}
