package io.txoutbox.spring.modulith;

import io.txoutbox.OutboxException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Resolves the SpEL templates that Spring Modulith allows in routing targets and keys ({@code
 * "orders::#{orderId}"}, {@code "#{@routes.topic()}"}) against the mapped event, with bean references
 * resolved from the application context. Text without {@code #{} is returned as it is.
 */
final class RouteExpressions {
    /** Templates come from annotations and configuration, so there are few; past this, parse each time. */
    private static final int MAX_CACHED = 256;

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();

    private final EvaluationContext context;
    private final Map<String, Expression> parsed = new ConcurrentHashMap<>();

    RouteExpressions(EvaluationContext context) {
        this.context = context;
    }

    /**
     * @param what {@code target} or {@code key}, for the error message
     * @param text the target or key as the routing target holds it
     * @param root the mapped event the expressions read
     * @return the resolved text; {@code null} when an expression yields {@code null}
     * @throws OutboxException naming the template when it does not parse or evaluate
     */
    String resolve(String what, String text, Object root) {
        if (text == null || !text.contains(TEMPLATE.getExpressionPrefix())) {
            return text;
        }
        try {
            Object value = expression(text).getValue(context, root);
            return value == null ? null : value.toString();
        } catch (ExpressionException e) {
            throw new OutboxException(
                    "txoutbox: the routing " + what + " '" + text + "' cannot be resolved for "
                            + root.getClass().getName() + ": " + e.getMessage(),
                    e);
        }
    }

    private Expression expression(String text) {
        Expression cached = parsed.get(text);
        if (cached != null) {
            return cached;
        }
        Expression expression = PARSER.parseExpression(text, TEMPLATE);
        if (parsed.size() < MAX_CACHED) {
            parsed.putIfAbsent(text, expression);
        }
        return expression;
    }
}
