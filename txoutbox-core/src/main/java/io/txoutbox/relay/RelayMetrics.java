package io.txoutbox.relay;

/**
 * What a relay has done since it was built. Counters only grow.
 *
 * @param batches batches claimed (empty claims excluded)
 * @param published events published and marked
 * @param retried events scheduled for another attempt
 * @param dead events marked dead (after their last attempt, or at once for a permanent failure)
 * @param fenced events whose mark was refused because another relay took over their lease
 * @param errors failures the relay survived (claim, publish, mark, listen, purge)
 */
public record RelayMetrics(long batches, long published, long retried, long dead, long fenced, long errors) {}
