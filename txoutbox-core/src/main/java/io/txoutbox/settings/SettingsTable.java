package io.txoutbox.settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The documentation's configuration tables, generated from the descriptors: a Markdown table of the
 * settings as one front end spells them. The README's tables are this text between markers, and a test
 * fails when they drift from the code.
 */
public final class SettingsTable {
    private SettingsTable() {}

    /**
     * @param settings the settings, in the order to show
     * @param spelling how the table's front end spells them
     * @return a Markdown table: setting, default, limits, what it does
     */
    public static String markdown(List<Setting<?>> settings, Spelling spelling) {
        StringBuilder out = new StringBuilder("| Setting | Default | Limits | What it does |\n|---|---|---|---|\n");
        for (Setting<?> s : settings) {
            out.append("| `")
                    .append(spelling.of(s))
                    .append("` | ")
                    .append(cell(s.defaultText()))
                    .append(" | ")
                    .append(cell(s.limits()))
                    .append(" | ")
                    .append(cell(s.doc()))
                    .append(" |\n");
        }
        return out.toString();
    }

    /**
     * @param document a Markdown document
     * @param marker the table's name between its markers, {@code relay}: {@code <!-- settings:relay -->}
     *     and {@code <!-- /settings:relay -->}
     * @param table the table to put between them
     * @return the document with the table between the markers
     * @throws IllegalArgumentException when the markers are missing
     */
    public static String replace(String document, String marker, String table) {
        String open = "<!-- settings:" + marker + " -->\n";
        String close = "<!-- /settings:" + marker + " -->";
        int from = document.indexOf(open);
        int to = document.indexOf(close);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("the document has no markers " + open.strip() + " ... " + close);
        }
        return document.substring(0, from + open.length()) + table + document.substring(to);
    }

    /**
     * Checks a document's generated tables against the descriptors, and rewrites the stale ones on request:
     * what the build's tests of the READMEs call.
     *
     * @param document a Markdown document with markers ({@link #replace})
     * @param tables each table by the name between its markers, in any order
     * @param rewrite write the document with the tables in place when one is stale
     * @return whether every table was current (a rewrite still answers {@code false}, so that the run
     *     that rewrote a document says so)
     * @throws IOException when the document cannot be read or written
     * @throws IllegalArgumentException when a table's markers are missing
     */
    public static boolean current(Path document, Map<String, String> tables, boolean rewrite) throws IOException {
        String doc = Files.readString(document, StandardCharsets.UTF_8);
        String want = doc;
        for (Map.Entry<String, String> t : new TreeMap<>(tables).entrySet()) {
            want = replace(want, t.getKey(), t.getValue());
        }
        if (want.equals(doc)) {
            return true;
        }
        if (rewrite) {
            Files.writeString(document, want, StandardCharsets.UTF_8);
        }
        return false;
    }

    private static String cell(String text) {
        // A "<" before a letter would open an HTML tag in the rendered table: <table>_published.
        return text.replace("|", "\\|").replaceAll("<(?=[A-Za-z/!])", "&lt;").replace("\n", " ");
    }
}
