package io.txoutbox.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The header-name mapping: JMS-legal property names, and the original names back. */
class JmsHeadersTest {
    private static final Set<String> KEYWORDS =
            Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "event-id, event_id",
        "content-type, content_type",
        "traceparent, traceparent",
        "X-Request-Id, X_Request_Id",
        "x.trace_id, x$002etrace$005fid",
        "1st, $0031st",
        "in, $0069n",
        "Escape, $0045scape",
        "JMSType, $004aMSType",
        "jms-priority, $006ams_priority",
        "price$, price$0024",
        "caf\u00e9, caf$00e9",
    })
    void a_header_name_becomes_a_legal_property_name_and_back(String header, String property) {
        assertThat(JmsHeaders.propertyName(header)).isEqualTo(property);
        assertThat(JmsHeaders.headerName(property)).isEqualTo(header);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"a", "a-b", "a_b", "a--b", "_", "-", "$", "NOT", "jmsx", "9", "a b", "\ud83d\ude00", "x-1.2"})
    void every_mapped_name_is_a_java_identifier_not_reserved_and_reversible(String header) {
        String property = JmsHeaders.propertyName(header);
        assertThat(Character.isJavaIdentifierStart(property.charAt(0))).isTrue();
        assertThat(property.chars().skip(1).allMatch(Character::isJavaIdentifierPart))
                .isTrue();
        assertThat(property.toUpperCase(Locale.ROOT)).doesNotStartWith("JMS");
        assertThat(KEYWORDS).doesNotContain(property.toUpperCase(Locale.ROOT));
        assertThat(JmsHeaders.headerName(property)).isEqualTo(header);
    }

    @Test
    void names_that_differ_only_by_dash_and_underscore_stay_apart() {
        assertThat(JmsHeaders.propertyName("a-b")).isNotEqualTo(JmsHeaders.propertyName("a_b"));
    }

    @Test
    void an_empty_header_name_and_a_broken_escape_are_refused() {
        assertThatThrownBy(() -> JmsHeaders.propertyName(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an empty header name cannot be a JMS property");
        assertThatThrownBy(() -> JmsHeaders.headerName("a$00"))
                .hasMessage("property 'a$00' has a $ that is not followed by four hex digits");
        assertThatThrownBy(() -> JmsHeaders.headerName("a$+00a"))
                .hasMessage("property 'a$+00a' has a $ that is not followed by four hex digits");
    }
}
