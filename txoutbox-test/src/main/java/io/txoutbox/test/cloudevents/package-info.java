/**
 * Assertions on a CloudEvent as a consumer reads it: {@link io.txoutbox.test.cloudevents.CloudEventsAssert}
 * checks that it carries an outbox event as {@code txoutbox-cloudevents} maps it. Needs {@code
 * io.cloudevents:cloudevents-core} on the test class path: the test kit declares it optional, so only the
 * projects that send CloudEvents take it.
 */
package io.txoutbox.test.cloudevents;
