package io.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AbstractPublisherBuilderTest {

    @Test
    void a_builder_routes_by_aggregate_type_until_told_otherwise_and_chains_as_its_own_type() {
        assertThat(new TestBuilder().router()).isSameAs(Router.BY_AGGREGATE_TYPE);
        Router byType = ClaimedEvent::eventType;
        TestBuilder builder = new TestBuilder().router(byType).name("n");
        assertThat(builder.router()).isSameAs(byType);
        assertThat(builder.name).isEqualTo("n");
        assertThat(new TestBuilder().router(null).router()).isNull(); // refused at the transport's build()
    }

    private static final class TestBuilder extends AbstractPublisherBuilder<TestBuilder> {
        private String name;

        TestBuilder name(String name) {
            this.name = name;
            return this;
        }
    }
}
