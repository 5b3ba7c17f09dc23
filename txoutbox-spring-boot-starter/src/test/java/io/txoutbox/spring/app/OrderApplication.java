package io.txoutbox.spring.app;

import io.txoutbox.handler.PermanentFailureException;
import io.txoutbox.spring.OutboxHandler;
import io.txoutbox.spring.SpringOutbox;
import io.txoutbox.spring.TestDatabase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/** A small JPA application: no component scan, so the other tests' configurations stay out. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class OrderApplication {

    /** What the handler beans received, by event type and aggregate id. */
    public static final class Handled {
        public final List<String> events = new CopyOnWriteArrayList<>();
        public final AtomicBoolean refusePayments = new AtomicBoolean(true);

        public long count(String entry) {
            return events.stream().filter(entry::equals).count();
        }
    }

    @Bean
    Handled handled() {
        return new Handled();
    }

    @Bean
    OrderService orderService(PlacedOrderRepository orders, SpringOutbox outbox) {
        return new OrderService(orders, outbox);
    }

    @Bean
    OutboxHandler orderHandler(Handled handled) {
        return OutboxHandler.of("order.*", e -> handled.events.add(e.eventType() + ":" + e.aggregateId()));
    }

    @Bean
    OutboxHandler paymentHandler(Handled handled) {
        return OutboxHandler.of("payment.*", e -> {
            if (handled.refusePayments.get()) {
                throw new PermanentFailureException("payment provider refused the capture");
            }
            handled.events.add(e.eventType() + ":" + e.aggregateId());
        });
    }

    /** Drops the outbox table when the context closes: after the relay stopped, before the pool closes. */
    @Bean
    DisposableBean dropOutboxTable(DataSource dataSource, Environment environment) {
        return () -> TestDatabase.dropOutbox(environment.getProperty("txoutbox.table", "outbox"));
    }
}
