package io.txoutbox.bench;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Time-ordered ids (UUID version 7 layout: 48 bits of Unix milliseconds, then random bits) for the
 * raw-SQL variants, so that they insert the same kind of primary key as txoutbox: ordered ids append
 * at the right edge of the index, random (v4) ones split pages all over it.
 */
final class Ids {
    private Ids() {}

    static UUID v7() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long msb = (System.currentTimeMillis() << 16) | 0x7000L | (r.nextLong() & 0x0FFFL);
        long lsb = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
