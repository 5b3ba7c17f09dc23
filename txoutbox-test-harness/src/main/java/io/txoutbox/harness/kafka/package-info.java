/**
 * A real Kafka broker for tests: {@link io.txoutbox.harness.kafka.KafkaBroker} starts a single-node KRaft
 * broker from Kafka's own jars in a child JVM, with a direct, a proxied and a SASL listener. Needs
 * {@code org.apache.kafka:kafka_2.13} and {@code kafka-clients} on the test class path: the harness
 * declares them optional, so only the projects that start a broker take them.
 */
package io.txoutbox.harness.kafka;
