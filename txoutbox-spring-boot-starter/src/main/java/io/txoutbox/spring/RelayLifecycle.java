package io.txoutbox.spring;

import io.txoutbox.relay.Relay;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * The embedded relay as a Spring lifecycle bean: it starts with the application context and stops
 * gracefully with it (the batch in flight is published and marked, leases are returned). Its phase puts
 * its stop after the web server's graceful shutdown, so events appended by the last requests are still
 * published by this instance when it can.
 *
 * <p>A relay starts once, so a context that is stopped and started again builds a fresh relay from the
 * same settings. {@link #relay()} gives the current one, for {@code pause()} and {@code resume()}.
 */
public final class RelayLifecycle implements SmartLifecycle {
    /** Stops after the web server (which stops at {@code DEFAULT_PHASE - 2048}) drained its requests. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Supplier<Relay> factory;
    private final Consumer<Runnable> whenReady;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Relay relay;
    private volatile boolean running;
    private boolean used;

    /**
     * Builds the first relay at once, so invalid settings fail the application's start.
     *
     * @param factory builds a relay, not started
     */
    public RelayLifecycle(Supplier<Relay> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.whenReady = Runnable::run;
        this.relay = factory.get();
    }

    /**
     * A relay whose outbox waits for its database: it is built and started once {@code whenReady} runs
     * the action it is given (the outbox reached its database), if the lifecycle is still started then.
     */
    RelayLifecycle(Supplier<Relay> factory, Consumer<Runnable> whenReady) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.whenReady = whenReady;
    }

    /**
     * Starts the relay (a fresh one after an earlier stop); when its outbox waits for its database, as
     * soon as the database comes.
     */
    @Override
    public void start() {
        lock.lock();
        try {
            if (running) {
                return;
            }
            running = true;
        } finally {
            lock.unlock();
        }
        whenReady.accept(this::startNow);
    }

    private void startNow() {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            if (used || relay == null) {
                relay = factory.get();
            }
            used = true;
            relay.start();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the relay gracefully: the batch in flight completes, leases are returned; bounded waits. */
    @Override
    public void stop() {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            if (relay != null) {
                relay.stop();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * @return the current relay: running between {@link #start()} and {@link #stop()}; {@code null} while
     *     its outbox still waits for its database
     */
    public Relay relay() {
        return relay;
    }

    @Override
    public String toString() {
        Relay r = relay;
        return "RelayLifecycle[" + (r == null ? "waiting for the database" : r.name()) + ", running=" + running + "]";
    }
}
