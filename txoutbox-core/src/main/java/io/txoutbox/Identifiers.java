package io.txoutbox;

import java.util.regex.Pattern;

/**
 * The rule for the SQL identifiers txoutbox puts into statements (table, schema and column names). They
 * are never quoted or escaped, only validated: lower-case letters, digits and underscores, starting with
 * a letter or underscore, so that every database folds them the same way and nothing can be injected.
 */
public final class Identifiers {
    /** The longest table name: leaves room for the index and trigger names derived from it. */
    public static final int MAX_TABLE = 48;
    /** The longest column name (PostgreSQL's limit is 63). */
    public static final int MAX_COLUMN = 63;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

    private Identifiers() {}

    /**
     * @param field the setting being checked, for the message
     * @param value the identifier
     * @param max its longest allowed length
     * @return {@code value}
     * @throws OutboxValidationException naming the setting, the value and the rule
     */
    public static String check(String field, String value, int max) {
        if (value == null || value.isEmpty()) {
            throw new OutboxValidationException(field, null, field + " is missing; it must name an SQL identifier");
        }
        if (value.length() > max) {
            throw OutboxValidationException.tooLong(field, field + " '" + value + "'", value.length(), max);
        }
        if (!IDENTIFIER.matcher(value).matches()) {
            throw new OutboxValidationException(
                    field,
                    IDENTIFIER.pattern(),
                    field + " '" + value.replaceAll("\\p{Cntrl}", "?") + "' is not a valid identifier: use"
                            + " lower-case letters, digits and underscores, starting with a letter or"
                            + " underscore (" + IDENTIFIER.pattern() + ")");
        }
        return value;
    }
}
