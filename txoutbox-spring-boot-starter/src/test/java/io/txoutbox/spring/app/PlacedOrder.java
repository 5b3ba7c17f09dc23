package io.txoutbox.spring.app;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A business row written by JPA in the same transaction as the outbox event. */
@Entity
@Table(name = "txoutbox_sbt_placed_order")
public class PlacedOrder {
    @Id
    private String id;

    private int totalCents;

    protected PlacedOrder() {}

    PlacedOrder(String id, int totalCents) {
        this.id = id;
        this.totalCents = totalCents;
    }

    public String getId() {
        return id;
    }

    public int getTotalCents() {
        return totalCents;
    }
}
