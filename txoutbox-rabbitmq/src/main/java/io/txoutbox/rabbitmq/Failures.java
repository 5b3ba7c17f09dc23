package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ShutdownSignalException;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.spi.PublishOutcome;

/**
 * Decides what a failed publish means for the events it carried. Only the two channel errors that
 * name the publisher's fixed exchange are permanent; everything else may pass and is retried.
 */
final class Failures {
    private Failures() {}

    static PublishOutcome of(Throwable error, String exchange) {
        if (error instanceof ShutdownSignalException shutdown) {
            return of(shutdown, exchange);
        }
        return PublishOutcome.retry("publish to RabbitMQ failed: " + Errors.describe(error));
    }

    static PublishOutcome of(ShutdownSignalException shutdown, String exchange) {
        Method reason = shutdown.getReason();
        if (!shutdown.isHardError() && reason instanceof AMQP.Channel.Close close) {
            String detail = close.getReplyCode() + " " + close.getReplyText();
            if (close.getReplyCode() == AMQP.NOT_FOUND) {
                // Publishing can only miss the exchange: it is fixed for this publisher, so every event fails alike.
                return PublishOutcome.dead("exchange " + Messages.describeExchange(exchange) + " does not exist ("
                        + detail + "): declare it, then revive the event");
            }
            if (close.getReplyCode() == AMQP.ACCESS_REFUSED) {
                return PublishOutcome.dead("access refused to exchange " + Messages.describeExchange(exchange) + " ("
                        + detail + "): grant write permission, then revive the event");
            }
            return PublishOutcome.retry("RabbitMQ closed the channel: " + detail);
        }
        if (reason instanceof AMQP.Connection.Close close) {
            return PublishOutcome.retry(
                    "RabbitMQ closed the connection: " + close.getReplyCode() + " " + close.getReplyText());
        }
        return PublishOutcome.retry("connection to RabbitMQ lost: " + shutdown.getMessage());
    }
}
