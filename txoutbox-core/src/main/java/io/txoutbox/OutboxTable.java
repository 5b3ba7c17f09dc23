package io.txoutbox;

/**
 * The outbox table's name and column mapping. The name may be qualified by a schema ({@code
 * events.outbox}); each part is a validated identifier. Columns default to txoutbox's names; remap them
 * when another reader of the table expects its own (see {@link Columns#DEBEZIUM}). Objects derived from
 * the table (indexes, triggers) are named after {@link #name()}, without the schema.
 *
 * @param schema the schema, or {@code null} for the connection's current schema
 * @param name the table name, at most {@value Identifiers#MAX_TABLE} characters
 * @param columns the names of the mappable columns
 */
public record OutboxTable(String schema, String name, Columns columns) {
    /** The default table name. */
    public static final String DEFAULT_NAME = "outbox";

    /** Validates every identifier. */
    public OutboxTable {
        if (schema != null) {
            Identifiers.check("txoutbox.table (schema part)", schema, Identifiers.MAX_COLUMN);
        }
        Identifiers.check("txoutbox.table", name, Identifiers.MAX_TABLE);
        if (columns == null) {
            columns = Columns.DEFAULT;
        }
    }

    /**
     * @param qualifiedName {@code table} or {@code schema.table}
     * @return the table with the default columns
     */
    public static OutboxTable of(String qualifiedName) {
        if (qualifiedName == null) {
            return new OutboxTable(null, null, Columns.DEFAULT);
        }
        int dot = qualifiedName.indexOf('.');
        if (dot < 0) {
            return new OutboxTable(null, qualifiedName, Columns.DEFAULT);
        }
        return new OutboxTable(qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1), Columns.DEFAULT);
    }

    /**
     * @param columns the column mapping
     * @return this table with other column names
     */
    public OutboxTable withColumns(Columns columns) {
        return new OutboxTable(schema, name, columns);
    }

    /** @return the name as used in SQL: {@code schema.table} or {@code table} */
    public String qualifiedName() {
        return schema == null ? name : schema + "." + name;
    }

    /** @return the PostgreSQL notification channel relays of this table listen on */
    public String channel() {
        return "txoutbox_" + (schema == null ? "" : schema + "_") + name;
    }

    @Override
    public String toString() {
        return qualifiedName();
    }

    /**
     * The names of the columns another reader of the table may want to choose: Debezium's outbox event
     * router, for one, reads {@code id}, {@code aggregatetype}, {@code aggregateid}, {@code type} and
     * {@code payload} by default. The other columns keep txoutbox's names.
     *
     * @param id the event id (uuid)
     * @param aggregateType the aggregate type: Debezium routes by it
     * @param aggregateId the aggregate id: Debezium's message key
     * @param eventType the event type
     * @param payload the payload bytes
     */
    public record Columns(String id, String aggregateType, String aggregateId, String eventType, String payload) {
        /** txoutbox's own names. */
        public static final Columns DEFAULT =
                new Columns("id", "aggregate_type", "aggregate_id", "event_type", "payload");

        /** The names Debezium's outbox event router reads without any {@code table.field.*} setting. */
        public static final Columns DEBEZIUM = new Columns("id", "aggregatetype", "aggregateid", "type", "payload");

        /** Validates every name. */
        public Columns {
            Identifiers.check("txoutbox.columns.id", id, Identifiers.MAX_COLUMN);
            Identifiers.check("txoutbox.columns.aggregate-type", aggregateType, Identifiers.MAX_COLUMN);
            Identifiers.check("txoutbox.columns.aggregate-id", aggregateId, Identifiers.MAX_COLUMN);
            Identifiers.check("txoutbox.columns.event-type", eventType, Identifiers.MAX_COLUMN);
            Identifiers.check("txoutbox.columns.payload", payload, Identifiers.MAX_COLUMN);
        }
    }
}
