package io.txoutbox.spring.modulith.shop.order;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.stereotype.Component;

/**
 * An after-commit module listener on {@link OrderPlaced}, the kind Modulith's event publication registry
 * records and re-submits. An order marked with {@link #failFor} fails until {@link #recover} is called, so
 * that its publication stays incomplete.
 */
@Component
public class OrderAudit {
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final List<String> audited = new CopyOnWriteArrayList<>();

    @ApplicationModuleListener
    void on(OrderPlaced event) {
        if (failing.contains(event.orderId())) {
            failures.add(event.orderId());
            throw new IllegalStateException("audit is down for " + event.orderId());
        }
        audited.add(event.orderId());
    }

    /** Makes the audit of this order fail. */
    public void failFor(String orderId) {
        failing.add(orderId);
    }

    /** Lets the audit of this order succeed again. */
    public void recover(String orderId) {
        failing.remove(orderId);
    }

    /** @return the order ids whose audit threw, one entry per failed run */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** @return the order ids audited, one entry per successful run */
    public List<String> audited() {
        return List.copyOf(audited);
    }
}
