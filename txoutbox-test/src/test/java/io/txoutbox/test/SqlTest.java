package io.txoutbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.harness.LocalPostgres;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SqlTest {
    private static final String TABLE =
            "kit_sql_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    private static HikariDataSource pg;

    @BeforeAll
    static void open() {
        pg = LocalPostgres.pool("kit-sql", 2);
        Sql.execute(pg, "CREATE TABLE " + TABLE + " (id uuid PRIMARY KEY, id_text varchar(36), state text)");
    }

    @AfterAll
    static void close() {
        try {
            Sql.execute(pg, "DROP TABLE IF EXISTS " + TABLE);
        } finally {
            pg.close();
        }
    }

    @Test
    void count_binds_its_arguments_in_order() {
        UUID id = UUID.randomUUID();
        Sql.execute(pg, "INSERT INTO " + TABLE + " VALUES ('" + id + "', '" + id + "', 'dead')");

        assertThat(Sql.count(pg, "SELECT count(*) FROM " + TABLE + " WHERE id = ? AND state = ?", id, "dead"))
                .isEqualTo(1);
        assertThat(Sql.count(pg, "SELECT count(*) FROM " + TABLE + " WHERE id = ? AND state = ?", id, "pending"))
                .isZero();
    }

    @Test
    void uuids_as_text_binds_an_id_as_text_and_other_values_as_they_are() {
        UUID id = UUID.randomUUID();
        Sql.execute(pg, "INSERT INTO " + TABLE + " VALUES ('" + id + "', '" + id + "', 'pending')");

        assertThat(Sql.count(
                        pg,
                        Sql.Binder.UUIDS_AS_TEXT,
                        "SELECT count(*) FROM " + TABLE + " WHERE id_text = ? AND state = ?",
                        id,
                        "pending"))
                .isEqualTo(1);
    }

    @Test
    void a_failure_names_the_sql_and_keeps_the_cause() {
        String sql = "SELECT count(*) FROM " + TABLE + "_missing";

        assertThatThrownBy(() -> Sql.count(pg, sql))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(sql + ": ")
                .hasCauseInstanceOf(SQLException.class);
        assertThatThrownBy(() -> Sql.execute(pg, "DROP TABLE " + TABLE + "_missing"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("DROP TABLE " + TABLE + "_missing: ")
                .hasCauseInstanceOf(SQLException.class);
    }

    @Test
    void a_query_without_a_row_is_a_failure() {
        assertThatThrownBy(() -> Sql.count(pg, "SELECT 1 WHERE false"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("SELECT 1 WHERE false: no row");
    }
}
