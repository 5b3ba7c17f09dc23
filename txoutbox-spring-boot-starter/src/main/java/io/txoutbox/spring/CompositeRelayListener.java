package io.txoutbox.spring;

import io.txoutbox.spi.RelayListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands every report to each listener bean in turn; one that throws does not keep the others from it. */
final class CompositeRelayListener implements RelayListener {
    private static final Logger log = LoggerFactory.getLogger(CompositeRelayListener.class);

    private final List<RelayListener> listeners;

    CompositeRelayListener(List<RelayListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static RelayListener of(List<RelayListener> listeners) {
        if (listeners.isEmpty()) {
            return RelayListener.NOOP;
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeRelayListener(listeners);
    }

    @Override
    public void onBatch(BatchReport report) {
        for (RelayListener listener : listeners) {
            try {
                listener.onBatch(report);
            } catch (RuntimeException e) {
                log.warn("txoutbox: relay listener {} threw from onBatch", listener, e);
            }
        }
    }

    @Override
    public void onError(String relay, String phase, Throwable error) {
        for (RelayListener listener : listeners) {
            try {
                listener.onError(relay, phase, error);
            } catch (RuntimeException e) {
                log.warn("txoutbox: relay listener {} threw from onError", listener, e);
            }
        }
    }
}
