package io.txoutbox;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter that keeps ids made in
 * the same millisecond in order within this JVM (the RFC's "fixed bit-length dedicated counter"), then
 * 62 random bits. Ids sort by creation time, which keeps the primary-key index append-mostly.
 */
final class UuidV7 {
    /** Milliseconds in the high bits, counter in the low 12. */
    private static final AtomicLong LAST = new AtomicLong();

    private UuidV7() {}

    static UUID next() {
        return at(System.currentTimeMillis());
    }

    static UUID at(long epochMillis) {
        long candidate = epochMillis << 12;
        long stamp = LAST.updateAndGet(prev -> candidate > prev ? candidate : prev + 1);
        long millis = stamp >>> 12;
        long counter = stamp & 0xFFF;
        long msb = (millis << 16) | 0x7000L | counter;
        long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
