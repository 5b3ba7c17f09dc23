package io.txoutbox.server.yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.StringReader;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * Reads the configuration file's YAML into a tree of mappings, lists and text, from SnakeYAML's events:
 * every scalar is kept exactly as typed, and the settings decide what it means.
 *
 * <p>A data binder would resolve scalars by YAML 1.1's rules first ({@code 0x1F} and {@code 0123} become
 * numbers, {@code 1_000} loses its underscores, {@code yes} and {@code y} become {@code true}), and a
 * token or password written that way would reach its setting changed. Here only a plain {@code ~},
 * {@code null} or nothing is "no value"; a numeric setting parses its text as a decimal number.
 *
 * <p>Refused, with the key and the line: an alias ({@code *name}), which a tree of text cannot resolve
 * (a binder reads it as the anchor's <em>name</em>); a key given twice; a key that is not a plain value; a
 * second document; an empty key; nesting deeper than {@value #MAX_DEPTH} levels. Anchors alone change
 * nothing.
 */
public final class YamlTree {
    /** Far deeper than any configuration; bounds the recursion of {@link #value}. */
    static final int MAX_DEPTH = 32;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Parser parser;

    private YamlTree(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowRecursiveKeys(false);
        options.setProcessComments(false);
        this.parser = new ParserImpl(new StreamReader(new StringReader(yaml)), options);
    }

    /**
     * @param yaml the file's text
     * @return its one document: a tree whose scalars are text nodes (a plain null is a null node), or a
     *     missing node when the file has no document
     * @throws ConfigException naming the key and the line of what is refused, or {@code (file)} and the
     *     line and column of a YAML syntax error
     */
    public static JsonNode read(String yaml) {
        try {
            return new YamlTree(yaml).document();
        } catch (MarkedYAMLException e) {
            Mark at = e.getProblemMark();
            String problem = (e.getContext() == null ? "" : e.getContext() + ": ")
                    + (e.getProblem() == null ? "unexpected input" : e.getProblem());
            throw new ConfigException(
                    "(file)",
                    "not valid YAML"
                            + (at == null ? "" : " at line " + (at.getLine() + 1) + ", column " + (at.getColumn() + 1))
                            + ": " + problem);
        } catch (YAMLException e) {
            throw new ConfigException("(file)", "not valid YAML: " + e.getMessage());
        }
    }

    private JsonNode document() {
        next(Event.ID.StreamStart);
        if (parser.checkEvent(Event.ID.StreamEnd)) {
            return MissingNode.getInstance();
        }
        next(Event.ID.DocumentStart);
        JsonNode root = value("", 0);
        next(Event.ID.DocumentEnd);
        if (parser.checkEvent(Event.ID.DocumentStart)) {
            throw new ConfigException(
                    "(file)",
                    "has a second YAML document at line " + line(parser.peekEvent())
                            + "; give the whole configuration in one");
        }
        next(Event.ID.StreamEnd);
        return root;
    }

    private JsonNode value(String key, int depth) {
        Event e = event();
        if (depth > MAX_DEPTH) {
            throw new ConfigException(
                    where(key), "is nested deeper than " + MAX_DEPTH + " levels (at line " + line(e) + ")");
        }
        switch (e.getEventId()) {
            case Scalar -> {
                ScalarEvent s = (ScalarEvent) e;
                return isNull(s) ? NODES.nullNode() : NODES.textNode(s.getValue());
            }
            case Alias -> throw alias(key, (AliasEvent) e);
            case MappingStart -> {
                return mapping(key, depth);
            }
            case SequenceStart -> {
                ArrayNode list = NODES.arrayNode();
                while (!parser.checkEvent(Event.ID.SequenceEnd)) {
                    list.add(value(key + "[" + list.size() + "]", depth + 1));
                }
                parser.getEvent();
                return list;
            }
            default -> throw new ConfigException(where(key), "unexpected " + e.getEventId() + " at line " + line(e));
        }
    }

    private ObjectNode mapping(String key, int depth) {
        ObjectNode map = NODES.objectNode();
        while (!parser.checkEvent(Event.ID.MappingEnd)) {
            Event k = event();
            if (k instanceof AliasEvent a) {
                throw alias(key, a);
            }
            if (!(k instanceof ScalarEvent name)) {
                throw new ConfigException(
                        where(key), "has a key at line " + line(k) + " that is not a plain name (a mapping or a list)");
            }
            if (name.getValue().isBlank()) {
                // A blank name would make a blank key in every message about it.
                throw new ConfigException(where(key), "has an empty key at line " + line(k));
            }
            String child = key.isEmpty() ? name.getValue() : key + "." + name.getValue();
            // Not "the last one wins": a second host: would silently rebind the admin server, a second
            // routes: replace the first list.
            if (map.has(name.getValue())) {
                throw new ConfigException(child, "is given twice (again at line " + line(k) + "); give each key once");
            }
            map.set(name.getValue(), value(child, depth + 1));
        }
        parser.getEvent();
        return map;
    }

    /** YAML's null: a plain, untagged {@code ~}, {@code null} or nothing; every other scalar is text. */
    private static boolean isNull(ScalarEvent s) {
        if (!s.isPlain() || s.getTag() != null) {
            return false;
        }
        return switch (s.getValue()) {
            case "", "~", "null", "Null", "NULL" -> true;
            default -> false;
        };
    }

    private static ConfigException alias(String key, AliasEvent a) {
        return new ConfigException(
                where(key),
                "is an alias (*" + a.getAnchor() + ") at line " + line(a)
                        + "; aliases are not supported: give the value itself");
    }

    /** @return the next event; the parser reports a document that ends too soon as a syntax error */
    private Event event() {
        Event e = parser.getEvent();
        if (e == null) {
            throw new ConfigException("(file)", "not valid YAML: the document ends too soon");
        }
        return e;
    }

    private void next(Event.ID expected) {
        Event e = event();
        if (!e.is(expected)) {
            throw new ConfigException("(file)", "unexpected " + e.getEventId() + " at line " + line(e));
        }
    }

    private static String where(String key) {
        return key.isEmpty() ? "(root)" : key;
    }

    private static int line(Event e) {
        Mark m = e == null ? null : e.getStartMark();
        return m == null ? 0 : m.getLine() + 1;
    }
}
