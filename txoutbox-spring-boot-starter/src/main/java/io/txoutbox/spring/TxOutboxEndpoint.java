package io.txoutbox.spring;

import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.internal.admin.AdminJson;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code txoutbox} actuator endpoint. Reads: {@code GET /actuator/txoutbox} (stats) and {@code GET
 * /actuator/txoutbox/dead?type=&limit=&after=} (one page of dead events, without payloads). Write: {@code
 * POST /actuator/txoutbox/revive} with a JSON body {@code {"ids": "id1,id2"}} (comma-separated: the
 * actuator reads string values), {@code {"type": "..."}} or {@code {"all": true}}. Exposure and security
 * are the application's: expose it with {@code management.endpoints.web.exposure.include=txoutbox} and
 * protect the write operation.
 *
 * <p>The reads answer the same JSON as the relay server's admin API: the same fields, the same page size
 * ({@value AdminJson#DEFAULT_PAGE_SIZE}) and paging, the same bound of {@value AdminJson#DEFAULT_MAX_TYPES}
 * event types with a row of their own. Their Java methods are package-private: what they return is that
 * JSON's internal records (txoutbox-admin's), and the HTTP answer, not those records, is the API; the
 * actuator calls them all the same.
 */
@Endpoint(id = "txoutbox")
public class TxOutboxEndpoint {
    private final Outbox outbox;

    /** @param outbox the outbox this endpoint reports on and operates */
    public TxOutboxEndpoint(Outbox outbox) {
        this.outbox = outbox;
    }

    /** @return counts by state and type, and the age of the oldest unpublished event */
    @ReadOperation
    AdminJson.Stats stats() {
        return AdminJson.stats(outbox.table(), outbox.admin().stats(), AdminJson.DEFAULT_MAX_TYPES);
    }

    /**
     * @param section {@code dead}
     * @param type only this event type
     * @param limit the page size, 1 to 1,000 (default 50)
     * @param after the {@code next} of the previous page
     * @return one page of dead events, by id, with their last error, and the id to ask after next
     * @throws InvalidEndpointRequestException for another section or a bad parameter (HTTP 400)
     */
    @ReadOperation
    AdminJson.DeadPage dead(
            @Selector String section, @Nullable String type, @Nullable String limit, @Nullable String after) {
        if (!"dead".equals(section)) {
            throw new InvalidEndpointRequestException(
                    "unknown section '" + section + "'; use /dead", "unknown section; use /dead");
        }
        DeadQuery query;
        try {
            query = AdminJson.deadQuery(type, limit, after);
        } catch (OutboxValidationException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
        return AdminJson.deadPage(outbox.admin().dead(query), query);
    }

    /**
     * Puts dead events back to pending with a fresh attempt budget, and wakes the relays.
     *
     * @param action {@code revive}
     * @param ids the dead events to revive, comma-separated
     * @param type every dead event of this type
     * @param all every dead event; must be {@code true} when neither ids nor type is given
     * @return how many were revived
     * @throws InvalidEndpointRequestException for another action, no selection or a bad id (HTTP 400)
     */
    @WriteOperation
    public Map<String, Object> revive(
            @Selector String action, @Nullable String ids, @Nullable String type, @Nullable Boolean all) {
        if (!"revive".equals(action)) {
            throw new InvalidEndpointRequestException(
                    "unknown action '" + action + "'; use /revive", "unknown action; use /revive");
        }
        DeadSelector selector;
        if (ids != null && !ids.isBlank()) {
            selector = DeadSelector.ids(Arrays.stream(ids.split(","))
                    .map(String::trim)
                    .filter(id -> !id.isEmpty())
                    .map(TxOutboxEndpoint::uuid)
                    .toList());
        } else if (type != null && !type.isBlank()) {
            selector = DeadSelector.type(type);
        } else if (Boolean.TRUE.equals(all)) {
            selector = DeadSelector.all();
        } else {
            throw new InvalidEndpointRequestException(
                    "name the dead events to revive: ids, type, or all=true",
                    "name the dead events to revive: ids, type, or all=true");
        }
        return Map.of("revived", outbox.admin().revive(selector));
    }

    private static UUID uuid(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(
                    "'" + value + "' is not an event id (a UUID)", "not an event id (a UUID)");
        }
    }
}
