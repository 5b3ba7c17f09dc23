/**
 * A real JMS broker for tests: {@link io.txoutbox.harness.jms.ArtemisBroker} starts an embedded ActiveMQ
 * Artemis broker in the test JVM, persistent, with a TCP acceptor on a free loopback port. Needs {@code
 * org.apache.artemis:artemis-jakarta-server} and {@code artemis-jakarta-client} on the test class path:
 * the harness declares them optional, so only the projects that start a broker take them.
 */
package io.txoutbox.harness.jms;
