package io.txoutbox.spi;

/** What became of one event after a publish attempt. */
public enum Outcome {
    /** The broker confirmed it: the event is done. */
    PUBLISHED,
    /** It failed in a way that may pass later: try again after a backoff (or a given time). */
    RETRY,
    /** It can never succeed as it is (too large, unroutable, refused): stop and keep it for an operator. */
    DEAD
}
