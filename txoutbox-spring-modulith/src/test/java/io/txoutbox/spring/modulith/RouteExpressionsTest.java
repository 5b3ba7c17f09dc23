package io.txoutbox.spring.modulith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxException;
import org.junit.jupiter.api.Test;
import org.springframework.expression.spel.support.StandardEvaluationContext;

class RouteExpressionsTest {
    record Parcel(String id, String region) {}

    private final RouteExpressions expressions = new RouteExpressions(new StandardEvaluationContext());
    private final Parcel parcel = new Parcel("p-1", "eu");

    @Test
    void plain_text_is_returned_as_it_is() {
        assertThat(expressions.resolve("target", "orders", parcel)).isEqualTo("orders");
        assertThat(expressions.resolve("key", null, parcel)).isNull();
    }

    @Test
    void a_template_reads_the_event_and_keeps_the_text_around_it() {
        assertThat(expressions.resolve("key", "#{id}", parcel)).isEqualTo("p-1");
        assertThat(expressions.resolve("target", "parcels-#{region}.v1", parcel))
                .isEqualTo("parcels-eu.v1");
    }

    @Test
    void an_expression_that_yields_null_resolves_to_null() {
        assertThat(expressions.resolve("key", "#{null}", parcel)).isNull();
    }

    @Test
    void an_expression_that_fails_names_the_template_and_the_event_type() {
        assertThatThrownBy(() -> expressions.resolve("key", "#{weight}", parcel))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("routing key '#{weight}'")
                .hasMessageContaining(Parcel.class.getName());
    }
}
