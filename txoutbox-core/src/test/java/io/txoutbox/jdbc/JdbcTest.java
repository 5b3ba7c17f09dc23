package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxStoreException;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC helper gives every connection back as it was lent, whatever the work did, as a pool needs:
 * auto-commit and isolation restored after autocommit work, a transaction and a DDL script, on success
 * and on failure.
 */
class JdbcTest {
    private final H2Database h2 = new H2Database();
    private Connection lent;

    @AfterEach
    void drop() throws SQLException {
        if (lent != null) {
            lent.close();
        }
        h2.drop();
    }

    /** A pool of one: the same connection every time, and "closing" it only gives it back. */
    private DataSource poolOfOne(boolean autoCommit, int isolation) throws SQLException {
        lent = h2.dataSource.getConnection();
        lent.setAutoCommit(autoCommit);
        lent.setTransactionIsolation(isolation);
        Connection handle = (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(lent, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return new DataSource() {
            @Override
            public Connection getConnection() {
                return handle;
            }

            @Override
            public Connection getConnection(String user, String password) {
                return handle;
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() {
                return Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }

    @Test
    void autocommit_work_runs_in_autocommit_and_gives_the_connection_back_as_lent() throws SQLException {
        Jdbc jdbc = new Jdbc(poolOfOne(false, Connection.TRANSACTION_SERIALIZABLE), "t");
        assertThat(jdbc.autocommit("op", Connection::getAutoCommit)).isTrue();
        assertThat(lent.getAutoCommit()).isFalse();
        assertThatThrownBy(() -> jdbc.autocommit("op", c -> {
                    throw new SQLException("refused", "40001");
                }))
                .isInstanceOf(OutboxStoreException.class)
                .hasMessage("txoutbox op on table 't' failed: refused (SQLState 40001, transient)");
        assertThat(lent.getAutoCommit()).isFalse();
    }

    @Test
    void a_transaction_runs_at_read_committed_and_restores_auto_commit_and_isolation() throws SQLException {
        Jdbc jdbc = new Jdbc(poolOfOne(true, Connection.TRANSACTION_SERIALIZABLE), "t");
        h2.execute("CREATE TABLE t (x INT)");
        int isolation = jdbc.transaction("op", c -> {
            try (Statement st = c.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
            return c.getAutoCommit() ? -1 : c.getTransactionIsolation();
        });
        assertThat(isolation).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        assertThat(h2.count("SELECT count(*) FROM t")).as("committed").isEqualTo(1);
        assertThat(lent.getAutoCommit()).isTrue();
        assertThat(lent.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
    }

    @Test
    void a_failed_transaction_is_rolled_back_and_the_connection_restored() throws SQLException {
        Jdbc jdbc = new Jdbc(poolOfOne(true, Connection.TRANSACTION_REPEATABLE_READ), "t");
        h2.execute("CREATE TABLE t (x INT)");
        assertThatThrownBy(() -> jdbc.transaction("op", c -> {
                    try (Statement st = c.createStatement()) {
                        st.execute("INSERT INTO t VALUES (1)");
                    }
                    throw new IllegalStateException("the work failed");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(h2.count("SELECT count(*) FROM t")).as("rolled back").isZero();
        assertThat(lent.getAutoCommit()).isTrue();
        assertThat(lent.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
    }

    @Test
    void a_script_runs_statement_by_statement_skipping_comments_and_restores_auto_commit() throws SQLException {
        Jdbc jdbc = new Jdbc(poolOfOne(false, Connection.TRANSACTION_READ_COMMITTED), "t");
        jdbc.scripts(
                "create schema",
                "-- a comment only\n\nCREATE TABLE a (x INT);\n\nCREATE TABLE b (x INT);\n",
                "CREATE TABLE c (x INT);");
        assertThat(h2.count("SELECT count(*) FROM information_schema.tables WHERE table_name IN ('A', 'B', 'C')"))
                .isEqualTo(3);
        assertThat(lent.getAutoCommit()).isFalse();
    }
}
