package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.psql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;

/**
 * Rows written the way a service in any language writes them (plain SQL through psql), and what every
 * broker route must carry of them: the id, the standard headers, the row's own header, the exact bytes.
 */
public final class PsqlRows {
    /** Not UTF-8, with a NUL and a high byte: the payload must arrive byte for byte. */
    static final byte[] PAYLOAD = HexFormat.of().parseHex("00ff10c3287f");

    private PsqlRows() {}

    /** @return the id of one row of {@code type} inserted into {@code table}, tenant and header set */
    public static UUID insert(String table, String type) throws Exception {
        UUID id = UUID.randomUUID();
        String out = psql("INSERT INTO " + table
                + " (id, aggregate_type, aggregate_id, event_type, payload, content_type, headers, tenant_id)"
                + " VALUES ('" + id + "', 'order', 'o-42', '" + type + "', decode('"
                + HexFormat.of().formatHex(PAYLOAD)
                + "', 'hex'), 'application/octet-stream', '{\"x-trace\": \"trace-" + type + "\"}', 'tenant-7')");
        assertThat(out).contains("INSERT 0 1");
        return id;
    }

    /** What a broker delivered for a row {@link #insert} wrote: its headers and its payload, byte for byte. */
    public static void assertDelivered(Map<String, String> headers, byte[] payload, UUID id, String type) {
        assertThat(payload).isEqualTo(PAYLOAD);
        assertThat(headers)
                .containsEntry("event-id", id.toString())
                .containsEntry("event-type", type)
                .containsEntry("aggregate-type", "order")
                .containsEntry("aggregate-id", "o-42")
                .containsEntry("tenant-id", "tenant-7")
                .containsEntry("content-type", "application/octet-stream")
                .containsEntry("x-trace", "trace-" + type);
    }

    /** Waits until the relay marked the row published (and so deleted it). */
    public static void awaitGone(String table, UUID id) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> count("SELECT count(*) FROM " + table + " WHERE id = '" + id + "'") == 0);
    }
}
