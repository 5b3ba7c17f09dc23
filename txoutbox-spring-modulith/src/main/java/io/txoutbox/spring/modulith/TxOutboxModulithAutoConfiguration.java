package io.txoutbox.spring.modulith;

import io.txoutbox.Outbox;
import io.txoutbox.spring.SpringOutbox;
import io.txoutbox.spring.TxOutboxAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Externalizes Spring Modulith events through txoutbox: a {@link TxOutboxEventExternalizer} appends every
 * event that the application's {@link EventExternalizationConfiguration} selects to the starter's {@link
 * SpringOutbox}, inside the publishing transaction, and the starter's relay delivers it with the
 * application's transport ({@code Publisher} bean).
 *
 * <p>Refuses to start beside one of Modulith's own externalizers (a {@code DelegatingEventExternalizer}
 * bean, which {@code spring-modulith-events-kafka}, {@code -amqp}, {@code -jms} and {@code -messaging}
 * define): that one would publish the same events a second time, after the commit and outside txoutbox.
 * {@code spring.modulith.events.externalization.enabled=false} turns those off; this module then builds
 * Modulith's default configuration itself when the application defines none. {@code
 * txoutbox.modulith.enabled=false} turns this module off.
 */
@AutoConfiguration(
        after = TxOutboxAutoConfiguration.class,
        afterName = "org.springframework.modulith.events.config.EventExternalizationAutoConfiguration")
@ConditionalOnClass(EventExternalizationConfiguration.class)
@ConditionalOnProperty(prefix = "txoutbox.modulith", name = "enabled", havingValue = "true", matchIfMissing = true)
public class TxOutboxModulithAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(TxOutboxModulithAutoConfiguration.class);
    private static final String JACKSON_2 = "com.fasterxml.jackson.databind.ObjectMapper";
    /** The base classes of Modulith's own externalizers (2.0, and 2.1's transport-aware ones). */
    private static final List<String> MODULITH_EXTERNALIZERS = List.of(
            "org.springframework.modulith.events.support.EventExternalizationSupport",
            "org.springframework.modulith.events.support.EventExternalizerSupport");

    /** Created by Spring. */
    public TxOutboxModulithAutoConfiguration() {}

    /**
     * Modulith's defaults, for when its own auto-configuration is off ({@code
     * spring.modulith.events.externalization.enabled=false}) and the application defines no configuration:
     * events annotated {@code @Externalized} in the application's packages, routed by the annotation or
     * else by their application-local type name.
     *
     * @param beans to read the application's packages
     * @return the configuration
     */
    @Bean
    @ConditionalOnMissingBean(EventExternalizationConfiguration.class)
    static EventExternalizationConfiguration txoutboxEventExternalizationConfiguration(BeanFactory beans) {
        return EventExternalizationConfiguration.defaults(AutoConfigurationPackages.get(beans))
                .build();
    }

    /**
     * The application's JSON mapper: its Jackson 3 {@code JsonMapper} bean, or else (Jackson 2 on the class
     * path) its {@code ObjectMapper} bean.
     *
     * @param jsonMapper the Jackson 3 mapper Spring Boot configures
     * @param beans to look up a Jackson 2 mapper
     * @return the serializer
     * @throws IllegalStateException when the context has neither mapper
     */
    @Bean
    @ConditionalOnMissingBean(ExternalizedPayloadSerializer.class)
    ExternalizedPayloadSerializer txoutboxExternalizedPayloadSerializer(
            ObjectProvider<JsonMapper> jsonMapper, ListableBeanFactory beans) {
        JsonMapper mapper = jsonMapper.getIfAvailable();
        if (mapper != null) {
            return new JacksonPayloadSerializer(mapper);
        }
        if (ClassUtils.isPresent(JACKSON_2, TxOutboxModulithAutoConfiguration.class.getClassLoader())) {
            ExternalizedPayloadSerializer jackson2 = Jackson2PayloadSerializer.fromContext(beans);
            if (jackson2 != null) {
                return jackson2;
            }
        }
        throw new IllegalStateException("txoutbox: externalized Spring Modulith events are serialized with the"
                + " application's JSON mapper, and the context has none (no Jackson 3 JsonMapper bean, no Jackson 2"
                + " ObjectMapper bean): keep Spring Boot's JacksonAutoConfiguration, or define an"
                + " ExternalizedPayloadSerializer bean");
    }

    /**
     * @param outboxes the starter's outbox
     * @param configuration which events, where to, with what key and headers
     * @param serializer the payload bytes
     * @param customizers adjust each outbox event
     * @param beans to find Modulith's own externalizers, and to resolve {@code @bean} references in SpEL
     * @return the listener that appends the selected events
     * @throws IllegalStateException beside one of Modulith's own externalizers, or without a {@link SpringOutbox}
     */
    @Bean
    TxOutboxEventExternalizer txoutboxEventExternalizer(
            ObjectProvider<Outbox> outboxes,
            EventExternalizationConfiguration configuration,
            ExternalizedPayloadSerializer serializer,
            ObjectProvider<ExternalizedEventCustomizer> customizers,
            ListableBeanFactory beans) {
        List<String> modulith = modulithExternalizers(beans);
        if (!modulith.isEmpty()) {
            throw new IllegalStateException("txoutbox: Spring Modulith's own event externalizer "
                    + modulith + " would publish every @Externalized event a second time, after the"
                    + " commit and outside the outbox. Pick one: remove its module (spring-modulith-events-kafka,"
                    + " -amqp, -jms or -messaging) or set spring.modulith.events.externalization.enabled=false to"
                    + " externalize through txoutbox; or set txoutbox.modulith.enabled=false to keep Modulith's");
        }
        Outbox outbox = outboxes.getIfUnique();
        if (!(outbox instanceof SpringOutbox springOutbox)) {
            throw new IllegalStateException("txoutbox: externalized Spring Modulith events are appended through a"
                    + " SpringOutbox, which joins the publishing transaction, but the context has "
                    + (outbox == null ? "no unique Outbox bean" : "the Outbox " + outbox)
                    + ": let the starter configure it (one DataSource, no Outbox bean of yours), or define yours as"
                    + " new SpringOutbox(outbox, dataSource, false)");
        }
        StandardEvaluationContext expressions = new StandardEvaluationContext();
        expressions.setBeanResolver(new BeanFactoryResolver(beans));
        TxOutboxEventExternalizer externalizer = new TxOutboxEventExternalizer(
                springOutbox,
                configuration,
                serializer,
                customizers.orderedStream().toList(),
                new RouteExpressions(expressions));
        log.info(
                "txoutbox: externalized Spring Modulith events are appended to table {} in the publishing"
                        + " transaction (payloads by {})",
                springOutbox.table(),
                serializer);
        return externalizer;
    }

    /** @return the names of the beans that are one of Modulith's own externalizers (none without events-core) */
    private static List<String> modulithExternalizers(ListableBeanFactory beans) {
        ClassLoader loader = TxOutboxModulithAutoConfiguration.class.getClassLoader();
        List<String> names = new ArrayList<>();
        for (String type : MODULITH_EXTERNALIZERS) {
            if (ClassUtils.isPresent(type, loader)) {
                for (String name : beans.getBeanNamesForType(ClassUtils.resolveClassName(type, loader), true, false)) {
                    if (!names.contains(name)) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }
}
