package io.txoutbox.jms;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract with synchronous sends (the default), against the embedded Artemis broker. */
class JmsSynchronousContractTest extends PublisherContract {
    private static HikariDataSource dataSource;

    @BeforeAll
    static void start() {
        Artemis.address();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test"));
        config.setUsername(env("TXOUTBOX_PG_USER", "postgres"));
        config.setPoolName("jms-sync-contract");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        dataSource = new HikariDataSource(config);
    }

    @AfterAll
    static void stop() {
        dataSource.close();
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return Artemis.address();
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return JmsPublisher.builder()
                .connectionFactory(Artemis.factory(host, port, false))
                .publishTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }

    @Override
    protected Received subscribe(String destination) throws Exception {
        return Inbox.queue(destination);
    }

    @Override
    protected DataSource outboxDataSource() {
        return dataSource;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
