package io.txoutbox.spi;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;

/**
 * A part of a batch that a publisher confirms on its own, for example the events of one route: the relay
 * marks a part as soon as its stage completes, without waiting for the other parts of the batch, so that
 * a slow broker holds back only its own events. See {@link Publisher#publishParts}.
 *
 * @param indexes the positions in the batch of the part's events, in the order of the outcomes
 * @param outcomes a stage completing with one outcome per index, in the order of {@code indexes}; failing
 *     as a whole makes every event of the part a retry
 */
public record PublishPart(List<Integer> indexes, CompletionStage<List<PublishOutcome>> outcomes) {
    /** Copies the indexes; neither may be {@code null}. */
    public PublishPart {
        indexes = List.copyOf(indexes);
        Objects.requireNonNull(outcomes, "outcomes");
    }

    /**
     * @param size the batch's size
     * @param outcomes the outcomes of the whole batch
     * @return one part holding the whole batch
     */
    public static PublishPart whole(int size, CompletionStage<List<PublishOutcome>> outcomes) {
        return new PublishPart(IntStream.range(0, size).boxed().toList(), outcomes);
    }

    /**
     * The other way round from {@link #whole}: the outcomes of a batch published in parts, for a publisher
     * whose {@link Publisher#publish} is built from its {@link Publisher#publishParts}.
     *
     * @param size the batch's size
     * @param parts parts whose indexes together cover {@code 0 .. size - 1} once each
     * @return a stage completing, once every part has, with the outcomes in batch order; failing when a part
     *     fails
     */
    public static CompletionStage<List<PublishOutcome>> joined(int size, List<PublishPart> parts) {
        PublishOutcome[] outcomes = new PublishOutcome[size];
        CompletableFuture<?>[] waits = new CompletableFuture<?>[parts.size()];
        for (int p = 0; p < parts.size(); p++) {
            PublishPart part = parts.get(p);
            waits[p] = part.outcomes().toCompletableFuture().thenAccept(list -> {
                for (int j = 0; j < list.size(); j++) {
                    outcomes[part.indexes().get(j)] = list.get(j);
                }
            });
        }
        return CompletableFuture.allOf(waits).thenApply(v -> Arrays.asList(outcomes));
    }
}
