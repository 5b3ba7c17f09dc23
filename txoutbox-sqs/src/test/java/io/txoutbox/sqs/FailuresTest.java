package io.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * How SQS's answers map to retry or dead. The server cannot be made to throttle or fail internally,
 * so these are the answers as SQS documents them, fed to the pure mapping.
 */
class FailuresTest {
    @ParameterizedTest(name = "entry {0} (sender fault {1}) is {2}")
    @CsvSource({
        "InvalidMessageContents, true, DEAD",
        "InvalidParameterValue, true, DEAD",
        "KmsDisabled, true, DEAD",
        "RequestThrottled, true, RETRY",
        "ThrottlingException, true, RETRY",
        "KmsThrottled, true, RETRY",
        "InternalError, false, RETRY",
        "AWS.SimpleQueueService.InternalError, true, RETRY",
        "ServiceUnavailable, false, RETRY",
        "SomethingNew, false, RETRY",
    })
    void a_failed_entry_is_retried_or_dead_by_its_code_and_fault(String code, boolean senderFault, Outcome expected) {
        BatchResultErrorEntry entry = BatchResultErrorEntry.builder()
                .id("0")
                .code(code)
                .senderFault(senderFault)
                .message("as SQS says")
                .build();
        assertThat(Failures.ofEntry(entry, "orders").outcome()).isEqualTo(expected);
        assertThat(Failures.ofEntry(entry, "orders").reason()).contains("queue orders (" + code + ": as SQS says)");
    }

    @ParameterizedTest(name = "request {0} (HTTP {1}) is {2}")
    @CsvSource({
        "AccessDenied, 403, DEAD",
        "KmsAccessDenied, 400, DEAD",
        "InvalidParameterValue, 400, DEAD",
        "ExpiredToken, 400, RETRY",
        "InvalidClientTokenId, 403, RETRY",
        "SignatureDoesNotMatch, 403, RETRY",
        "RequestThrottled, 400, RETRY",
        "Throttling, 400, RETRY",
        "InternalFailure, 500, RETRY",
        "SlowDown, 503, RETRY",
        "Whatever, 429, RETRY",
    })
    void a_failed_request_is_retried_or_dead_by_its_code_and_status(String code, int status, Outcome expected) {
        SqsException error = (SqsException) SqsException.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("as SQS says")
                        .build())
                .build();
        assertThat(Failures.ofRequest(error, "orders").outcome()).isEqualTo(expected);
    }

    @Test
    void a_network_failure_is_retried() {
        assertThat(Failures.ofRequest(SdkClientException.create("connection refused"), "orders")
                        .outcome())
                .isEqualTo(Outcome.RETRY);
    }
}
