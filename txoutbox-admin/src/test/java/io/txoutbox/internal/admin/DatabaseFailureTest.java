package io.txoutbox.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatabaseFailureTest {
    @ParameterizedTest(name = "SQLState {0}: wait {1}")
    @CsvSource({
        "08001, true", // the connection was refused
        "08006, true", // the connection failed
        "57P01, true", // an administrator terminated the backend
        "57P03, true", // the database is starting up
        "53300, true", // too many connections
        "28P01, false", // wrong password
        "3D000, false", // no such database
        "42P01, false" // no such table
    })
    void the_sqlstate_class_tells_whether_waiting_may_help(String state, boolean wait) {
        RuntimeException wrapped = new IllegalStateException("starting", new SQLException("refused", state));
        assertThat(DatabaseFailure.isUnavailability(wrapped)).isEqualTo(wait);
        assertThat(DatabaseFailure.sqlState(wrapped)).isEqualTo(state);
        assertThat(DatabaseFailure.reason(wrapped)).isEqualTo("refused (SQLState " + state + ")");
    }

    @Test
    void without_an_sqlstate_a_lost_connection_or_a_network_failure_is_worth_waiting_for() {
        assertThat(DatabaseFailure.isUnavailability(new RuntimeException(new SQLException("Connection is closed"))))
                .isTrue();
        RuntimeException network = new RuntimeException("pool", new ConnectException("Connection refused"));
        assertThat(DatabaseFailure.isUnavailability(network)).isTrue();
        assertThat(DatabaseFailure.reason(network)).isEqualTo("ConnectException: Connection refused");
        assertThat(DatabaseFailure.isUnavailability(new IllegalArgumentException("bad table name")))
                .isFalse();
    }

    @Test
    void a_cause_cycle_ends_the_walk() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(DatabaseFailure.isUnavailability(a)).isFalse();
        assertThat(DatabaseFailure.reason(a)).isEqualTo("RuntimeException: b");
    }
}
