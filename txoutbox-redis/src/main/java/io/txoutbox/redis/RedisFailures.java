package io.txoutbox.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.protocol.AsyncCommand;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.spi.PublishOutcome;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * Turns the end of one {@code XADD} into an outcome. Redis errors are classified by their error code (the
 * reply's first word), never by the rest of the text.
 */
final class RedisFailures {
    private RedisFailures() {}

    /**
     * @param command a finished command
     * @param key its stream key
     * @param target where it was sent, without credentials
     * @return published for an entry id; dead for {@code WRONGTYPE} and {@code ERR}; retry otherwise
     */
    static PublishOutcome outcome(AsyncCommand<byte[], byte[], String> command, String key, String target) {
        String id;
        try {
            id = command.join();
        } catch (CancellationException e) {
            return PublishOutcome.retry("XADD " + key + " was cancelled before " + target + " answered");
        } catch (CompletionException e) {
            return failure(Errors.unwrap(e), key, target);
        }
        if (id == null || id.isEmpty()) {
            return PublishOutcome.retry("XADD " + key + " returned no entry id from " + target);
        }
        return PublishOutcome.PUBLISHED;
    }

    static PublishOutcome failure(Throwable error, String key, String target) {
        if (error instanceof RedisCommandExecutionException) {
            String message = String.valueOf(error.getMessage());
            int space = message.indexOf(' ');
            String code = space < 0 ? message : message.substring(0, space);
            switch (code) {
                case "WRONGTYPE":
                    return PublishOutcome.dead(
                            "stream key '" + key + "' holds another type on " + target + ": " + message);
                case "ERR":
                    // The command itself was refused (syntax, argument, unknown command): the same command
                    // fails the same way every time.
                    return PublishOutcome.dead("Redis refused XADD " + key + " on " + target + ": " + message);
                default:
                    // LOADING, BUSY, OOM, READONLY, MASTERDOWN, TRYAGAIN, NOPERM...: may pass later.
                    return PublishOutcome.retry("Redis error on XADD " + key + " at " + target + ": " + message);
            }
        }
        return PublishOutcome.retry("XADD " + key + " to " + target + " failed: " + error);
    }
}
