package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** The driver texts as pgjdbc, MariaDB Connector/J and H2 write them, through the one sanitizing place. */
class SqlExceptionsTest {

    @Test
    void a_pgjdbc_batch_failure_keeps_its_state_and_loses_the_statement_and_the_detail() {
        SQLException server = new SQLException(
                "ERROR: duplicate key value violates unique constraint \"t_pkey\"\n"
                        + "  Detail: Key (id)=(0190-secret) already exists.",
                "23505");
        BatchUpdateException batch = new BatchUpdateException(
                "Batch entry 0 INSERT INTO t (id, payload) VALUES (('0190-secret'::uuid), ('\\x7365637265'))"
                        + " was aborted: ERROR: duplicate key value violates unique constraint \"t_pkey\"",
                "23505",
                0,
                new int[] {-3},
                server);
        batch.setNextException(server);
        OutboxStoreException e = SqlExceptions.translate("append", "t", batch);
        assertThat(e.getMessage())
                .isEqualTo("txoutbox append on table 't' failed: duplicate key: a row with this key is already in"
                        + " the table (SQLState 23505)");
        assertThat(e.getCause()).isInstanceOf(BatchUpdateException.class);
        assertThat(((SQLException) e.getCause()).getSQLState()).isEqualTo("23505");
        assertThat(((SQLException) e.getCause()).getNextException().getSQLState())
                .isEqualTo("23505");
        assertThat(printed(e))
                .doesNotContain("secret")
                .doesNotContain("7365637265")
                .doesNotContain("INSERT");
    }

    @Test
    void connection_failures_keep_the_drivers_first_line_and_their_family() {
        SQLException refused = new SQLTransientConnectionException(
                "Connection to localhost:5433 refused. Check that the hostname and port are correct.",
                "08001",
                new ConnectException("Connection refused"));
        OutboxStoreException e = SqlExceptions.translate("claim", "t", refused);
        assertThat(e.getMessage())
                .contains("Connection to localhost:5433 refused")
                .contains("transient");
        assertThat(e.getCause()).isInstanceOf(SQLTransientConnectionException.class);
        assertThat(e.getCause().getCause()).isInstanceOf(ConnectException.class);
    }

    @Test
    void a_connection_failure_that_quotes_the_url_keeps_no_password() {
        // MariaDB Connector/J quotes a URL it cannot parse whole; pgjdbc names user:password@host as the host.
        SQLException unparsable = new SQLTransientConnectionException(
                "error parsing url: '//' is not present in the url jdbc:mariadb:h/db?user=a&password=Sq1-pw@x:y",
                "08000",
                new ConnectException("jdbc:mariadb://bob:Sq1-ui@x@h:3306/db refused"));
        OutboxStoreException e = SqlExceptions.translate("claim", "t", unparsable);
        assertThat(e.getMessage()).contains("password=****").doesNotContain("Sq1");
        assertThat(printed(e)).doesNotContain("Sq1");
    }

    @Test
    void a_pool_timeout_without_a_state_keeps_its_text() {
        SQLException timeout = new SQLTransientConnectionException(
                "pool - Connection is not available, request timed out after 5000ms (total=1, active=1, idle=0)");
        assertThat(SqlExceptions.translate("claim", "t", timeout).getMessage())
                .contains("Connection is not available, request timed out after 5000ms");
    }

    @Test
    void statement_suffixes_are_cut_from_text_that_is_kept() {
        assertThat(SqlExceptions.firstLineWithoutStatement(
                        "Table \"X\" not found; SQL statement:\nINSERT INTO x VALUES ('secret') [42102-224]"))
                .isEqualTo("Table \"X\" not found");
        assertThat(SqlExceptions.firstLineWithoutStatement(
                        "(conn=5) You have an error in your SQL syntax near 'secret' at line 1"))
                .isEqualTo("(conn=5) You have an error in your SQL syntax");
        assertThat(SqlExceptions.firstLineWithoutStatement(
                        "(conn=5) Lock wait timeout exceeded\nQuery is: UPDATE t SET x = 'secret'"))
                .isEqualTo("(conn=5) Lock wait timeout exceeded");
    }

    @Test
    void mariadb_constraint_errors_are_described_by_vendor_code_never_quoted() {
        SQLException duplicate = new java.sql.SQLIntegrityConstraintViolationException(
                "(conn=7) Duplicate entry 'secret-id' for key 'PRIMARY'", "23000", 1062);
        OutboxStoreException e = SqlExceptions.translate("append", "t", duplicate);
        assertThat(e.getMessage())
                .contains("duplicate key")
                .contains("vendor code 1062")
                .doesNotContain("secret");
        assertThat(e.getCause()).isInstanceOf(java.sql.SQLIntegrityConstraintViolationException.class);
        assertThat(printed(e)).doesNotContain("secret");
    }

    private static String printed(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql) {
                for (SQLException next = sql.getNextException(); next != null; next = next.getNextException()) {
                    out.append(next.toString());
                }
            }
        }
        return out.toString();
    }
}
