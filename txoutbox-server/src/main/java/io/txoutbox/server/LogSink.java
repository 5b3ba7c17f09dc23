package io.txoutbox.server;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code log} transport: an in-process sink that logs each event's id, type and aggregate, never
 * its payload or header values, and reports it published. For trying a table out, and for the demo.
 */
final class LogSink implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(LogSink.class);

    private final boolean debug;

    LogSink(boolean debug) {
        this.debug = debug;
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        List<PublishOutcome> out = new ArrayList<>(batch.size());
        for (ClaimedEvent e : batch) {
            if (debug) {
                log.debug(
                        "event {} {} ({}/{}, attempt {})",
                        e.id(),
                        e.eventType(),
                        e.aggregateType(),
                        e.aggregateId(),
                        e.attempt());
            } else {
                log.info(
                        "event {} {} ({}/{}, attempt {})",
                        e.id(),
                        e.eventType(),
                        e.aggregateType(),
                        e.aggregateId(),
                        e.attempt());
            }
            out.add(PublishOutcome.PUBLISHED);
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public String toString() {
        return "LogSink[" + (debug ? "debug" : "info") + "]";
    }
}
