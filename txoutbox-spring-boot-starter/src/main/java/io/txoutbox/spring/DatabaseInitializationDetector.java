package io.txoutbox.spring;

import io.txoutbox.Outbox;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes every {@link Outbox} bean wait for the database initializers (Flyway, Liquibase, {@code
 * spring.sql.init}), so that the outbox's schema check at start-up sees the migrated table.
 */
final class DatabaseInitializationDetector extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {
    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(Outbox.class);
    }
}
