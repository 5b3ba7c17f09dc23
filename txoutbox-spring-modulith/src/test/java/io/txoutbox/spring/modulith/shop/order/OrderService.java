package io.txoutbox.spring.modulith.shop.order;

import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places and cancels orders: the order row and the events it publishes share one transaction. */
@Service
public class OrderService {
    /** When every order is placed, for a payload the test can compare. */
    public static final Instant PLACED_AT = Instant.parse("2030-01-01T09:30:00Z");

    private final JdbcTemplate jdbc;
    private final ApplicationEventPublisher events;
    private final String table;

    OrderService(JdbcTemplate jdbc, ApplicationEventPublisher events, @Value("${shop.schema}") String schema) {
        this.jdbc = jdbc;
        this.events = events;
        this.table = schema + ".orders";
    }

    /** Saves the order and publishes {@link OrderPlaced} (externalized) and {@link OrderNoted} (internal). */
    @Transactional
    public void place(String orderId, int totalCents, String region) {
        jdbc.update("INSERT INTO " + table + " (id, total_cents) VALUES (?, ?)", orderId, totalCents);
        events.publishEvent(new OrderPlaced(orderId, totalCents, region, PLACED_AT));
        events.publishEvent(new OrderNoted(orderId));
    }

    /**
     * As {@link #place}, then fails: the transaction rolls back.
     *
     * @throws IllegalStateException always, after the order was saved and its events published
     */
    @Transactional
    public void placeAndFail(String orderId, int totalCents, String region) {
        place(orderId, totalCents, region);
        throw new IllegalStateException("payment declined for " + orderId);
    }

    /** Saves the order and publishes {@link OrderNoteAdded} with the given note. */
    @Transactional
    public void placeWithNote(String orderId, Object note) {
        jdbc.update("INSERT INTO " + table + " (id, total_cents) VALUES (?, ?)", orderId, 0);
        events.publishEvent(new OrderNoteAdded(orderId, note));
    }

    /** Deletes the order and publishes {@link OrderCancelled}. */
    @Transactional
    public void cancel(String orderId) {
        jdbc.update("DELETE FROM " + table + " WHERE id = ?", orderId);
        events.publishEvent(new OrderCancelled(orderId));
    }

    /** @return whether the order row exists */
    public boolean exists(String orderId) {
        Integer n = jdbc.queryForObject("SELECT count(*) FROM " + table + " WHERE id = ?", Integer.class, orderId);
        return n != null && n > 0;
    }
}
