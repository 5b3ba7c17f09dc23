/**
 * The project's own test harness, not published: the local services its tests use ({@link
 * io.txoutbox.harness.LocalPostgres}, {@link io.txoutbox.harness.TestEnv}), a broker whose confirmations
 * come late ({@link io.txoutbox.harness.SlowBroker}), real brokers started by the tests (Kafka, SQS, JMS:
 * the subpackages) and the benchmarks' closed-loop load ({@code io.txoutbox.harness.load}). What users'
 * tests may depend on is the published test kit, {@code txoutbox-test}.
 */
package io.txoutbox.harness;
