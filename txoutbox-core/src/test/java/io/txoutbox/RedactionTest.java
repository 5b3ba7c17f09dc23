package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            query password               | jdbc:postgresql://h/db?user=a&password=hunter2xyz&ssl=true      | jdbc:postgresql://h/db?user=a&password=****&ssl=true
            first parameter              | jdbc:postgresql://h/db?password=hunter2xyz&user=a               | jdbc:postgresql://h/db?password=****&user=a
            upper case                   | jdbc:h2:tcp://h/db;USER=sa;PASSWORD=hunter2xyz;MODE=x          | jdbc:h2:tcp://h/db;USER=sa;PASSWORD=****;MODE=x
            mixed case, semicolon        | jdbc:mariadb://h/db;Password=hunter2xyz                         | jdbc:mariadb://h/db;Password=****
            ssl password                 | jdbc:postgresql://h/db?sslpassword=hunter2xyz                   | jdbc:postgresql://h/db?sslpassword=****
            trust store password         | jdbc:mariadb://h/db?trustStorePassword=hunter2xyz&x=1           | jdbc:mariadb://h/db?trustStorePassword=****&x=1
            at and colon in a parameter  | jdbc:mariadb://h/db?password=p@ss:w0rd@x&x=1                    | jdbc:mariadb://h/db?password=****&x=1
            url-encoded parameter        | jdbc:postgresql://h/db?password=p%40ss%3Aw0rd                   | jdbc:postgresql://h/db?password=****
            user information             | jdbc:mariadb://bob:hunter2xyz@h/db                              | jdbc:mariadb://****@h/db
            at inside the password       | jdbc:mariadb://bob:p@ss@w0rd@h:3306/db                          | jdbc:mariadb://****@h:3306/db
            colon and slash inside       | redis://:p:a/ss@h:6379/0                                        | redis://****@h:6379/0
            two urls in a message        | from nats://a:b1b1@h1 to amqp://c:d2d2@h2/v                     | from nats://****@h1 to amqp://****@h2/v
            a quoted url                 | no bundled driver accepts 'jdbc:x://u:p@w0rd@h/db'              | no bundled driver accepts 'jdbc:x://****@h/db'
            token parameter              | wss://h/x?access_token=abc123xyz                                | wss://h/x?access_token=****
            a list after the url         | (jdbc:postgresql://h/db?password=hunter2xyz, postgresql)        | (jdbc:postgresql://h/db?password=****, postgresql)
            comma inside the password    | jdbc:postgresql://h/db?password=hun,ter2xyz                     | jdbc:postgresql://h/db?password=****
            no credential                | jdbc:postgresql://localhost:5432/test?ApplicationName=a          | jdbc:postgresql://localhost:5432/test?ApplicationName=a
            """)
    void credential_looking_url_parts_are_hidden_whole_without_being_told(String name, String text, String redacted) {
        assertThat(Redaction.redact(text)).isEqualTo(redacted);
    }

    @Test
    void a_registered_secret_is_hidden_in_every_form_a_message_may_quote_it() {
        String secret = "Reg1stered p@ss:\"w0rd\"/x";
        Redaction.register(secret);
        assertThat(Redaction.redact("driver said: " + secret + " end")).isEqualTo("driver said: **** end");
        assertThat(Redaction.redact("encoded Reg1stered+p%40ss%3A%22w0rd%22%2Fx end"))
                .isEqualTo("encoded **** end");
        assertThat(Redaction.redact("encoded Reg1stered%20p%40ss%3A%22w0rd%22%2Fx end"))
                .isEqualTo("encoded **** end");
        assertThat(Redaction.redact("{\"error\":\"Reg1stered p@ss:\\\"w0rd\\\"/x\"}"))
                .isEqualTo("{\"error\":\"****\"}");
    }

    @Test
    void the_credentials_of_a_registered_url_are_hidden_where_the_url_is_not_quoted() {
        Redaction.registerUrl("jdbc:postgresql://us3r:Ur1-p@ss@localhost:5432/test?sslpassword=Ur1%2Fssl-key&x=1");
        // pgjdbc reads no user information: it takes "us3r:Ur1-p@ss@localhost" for the host, and says so.
        assertThat(Redaction.redact("java.net.UnknownHostException: us3r:Ur1-p@ss@localhost"))
                .doesNotContain("Ur1-p@ss")
                .doesNotContain("p@ss");
        assertThat(Redaction.redact("ssl key Ur1/ssl-key refused")).isEqualTo("ssl key **** refused");
        assertThat(Redaction.redact("localhost:5432/test")).isEqualTo("localhost:5432/test");
    }

    @Test
    void the_pieces_of_a_password_that_a_driver_misreads_are_hidden_too() {
        // MariaDB Connector/J cuts root:mUi3f@x7e:y9a@host at its first @ and reports the rest as a port.
        Redaction.registerUrl("jdbc:mariadb://root:mUi3fe0a1@x7e5b2c3d:y9a1c4d5e@127.0.0.1:3306/test");
        assertThat(Redaction.redact("SQLException: Incorrect port value : mUi3fe0a1@x7e5b2c3d"))
                .isEqualTo("SQLException: Incorrect port value : ****@****");
    }

    @Test
    void short_secrets_are_not_replaced_in_every_word() {
        Redaction.register("short");
        assertThat(Redaction.redact("1000 ms is shorter")).isEqualTo("1000 ms is shorter");
        assertThat(Redaction.redact("jdbc:mariadb://u:short@h/db")).isEqualTo("jdbc:mariadb://****@h/db");
    }

    @Test
    void credential_names_are_told_by_their_words() {
        assertThat(Redaction.isCredentialName("password")).isTrue();
        assertThat(Redaction.isCredentialName("trust-store-password")).isTrue();
        assertThat(Redaction.isCredentialName("ssl.keystore.password")).isTrue();
        assertThat(Redaction.isCredentialName("sasl.jaas.config")).isTrue();
        assertThat(Redaction.isCredentialName("Authorization")).isTrue();
        assertThat(Redaction.isCredentialName("X-Api-Key")).isTrue();
        assertThat(Redaction.isCredentialName("secrets")).isTrue();
        assertThat(Redaction.isCredentialName("token")).isTrue();
        assertThat(Redaction.isCredentialName("jdbc-url")).isFalse();
        assertThat(Redaction.isCredentialName("Content-Type")).isFalse();
        assertThat(Redaction.isCredentialName("batch-size")).isFalse();
    }

    @Test
    void a_socket_failure_that_names_user_and_password_is_not_kept_as_the_cause() {
        // MariaDB's words for a URL it cannot parse, and a socket failure naming user:password@host.
        SQLException parse = new SQLNonTransientConnectionException(
                "error parsing url: '//' is not present in the url jdbc:mariadb:h/db?password=Dr1ver-pw9", "08000");
        parse.initCause(new java.net.UnknownHostException("bob:Dr1ver-ui9@h"));
        Redaction.registerUrl("jdbc:mariadb://bob:Dr1ver-ui9@h/db");
        OutboxStoreException e = OutboxStoreException.of("connect", "t", parse);
        StringBuilder all = new StringBuilder(e.getMessage());
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            all.append(' ').append(t.getMessage());
        }
        assertThat(all.toString()).doesNotContain("Dr1ver").contains("password=****");
    }
}
