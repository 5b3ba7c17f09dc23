package io.txoutbox.harness.kafka;

import java.io.IOException;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension: one {@link KafkaBroker} for the whole test run, started by the first class that
 * asks ({@code @ExtendWith(SharedKafka.class)}) and killed when the run ends. A start costs seconds on
 * a small machine: every class shares the broker, each with topics of its own.
 */
public final class SharedKafka implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);
    private static volatile KafkaBroker broker;

    /** Created by JUnit. */
    public SharedKafka() {}

    /**
     * Starts the broker unless this run already did.
     *
     * @param context the class's context; the broker lives in the root context's store
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        broker = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(KafkaBroker.class, k -> start(), KafkaBroker.class);
    }

    /**
     * @return the running broker
     * @throws IllegalStateException outside a class extended with {@code SharedKafka}
     */
    public static KafkaBroker broker() {
        KafkaBroker b = broker;
        if (b == null) {
            throw new IllegalStateException("no Kafka broker: annotate the class with @ExtendWith(SharedKafka.class)");
        }
        return b;
    }

    private static KafkaBroker start() {
        try {
            return KafkaBroker.start();
        } catch (IOException e) {
            throw new IllegalStateException("the Kafka broker did not start", e);
        }
    }
}
