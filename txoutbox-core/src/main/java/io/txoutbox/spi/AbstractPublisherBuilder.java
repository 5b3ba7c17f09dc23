package io.txoutbox.spi;

/**
 * What every broker transport's builder takes the same way: the router that gives each event its
 * destination. A transport's {@code Builder} extends it with its own type, so that {@link
 * #router(Router)} returns that builder and a chain goes on with the transport's own settings. The
 * transport checks the router at its {@code build()}, with its own message and exception.
 *
 * @param <B> the transport's builder
 */
public abstract class AbstractPublisherBuilder<B extends AbstractPublisherBuilder<B>> {
    private Router router = Router.BY_AGGREGATE_TYPE;

    /** For the transports' builders. */
    protected AbstractPublisherBuilder() {}

    /**
     * @param router gives each event its destination in the broker: the routing key, subject, topic,
     *     stream key, queue or destination the transport names (default {@link
     *     Router#BY_AGGREGATE_TYPE}); an event's own destination overrides it
     * @return this builder
     */
    public B router(Router router) {
        this.router = router;
        return self();
    }

    /** @return the router set so far, {@code null} if set so: {@code build()} refuses that */
    protected final Router router() {
        return router;
    }

    /** @return this builder, as the transport's type */
    @SuppressWarnings("unchecked")
    protected final B self() {
        return (B) this;
    }
}
