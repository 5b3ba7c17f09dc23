package io.txoutbox.relay;

import io.txoutbox.spi.OutboxStore;
import java.time.Duration;
import java.time.InstantSource;

/**
 * What the parts of one relay share, fixed when it is built: the loop ({@link DefaultRelay}), each
 * cycle ({@link RelayCycle}) and the batch publisher ({@link BatchPublisher}) work under one name and
 * lease owner, on one store and clock, with one lease, and report to one {@link RelayReporter}.
 *
 * @param name the relay's name, in every log line and report
 * @param owner the lease owner written into the rows it claims
 * @param store the store it claims from and marks in
 * @param clock the clock that stamps claims and marks
 * @param lease how long a claim holds a row
 * @param reporter its counters, log lines and listener
 */
record RelayScope(
        String name, String owner, OutboxStore store, InstantSource clock, Duration lease, RelayReporter reporter) {}
