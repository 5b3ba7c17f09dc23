package io.txoutbox.server;

import io.txoutbox.test.kafka.KafkaBroker;
import java.io.IOException;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka broker (the test kit's) for every server test class that needs it, started by the
 * first and killed when the run ends: a start costs seconds on a small machine.
 */
final class SharedKafka implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);
    private static volatile KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(KafkaBroker.class, k -> start(), KafkaBroker.class);
    }

    /** @return the running broker; only inside a class extended with {@code SharedKafka} */
    static KafkaBroker broker() {
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
