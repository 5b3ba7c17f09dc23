package io.txoutbox.internal.transport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How the asynchronous transports send a batch: each event's send is a future its client completes, the
 * sends start once the connection is there, and the batch is settled when every send is done or the
 * timeout passed, whichever comes first.
 */
public final class Sends {
    private Sends() {}

    /**
     * Starts the sends once connected; when connecting fails, every send fails with that failure
     * (unwrapped, {@link Errors#unwrap}).
     *
     * @param connecting the connection, to come
     * @param sends one future per event to send, completed by {@code send} or here
     * @param send starts the sends on the connection
     * @param <C> the connection
     */
    public static <C> void onceConnected(
            CompletionStage<C> connecting, List<? extends CompletableFuture<?>> sends, Consumer<? super C> send) {
        connecting.whenComplete((connection, error) -> {
            if (error != null) {
                Throwable cause = Errors.unwrap(error);
                for (CompletableFuture<?> s : sends) {
                    s.completeExceptionally(cause);
                }
            } else {
                send.accept(connection);
            }
        });
    }

    /**
     * @param sends one future per event sent
     * @param timeout how long the batch waits for them
     * @return a stage that completes normally, never exceptionally, once every send is done (whether it
     *     succeeded or failed) or {@code timeout} passed; the caller then reads each send
     */
    public static CompletableFuture<Void> settled(List<? extends CompletableFuture<?>> sends, Duration timeout) {
        return CompletableFuture.allOf(sends.toArray(CompletableFuture<?>[]::new))
                .exceptionally(e -> null)
                .completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
