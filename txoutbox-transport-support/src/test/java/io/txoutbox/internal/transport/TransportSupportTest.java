package io.txoutbox.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class TransportSupportTest {

    @Test
    void a_timeout_must_be_positive_and_at_most_ten_minutes() {
        Settings.requireTimeout(Duration.ofSeconds(5), "X.timeout");
        Settings.requireTimeout(Duration.ofMinutes(10), "X.timeout");
        refused(() -> Settings.requireTimeout(Duration.ZERO, "X.timeout"), "X.timeout must be positive, not PT0S");
        refused(() -> Settings.requireTimeout(null, "X.timeout"), "X.timeout must be positive, not null");
        refused(() -> Settings.requireNotBlank(" ", "X.name"), "X.name must not be blank");
        assertThat(validationError(() -> Settings.checkTimeout(Duration.ofMinutes(11), "X.timeout")))
                .hasMessage("X.timeout is PT11M; at most 10 minutes")
                .extracting(OutboxValidationException::field, OutboxValidationException::limit)
                .containsExactly("X.timeout", "10 minutes");
        assertThat(validationError(() -> Settings.checkTimeout(Duration.ofSeconds(-1), "X.timeout"))
                        .limit())
                .isEqualTo("> 0");
    }

    private static void refused(ThrowingCallable check, String message) {
        assertThatThrownBy(check)
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    private static OutboxValidationException validationError(ThrowingCallable check) {
        return catchThrowableOfType(OutboxValidationException.class, check);
    }

    @Test
    void text_types_and_strict_utf8() {
        Stream<String> types = Stream.of(
                "application/json; charset=utf-8",
                "application/cloudevents+json",
                "TEXT/plain",
                "application/vnd.x+xml",
                "application/octet-stream",
                "image/png");
        assertThat(types.filter(ContentTypes::isText))
                .containsExactly(
                        "application/json; charset=utf-8",
                        "application/cloudevents+json",
                        "TEXT/plain",
                        "application/vnd.x+xml");
        assertThat(ContentTypes.isText(null)).isFalse();
        assertThat(ContentTypes.utf8OrNull("é{}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("é{}");
        assertThat(ContentTypes.utf8OrNull(new byte[] {(byte) 0xC3})).isNull();
    }

    @Test
    void batches_run_on_named_daemon_threads_until_closed() throws Exception {
        PublisherThreads threads = new PublisherThreads("unit", "UnitPublisher[x]");
        Thread ran = threads.submit(Thread::currentThread).toCompletableFuture().get();
        assertThat(ran.getName()).matches("txoutbox-unit-\\d+-1");
        assertThat(ran.isDaemon()).isTrue();

        assertThat(threads.close(Duration.ofSeconds(5))).isTrue();
        assertThat(threads.close(Duration.ofSeconds(5))).isFalse();
        assertThat(threads.isClosed()).isTrue();
        CompletableFuture<String> refused = threads.submit(() -> "never").toCompletableFuture();
        assertThatThrownBy(refused::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("UnitPublisher[x] is closed");
        assertThatThrownBy(() -> threads.start(() -> "never"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("UnitPublisher[x] is closed");
        assertThat(threads.executeUnlessClosed(() -> {})).isFalse();
    }

    @Test
    void marking_closed_under_the_connection_lock_counts_once_and_releases_the_lock() {
        PublisherThreads threads = new PublisherThreads("unit", "UnitPublisher[y]");
        ReentrantLock lock = new ReentrantLock();
        assertThat(threads.markClosed(lock)).isTrue();
        assertThat(threads.markClosed(lock)).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThat(threads.isClosed()).isTrue();
        threads.shutDown(Duration.ofSeconds(5));
    }

    @Test
    void a_failure_is_unwrapped_from_its_future_and_told_with_its_root_cause() {
        IOException root = new IOException("refused");
        IllegalStateException failure = new IllegalStateException("send failed", root);
        assertThat(Errors.unwrap(new CompletionException(new ExecutionException(failure))))
                .isSameAs(failure);
        assertThat(Errors.unwrap(root)).isSameAs(root);
        assertThat(Errors.withRootCause(failure))
                .isEqualTo("java.lang.IllegalStateException: send failed; root cause java.io.IOException: refused");
        assertThat(Errors.withRootCause(root)).isEqualTo("java.io.IOException: refused");
        assertThat(Errors.withRootCause(new IllegalStateException("x".repeat(300))))
                .hasSize(240 + 3)
                .endsWith("x...");
    }

    @Test
    void events_left_without_an_outcome_get_the_missing_one() {
        AtomicReferenceArray<PublishOutcome> slots = new AtomicReferenceArray<>(3);
        slots.set(1, PublishOutcome.PUBLISHED);
        PublishOutcome late = PublishOutcome.retry("no answer in time");
        assertThat(Outcomes.orElse(slots, late)).containsExactly(late, PublishOutcome.PUBLISHED, late);
    }

    @Test
    void an_event_that_cannot_be_routed_or_built_is_dead_and_the_others_are_ready() {
        List<ClaimedEvent> batch = List.of(
                event("ok", null),
                event("boom", null),
                event("bad", null),
                event("unbuildable", null),
                event("x", "own"));
        Router router = e -> {
            if (e.aggregateType().equals("boom")) {
                throw new IllegalStateException("no route");
            }
            return "to-" + e.aggregateType();
        };
        PreparedBatch<String> prepared = PreparedBatch.prepare(
                batch,
                router,
                destination -> destination.equals("to-bad") ? "destination 'to-bad' is refused" : null,
                e -> {
                    if (e.aggregateType().equals("unbuildable")) {
                        throw new IllegalArgumentException("header too long");
                    }
                    return "message of " + e.aggregateType();
                },
                "the unit message");

        assertThat(prepared.ready()).containsExactly(0, 4);
        assertThat(prepared.destination(0)).isEqualTo("to-ok");
        assertThat(prepared.message(0)).isEqualTo("message of ok");
        assertThat(prepared.destination(4)).isEqualTo("own");
        assertThat(prepared.event(4)).isSameAs(batch.get(4));
        assertThat(prepared.outcomes())
                .containsExactly(
                        null,
                        PublishOutcome.dead("the router failed: java.lang.IllegalStateException: no route"),
                        PublishOutcome.dead("destination 'to-bad' is refused"),
                        PublishOutcome.dead("the unit message could not be built: header too long"),
                        null);

        prepared.set(0, PublishOutcome.PUBLISHED);
        prepared.fillMissing(PublishOutcome.retry("no confirm"));
        assertThat(prepared.outcomes().get(0)).isEqualTo(PublishOutcome.PUBLISHED);
        assertThat(prepared.outcomes().get(2)).isEqualTo(PublishOutcome.dead("destination 'to-bad' is refused"));
        assertThat(prepared.outcomes().get(4)).isEqualTo(PublishOutcome.retry("no confirm"));
    }

    @Test
    void a_route_naming_the_event_says_which_event_the_router_failed_for() {
        ClaimedEvent boom = event("boom", null);
        Router failing = e -> {
            throw new IllegalStateException("no route");
        };
        assertThat(Route.naming(boom, failing, d -> null))
                .isEqualTo(new Route(
                        null,
                        PublishOutcome.dead("the router failed for event " + boom.id()
                                + ": java.lang.IllegalStateException: no route")));
        assertThat(Route.naming(boom, e -> "", d -> d.isEmpty() ? "no destination" : null))
                .isEqualTo(new Route(null, PublishOutcome.dead("no destination")));
        assertThat(Route.naming(event("x", "own"), e -> "routed", d -> null)).isEqualTo(new Route("own", null));
    }

    private static ClaimedEvent event(String aggregateType, String destination) {
        return new ClaimedEvent(
                UUID.randomUUID(),
                aggregateType,
                "a-1",
                "unit.tested",
                1,
                new byte[] {'{', '}'},
                "application/json",
                Map.of(),
                null,
                destination,
                Instant.now(),
                1,
                null);
    }

    @Test
    void a_duration_that_is_not_positive_is_refused_naming_the_setting() {
        Settings.checkPositive(Duration.ofMillis(1), "X.wait");
        assertThat(validationError(() -> Settings.checkPositive(Duration.ZERO, "X.wait")))
                .hasMessage("X.wait is PT0S; it must be positive")
                .extracting(OutboxValidationException::field, OutboxValidationException::limit)
                .containsExactly("X.wait", "> 0");
        assertThat(validationError(() -> Settings.checkPositive(null, "X.wait")))
                .hasMessage("X.wait is null; it must be positive");
    }

    @Test
    void sends_start_once_connected_and_a_failed_connect_fails_every_send() {
        CompletableFuture<String> connecting = new CompletableFuture<>();
        List<CompletableFuture<Void>> sends = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        List<String> sentOn = new ArrayList<>();
        Sends.onceConnected(connecting, sends, sentOn::add);
        connecting.complete("connection-1");
        assertThat(sentOn).containsExactly("connection-1");

        CompletableFuture<String> refused = new CompletableFuture<>();
        IOException down = new IOException("connection refused");
        Sends.onceConnected(refused, sends, c -> sentOn.add("never"));
        refused.completeExceptionally(new CompletionException(down));
        assertThat(sentOn).containsExactly("connection-1");
        assertThat(sends).allSatisfy(s -> assertThatThrownBy(s::join).hasCause(down));
    }

    @Test
    void a_batch_is_settled_when_every_send_is_done_or_the_timeout_passed() throws Exception {
        CompletableFuture<Void> ok = new CompletableFuture<>();
        CompletableFuture<Void> failed = new CompletableFuture<>();
        CompletableFuture<Void> settled = Sends.settled(List.of(ok, failed), Duration.ofMinutes(1));
        ok.complete(null);
        assertThat(settled).isNotDone();
        failed.completeExceptionally(new IOException("nack"));
        assertThat(settled).isCompletedWithValue(null);

        CompletableFuture<Void> silent = new CompletableFuture<>();
        assertThat(Sends.settled(List.of(silent), Duration.ofMillis(50)).get(10, TimeUnit.SECONDS))
                .isNull();
        assertThat(silent).isNotDone();
    }

    @Test
    void an_optional_library_is_there_when_its_class_loads() {
        assertThat(ClassPath.has("io.txoutbox.spi.Publisher", TransportSupportTest.class))
                .isTrue();
        assertThat(ClassPath.has("io.txoutbox.NotThere", TransportSupportTest.class))
                .isFalse();
    }
}
