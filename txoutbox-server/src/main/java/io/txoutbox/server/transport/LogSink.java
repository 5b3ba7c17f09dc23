package io.txoutbox.server.transport;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The {@code log} transport: an in-process sink that logs each event's id, type and aggregate, never
 * its payload or header values, and reports it published. For trying a table out, and for the demo.
 */
public final class LogSink implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(LogSink.class);

    private final boolean debug;

    public LogSink(boolean debug) {
        this.debug = debug;
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        List<PublishOutcome> out = new ArrayList<>(batch.size());
        for (ClaimedEvent e : batch) {
            log.atLevel(debug ? Level.DEBUG : Level.INFO)
                    .log(
                            "event {} {} ({}/{}, attempt {})",
                            e.id(),
                            escape(e.eventType()),
                            escape(e.aggregateType()),
                            escape(e.aggregateId()),
                            e.attempt());
            out.add(PublishOutcome.PUBLISHED);
        }
        return CompletableFuture.completedFuture(out);
    }

    /**
     * The relay refuses control characters in these fields, but a sink must not trust its caller to:
     * a CR or LF would start a forged log line.
     */
    static String escape(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c)
                            && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1))
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
            if (c == '\\') {
                out.append("\\\\");
            } else if (Character.isISOControl(c)
                    || c == '\u2028'
                    || c == '\u2029'
                    || Character.isSurrogate(c) && !paired) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "LogSink[" + (debug ? "debug" : "info") + "]";
    }
}
