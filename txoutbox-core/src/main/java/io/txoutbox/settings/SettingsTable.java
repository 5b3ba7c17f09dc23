package io.txoutbox.settings;

import java.util.List;

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

    private static String cell(String text) {
        // A "<" before a letter would open an HTML tag in the rendered table: <table>_published.
        return text.replace("|", "\\|").replaceAll("<(?=[A-Za-z/!])", "&lt;").replace("\n", " ");
    }
}
