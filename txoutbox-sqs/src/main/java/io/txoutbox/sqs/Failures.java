package io.txoutbox.sqs;

import io.txoutbox.internal.transport.Errors;
import io.txoutbox.spi.PublishOutcome;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Decides what a failed send means for its events: retry what may pass (throttling, SQS's own
 * errors, who-you-are problems that a credential refresh fixes, the network), dead what SQS refuses
 * for the message itself or for what the caller may do.
 */
final class Failures {
    /** Error codes that pass with time, whatever SQS says about whose fault they are. */
    private static final Set<String> TRANSIENT_CODES = Set.of(
            "internalerror",
            "internalfailure",
            "serviceunavailable",
            "requestthrottled",
            "throttlingexception",
            "throttling",
            "kmsthrottled",
            "requesttimeout",
            "requesttimeoutexception");

    /** Authentication (not authorization) failures: expired or rotated credentials, a skewed clock. */
    private static final Set<String> AUTHENTICATION_CODES = Set.of(
            "expiredtoken",
            "expiredtokenexception",
            "requestexpired",
            "requesttimetooskewed",
            "invalidclienttokenid",
            "signaturedoesnotmatch",
            "incompletesignature",
            "missingauthenticationtoken",
            "unrecognizedclientexception",
            "invalidsecurity");

    private Failures() {}

    /**
     * @param error one failed entry of a {@code SendMessageBatch} response
     * @param queue the queue it was sent to
     * @return retry for throttling, SQS's internal errors and anything SQS calls not the sender's fault;
     *     dead for the rest (an invalid or oversize message, a KMS key the queue cannot use)
     */
    static PublishOutcome ofEntry(BatchResultErrorEntry error, String queue) {
        String code = error.code() == null ? "unknown" : error.code();
        String detail = code + (error.message() == null ? "" : ": " + error.message());
        if (isTransient(code) || Boolean.FALSE.equals(error.senderFault())) {
            return PublishOutcome.retry("SQS could not take the message on queue " + queue + " (" + detail + ")");
        }
        return PublishOutcome.dead("SQS refused the message on queue " + queue + " (" + detail + ")");
    }

    /**
     * @param failure why a whole request failed
     * @param queue the queue it was for
     * @return dead for a queue that does not exist and for other refusals of the request (4xx); retry
     *     for throttling, 5xx, authentication, timeouts and the network
     */
    static PublishOutcome ofRequest(Throwable failure, String queue) {
        Throwable e = Errors.unwrap(failure);
        if (e instanceof QueueDoesNotExistException) {
            return PublishOutcome.dead("SQS queue " + queue + " does not exist: create it, then revive the event");
        }
        if (e instanceof AwsServiceException service) {
            String code = service.awsErrorDetails() == null
                    ? null
                    : service.awsErrorDetails().errorCode();
            String message = service.awsErrorDetails() == null
                    ? service.getMessage()
                    : service.awsErrorDetails().errorMessage();
            int status = service.statusCode();
            String detail =
                    (code == null ? "" : code + ", ") + "HTTP " + status + (message == null ? "" : ": " + message);
            if (service.isThrottlingException()
                    || status >= 500
                    || status == 408
                    || status == 429
                    || isTransient(code)
                    || isAuthentication(code)) {
                return PublishOutcome.retry("SQS failed the request for queue " + queue + " (" + detail + ")");
            }
            return PublishOutcome.dead("SQS refused the request for queue " + queue + " (" + detail + ")");
        }
        if (e instanceof SdkClientException) {
            return PublishOutcome.retry("cannot reach SQS for queue " + queue + ": " + describe(e));
        }
        return PublishOutcome.retry("publish to SQS queue " + queue + " failed: " + describe(e));
    }

    static boolean isQueueMissing(Throwable failure) {
        return Errors.unwrap(failure) instanceof QueueDoesNotExistException;
    }

    /**
     * @return the error, out of its future's wrappers, and its root cause in one line, each cut to a
     *     readable length: the SDK's own messages repeat themselves down the cause chain
     */
    static String describe(Throwable error) {
        return Errors.withRootCause(Errors.unwrap(error));
    }

    private static boolean isTransient(String code) {
        return code != null && TRANSIENT_CODES.contains(simple(code));
    }

    private static boolean isAuthentication(String code) {
        return code != null && AUTHENTICATION_CODES.contains(simple(code));
    }

    /** SQS codes come plain or prefixed ({@code AWS.SimpleQueueService.X}), in any case. */
    private static String simple(String code) {
        int dot = code.lastIndexOf('.');
        return (dot >= 0 ? code.substring(dot + 1) : code).toLowerCase(Locale.ROOT);
    }
}
