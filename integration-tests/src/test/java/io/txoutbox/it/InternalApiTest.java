package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.build.InternalApiCheck;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No public signature of a txoutbox module exposes a type of an internal package ({@code
 * io.txoutbox.internal.transport}, {@code io.txoutbox.internal.admin}): {@link InternalApiCheck} over the
 * compiled classes of every txoutbox module on this test class path (this module's pom lists the
 * user-facing ones).
 */
class InternalApiTest {

    /** The modules users depend on, which must be on the class path for the check to mean something. */
    private static final List<String> USER_FACING = List.of(
            "txoutbox-core",
            "txoutbox-test",
            "txoutbox-cloudevents",
            "txoutbox-webhook",
            "txoutbox-kafka",
            "txoutbox-redis",
            "txoutbox-mqtt",
            "txoutbox-rabbitmq",
            "txoutbox-nats",
            "txoutbox-sqs",
            "txoutbox-jms",
            "txoutbox-micrometer",
            "txoutbox-opentelemetry",
            "txoutbox-spring-boot-starter",
            "txoutbox-spring-modulith",
            "txoutbox-debezium");

    @Test
    void no_public_signature_of_a_txoutbox_module_exposes_an_internal_type() {
        List<Path> modules = InternalApiCheck.modulesOn(System.getProperty("java.class.path"));
        assertThat(modules.stream().map(InternalApiCheck::moduleOf))
                .as("txoutbox modules on the test class path: %s", modules)
                .containsAll(USER_FACING);
        List<String> findings = InternalApiCheck.findings(modules);
        assertThat(findings)
                .as(findings.isEmpty() ? "" : InternalApiCheck.describe(findings))
                .isEmpty();
    }
}
