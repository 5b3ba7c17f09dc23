package io.txoutbox.kafka;

import io.txoutbox.test.kafka.KafkaBroker;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one {@link KafkaBroker} for the whole test run (the first class that asks starts it) and
 * kills it when the run ends. Startup costs seconds on a small machine: every class shares it, each
 * with topics of its own.
 */
final class RealKafka implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealKafka.class);
    private static volatile KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(KafkaBroker.class, k -> start(), KafkaBroker.class);
    }

    /** @return the running broker; only inside a class extended with {@code RealKafka} */
    static KafkaBroker broker() {
        KafkaBroker b = broker;
        if (b == null) {
            throw new IllegalStateException("no Kafka broker: annotate the class with @ExtendWith(RealKafka.class)");
        }
        return b;
    }

    private static KafkaBroker start() {
        try {
            return KafkaBroker.start();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the Kafka broker did not start", e);
        }
    }
}
