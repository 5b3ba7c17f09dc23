package io.txoutbox.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The paths a JavaScript string expression of the dashboard can take: string literals, {@code +},
 * parentheses, {@code a ? b : c} (both branches), {@code encodeURIComponent(...)} (a path parameter) and
 * names bound by {@code const}/{@code let} (the nearest binding before the use, as block scoping has it in
 * the dashboard's short functions). Anything else is refused, so that a new way of building a path fails
 * the test instead of slipping past it.
 */
public final class JsPaths {
    /** What a path parameter ({@code encodeURIComponent(x)}) becomes. */
    public static final String PARAMETER = "{param}";

    private JsPaths() {}

    /**
     * @param js the whole file, where names are looked up
     * @param at where the expression is in the file: names are bound before it
     * @param expr the expression
     * @return every string the expression can evaluate to
     */
    public static Set<String> evaluate(String js, int at, String expr) {
        String e = expr.strip();
        int q = topLevel(e, '?', 0);
        if (q >= 0) {
            int colon = topLevel(e, ':', q + 1);
            if (colon < 0) {
                throw new IllegalArgumentException("a ? without : in " + expr);
            }
            Set<String> out = new LinkedHashSet<>(evaluate(js, at, e.substring(q + 1, colon)));
            out.addAll(evaluate(js, at, e.substring(colon + 1)));
            return out;
        }
        List<String> terms = new ArrayList<>();
        int from = 0;
        for (int plus = topLevel(e, '+', 0); plus >= 0; plus = topLevel(e, '+', from)) {
            terms.add(e.substring(from, plus));
            from = plus + 1;
        }
        terms.add(e.substring(from));
        if (terms.size() > 1) {
            Set<String> out = Set.of("");
            for (String term : terms) {
                Set<String> next = new LinkedHashSet<>();
                for (String head : out) {
                    for (String tail : evaluate(js, at, term)) {
                        next.add(head + tail);
                    }
                }
                out = next;
            }
            return out;
        }
        if (e.length() >= 2 && (e.charAt(0) == '\'' || e.charAt(0) == '"') && e.charAt(e.length() - 1) == e.charAt(0)) {
            return Set.of(e.substring(1, e.length() - 1));
        }
        if (e.startsWith("(") && e.endsWith(")")) {
            return evaluate(js, at, e.substring(1, e.length() - 1));
        }
        if (e.startsWith("encodeURIComponent(") && e.endsWith(")")) {
            return Set.of(PARAMETER);
        }
        if (e.matches("[A-Za-z_$][A-Za-z0-9_$]*")) {
            Matcher m = Pattern.compile("(?:const|let)\\s+" + Pattern.quote(e) + "\\s*=\\s*([^;]+);")
                    .matcher(js);
            int binding = -1;
            while (m.find() && m.start() < at) {
                binding = m.start();
            }
            if (binding < 0 || !m.find(binding)) {
                throw new IllegalArgumentException("no const or let binds " + e + " before " + at);
            }
            return evaluate(js, m.start(), m.group(1));
        }
        throw new IllegalArgumentException("cannot tell the paths of: " + expr);
    }

    /** @return the index of {@code c} outside strings and parentheses, from {@code from}, or -1 */
    private static int topLevel(String s, char c, int from) {
        int depth = 0;
        char quote = 0;
        for (int i = from; i < s.length(); i++) {
            char x = s.charAt(i);
            if (quote != 0) {
                if (x == quote) {
                    quote = 0;
                }
            } else if (x == '\'' || x == '"' || x == '`') {
                quote = x;
            } else if (x == '(') {
                depth++;
            } else if (x == ')') {
                depth--;
            } else if (depth == 0 && x == c) {
                return i;
            }
        }
        return -1;
    }
}
