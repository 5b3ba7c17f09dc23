package io.txoutbox.examples.spring;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order, saved with JPA in the same transaction as its events. */
@Entity
@Table(name = "example_spring_orders")
public class CustomerOrder {
    @Id
    private String id;

    private int totalCents;

    protected CustomerOrder() {}

    CustomerOrder(String id, int totalCents) {
        this.id = id;
        this.totalCents = totalCents;
    }

    /** @return the order id */
    public String getId() {
        return id;
    }

    /** @return the total in cents */
    public int getTotalCents() {
        return totalCents;
    }
}
