package io.txoutbox.spring;

import io.txoutbox.EventScope;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxSettings;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.handler.EventHandlers;
import io.txoutbox.internal.admin.DatabaseFailure;
import io.txoutbox.opentelemetry.OpenTelemetryScope;
import io.txoutbox.relay.Relay;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Configures txoutbox from the application's {@link DataSource}: a {@link SpringOutbox} whose appends join
 * the Spring-managed transaction, and the embedded relay as a {@link RelayLifecycle} that publishes
 * through the application's {@link Publisher} bean, or else to its {@link OutboxHandler} beans. Backs off
 * when the application defines its own {@link Outbox}. A transport is chosen by defining its publisher as
 * a bean; {@link RelayListener} beans hear every batch, {@link OutboxCustomizer} and {@link
 * RelayCustomizer} beans adjust what the properties do not cover.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"
        })
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(TxOutboxProperties.class)
public class TxOutboxAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(TxOutboxAutoConfiguration.class);

    /** Created by Spring. */
    public TxOutboxAutoConfiguration() {}

    /**
     * @param dataSource the application's data source
     * @param properties the starter's own {@code txoutbox.*} properties
     * @param environment the outbox's {@code txoutbox.*} properties, bound through the library's descriptors
     *     ({@link LibraryProperties})
     * @param scope the unique {@code Supplier<EventScope>} bean, if any (trace context by default)
     * @param customizers adjust the builder after the properties
     * @return the outbox
     * @throws OutboxValidationException naming the property that is invalid
     */
    @Bean
    @ConditionalOnMissingBean(Outbox.class)
    public SpringOutbox txoutbox(
            DataSource dataSource,
            TxOutboxProperties properties,
            Environment environment,
            ObjectProvider<Supplier<EventScope>> scope,
            ObjectProvider<OutboxCustomizer> customizers) {
        OutboxSettings settings = LibraryProperties.outbox(environment);
        Outbox.Builder builder = Outbox.builder(dataSource).settings(settings);
        Supplier<EventScope> s = scope.getIfUnique();
        if (s != null) {
            builder.scope(s);
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        try {
            return new SpringOutbox(builder.build(), dataSource, properties.allowAppendWithoutTransaction());
        } catch (RuntimeException e) {
            if (!properties.startup().retry() || !DatabaseFailure.isUnavailability(e)) {
                throw e;
            }
            String reason = DatabaseFailure.reason(e);
            log.warn(
                    "txoutbox: the database of table {} cannot be reached; the application starts and waits for"
                            + " it (health DOWN, appends fail meanwhile; txoutbox.startup.retry=false fails"
                            + " instead): {}",
                    settings.table().qualifiedName(),
                    reason);
            return new SpringOutbox(
                    builder::build,
                    settings.table().qualifiedName(),
                    reason,
                    dataSource,
                    properties.allowAppendWithoutTransaction(),
                    properties.startup().maxBackoff());
        }
    }

    /**
     * @param outbox the outbox to relay
     * @param environment the {@code txoutbox.relay.*} properties, bound through the library's descriptors
     *     ({@link LibraryProperties})
     * @param beans to name the publisher beans in an error
     * @param publishers the application's publisher bean
     * @param handlers the handler beans, used when there is no publisher bean
     * @param listeners hear every batch (metrics, alerts)
     * @param customizers adjust the builder after the properties
     * @return the relay, built (so invalid settings fail the start) and started with the context
     */
    @Bean
    @ConditionalOnMissingBean(RelayLifecycle.class)
    @ConditionalOnProperty(prefix = "txoutbox.relay", name = "enabled", havingValue = "true", matchIfMissing = true)
    @Conditional(PublisherOrHandlers.class)
    public RelayLifecycle txoutboxRelay(
            Outbox outbox,
            Environment environment,
            ListableBeanFactory beans,
            ObjectProvider<Publisher> publishers,
            ObjectProvider<OutboxHandler> handlers,
            ObjectProvider<RelayListener> listeners,
            ObjectProvider<RelayCustomizer> customizers) {
        Publisher publisher = publisher(beans, publishers, handlers);
        RelayListener listener =
                CompositeRelayListener.of(listeners.orderedStream().toList());
        List<RelayCustomizer> custom = customizers.orderedStream().toList();
        RelaySettings settings = LibraryProperties.relay(environment);
        Supplier<Relay> factory = () -> {
            Relay.Builder builder = outbox.relay(publisher).settings(settings).listener(listener);
            custom.forEach(c -> c.customize(builder));
            // What the properties set was checked under their names; a customizer's setting is named in Java.
            return builder.build();
        };
        if (outbox instanceof SpringOutbox s && !s.isReady()) {
            return new RelayLifecycle(factory, s::whenReady);
        }
        return new RelayLifecycle(factory);
    }

    private static Publisher publisher(
            ListableBeanFactory beans, ObjectProvider<Publisher> publishers, ObjectProvider<OutboxHandler> handlers) {
        String[] names = beans.getBeanNamesForType(Publisher.class);
        if (names.length > 0) {
            Publisher publisher = publishers.getIfUnique();
            if (publisher == null) {
                throw new IllegalStateException("txoutbox: the relay needs one Publisher bean but found " + names.length
                        + " " + Arrays.toString(names) + "; mark the one to use @Primary, or set"
                        + " txoutbox.relay.enabled=false and build relays yourself");
            }
            if (handlers.stream().findAny().isPresent()) {
                log.warn(
                        "txoutbox: the relay publishes through the Publisher bean {}; the OutboxHandler beans are"
                                + " not used",
                        Arrays.toString(names));
            }
            return publisher;
        }
        Map<String, OutboxHandler> byName = beans.getBeansOfType(OutboxHandler.class);
        EventHandlers.Builder builder = EventHandlers.builder();
        for (Map.Entry<String, OutboxHandler> handler : byName.entrySet()) {
            try {
                builder.on(handler.getValue().route(), handler.getValue());
            } catch (OutboxValidationException e) {
                throw new OutboxValidationException(
                        e.field(),
                        e.limit(),
                        "txoutbox: OutboxHandler bean '" + handler.getKey() + "': " + e.getMessage()
                                + " (handler beans: " + byName.keySet() + ")");
            }
        }
        log.info("txoutbox: the relay hands events to the OutboxHandler beans {}", byName.keySet());
        return builder.build();
    }

    /** The relay runs when there is somewhere to publish: a publisher bean, or handler beans. */
    static final class PublisherOrHandlers extends AnyNestedCondition {
        PublisherOrHandlers() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(Publisher.class)
        static final class HasPublisher {}

        @ConditionalOnBean(OutboxHandler.class)
        static final class HasHandlers {}
    }

    /** Trace context on every appended event, when OpenTelemetry's API is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.opentelemetry.api.trace.Span", "io.txoutbox.opentelemetry.OpenTelemetryScope"})
    @ConditionalOnProperty(prefix = "txoutbox", name = "trace-context", havingValue = "true", matchIfMissing = true)
    static class TraceContextConfiguration {
        /**
         * @return the scope that stamps the current span's {@code traceparent} and {@code tracestate}
         */
        @Bean
        @ConditionalOnMissingBean(value = EventScope.class, parameterizedContainer = Supplier.class)
        OpenTelemetryScope txoutboxTraceContextScope() {
            return OpenTelemetryScope.create();
        }
    }
}
