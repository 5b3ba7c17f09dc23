package io.txoutbox.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads what a PromQL expression asks of the series it selects, so that a test can check them against a
 * real Prometheus: every selector (a metric name with its matchers, as written) and, per metric, the
 * labels it must carry (those its matchers name, those of the {@code by (...)} of every aggregation
 * around it, and those of the expression's {@code on (...)} matching).
 *
 * <p>A small lexer with a stack of parentheses, not a full parser: enough for the kit's rules and
 * dashboard, and it refuses what it cannot read (a selector without a metric name).
 */
final class PromQl {
    private static final Set<String> AGGREGATIONS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile",
            "limitk",
            "limit_ratio");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "offset", "bool", "atan2", "inf", "nan");
    private static final Set<String> GROUPING = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

    /** A series selector as written: {@code txoutbox_route_events_total{outcome="retried"}}. */
    record Selector(String metric, String text, Set<String> matchedLabels) {}

    /** The selectors of one expression, and the labels each metric must have. */
    record Analysis(List<Selector> selectors, Map<String, Set<String>> requiredLabels) {}

    private enum Kind {
        IDENT,
        STRING,
        NUMBER,
        PUNCT
    }

    private record Token(Kind kind, String text, int start, int end) {}

    private PromQl() {}

    /**
     * @param expr a PromQL expression, without Grafana variables
     * @return its selectors and required labels
     * @throws IllegalArgumentException when it has a selector this reader cannot name
     */
    static Analysis analyze(String expr) {
        List<Token> tokens = lex(expr);
        List<Selector> selectors = new ArrayList<>();
        Set<String> onLabels = new LinkedHashSet<>();
        Map<String, Set<String>> required = new TreeMap<>();
        // One frame per open parenthesis: the selectors inside it and, for an aggregation, its `by` labels.
        Deque<Frame> frames = new ArrayDeque<>();
        List<Frame> aggregations = new ArrayList<>();
        String pendingAggregation = null;
        Set<String> pendingBy = null;
        Frame justClosed = null;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Frame closedBefore = justClosed;
            justClosed = null;
            if (t.kind() == Kind.PUNCT && t.text().equals("[")) {
                while (i < tokens.size() && !tokens.get(i).text().equals("]")) {
                    i++;
                }
                continue;
            }
            if (t.kind() == Kind.PUNCT && t.text().equals("(")) {
                Frame f = new Frame(pendingAggregation != null);
                if (pendingBy != null) {
                    f.by.addAll(pendingBy);
                }
                if (f.aggregation) {
                    aggregations.add(f);
                }
                frames.push(f);
                pendingAggregation = null;
                pendingBy = null;
                continue;
            }
            if (t.kind() == Kind.PUNCT && t.text().equals(")")) {
                Frame f = frames.pop();
                frames.forEach(outer -> outer.selectors.addAll(f.selectors));
                justClosed = f;
                continue;
            }
            if (t.kind() == Kind.PUNCT && t.text().equals("{")) {
                throw new IllegalArgumentException("a selector without a metric name in: " + expr);
            }
            if (t.kind() != Kind.IDENT) {
                continue;
            }
            String word = t.text();
            if (GROUPING.contains(word)) {
                List<String> labels = new ArrayList<>();
                i = labelList(tokens, i + 1, labels);
                switch (word) {
                    case "by" -> {
                        if (closedBefore != null && closedBefore.aggregation) {
                            closedBefore.by.addAll(labels); // sum (x) by (a)
                        } else {
                            pendingBy = new LinkedHashSet<>(labels); // sum by (a) (x)
                        }
                    }
                    case "on" -> onLabels.addAll(labels);
                    default -> {
                        // without, ignoring, group_left/right name labels that need not exist.
                    }
                }
                continue;
            }
            if (KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                continue;
            }
            boolean call = i + 1 < tokens.size() && tokens.get(i + 1).text().equals("(");
            boolean aggregationWithBy = AGGREGATIONS.contains(word)
                    && i + 1 < tokens.size()
                    && GROUPING.contains(tokens.get(i + 1).text());
            if (call || aggregationWithBy) {
                pendingAggregation = AGGREGATIONS.contains(word) ? word : null;
                continue;
            }
            // A metric name, and its matchers if any.
            Set<String> matched = new LinkedHashSet<>();
            int end = t.end();
            if (i + 1 < tokens.size() && tokens.get(i + 1).text().equals("{")) {
                i += 2;
                while (!tokens.get(i).text().equals("}")) {
                    // Inside the braces the names are labels; their values are strings.
                    if (tokens.get(i).kind() == Kind.IDENT) {
                        matched.add(tokens.get(i).text());
                    }
                    i++;
                }
                end = tokens.get(i).end();
            }
            Selector s = new Selector(word, expr.substring(t.start(), end), matched);
            selectors.add(s);
            if (!frames.isEmpty()) {
                frames.peek().selectors.add(s);
            }
        }
        for (Selector s : selectors) {
            Set<String> labels = required.computeIfAbsent(s.metric(), k -> new LinkedHashSet<>());
            labels.addAll(s.matchedLabels());
            labels.addAll(onLabels);
        }
        for (Frame f : aggregations) {
            for (Selector s : f.selectors) {
                required.get(s.metric()).addAll(f.by);
            }
        }
        return new Analysis(selectors, required);
    }

    private static final class Frame {
        final boolean aggregation;
        final Set<String> by = new LinkedHashSet<>();
        final List<Selector> selectors = new ArrayList<>();

        Frame(boolean aggregation) {
            this.aggregation = aggregation;
        }
    }

    /** Reads {@code (a, b)} from {@code i}; returns the index of its closing parenthesis. */
    private static int labelList(List<Token> tokens, int i, List<String> labels) {
        if (i >= tokens.size() || !tokens.get(i).text().equals("(")) {
            return i - 1; // `group_left` without labels
        }
        i++;
        while (!tokens.get(i).text().equals(")")) {
            if (tokens.get(i).kind() == Kind.IDENT) {
                labels.add(tokens.get(i).text());
            }
            i++;
        }
        return i;
    }

    private static List<Token> lex(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '"' || c == '\'' || c == '`') {
                i++;
                while (s.charAt(i) != c) {
                    i += s.charAt(i) == '\\' && c != '`' ? 2 : 1;
                }
                i++;
                out.add(new Token(Kind.STRING, s.substring(start, i), start, i));
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || "_:".indexOf(s.charAt(i)) >= 0)) {
                    i++;
                }
                out.add(new Token(Kind.IDENT, s.substring(start, i), start, i));
            } else if (Character.isDigit(c) || c == '.') {
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                    i++;
                }
                out.add(new Token(Kind.NUMBER, s.substring(start, i), start, i));
            } else {
                i++;
                out.add(new Token(Kind.PUNCT, String.valueOf(c), start, i));
            }
        }
        return out;
    }
}
