package io.txoutbox.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.Redaction;
import io.txoutbox.internal.admin.AdminJson;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.source.Activity;
import io.txoutbox.server.source.RelaySource;
import io.txoutbox.server.source.RouteStats;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The admin API's answers as JSON: a source, its stats with what only the server knows (its relays since
 * start, its routes, its throughput), a page of dead events; and the dead-event selectors of its
 * requests. {@link AdminServer} routes the requests and sends these.
 */
final class AdminViews {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AdminViews() {}

    static ObjectNode describe(RelaySource s) {
        ServerConfig.Source c = s.config();
        ObjectNode n = JSON.createObjectNode();
        n.put("name", s.name());
        n.put("status", s.status());
        n.put("table", s.outbox() == null ? c.table() : s.outbox().table());
        n.put("dialect", s.dialect() == null ? c.dialect() : s.dialect().name());
        n.put("jdbcUrl", Redaction.redact(c.jdbcUrl()));
        n.put("user", c.user());
        n.put("ordered", c.ordered() == null ? null : c.ordered().name().toLowerCase());
        n.put("relays", s.relays().size());
        n.put("batchSize", c.relay().settings().batchSize());
        ArrayNode routes = n.putArray("routes");
        s.transports().forEach(routes::add);
        return n;
    }

    /**
     * The table's figures as the actuator endpoint answers them too ({@link AdminJson.Stats}), with what
     * only the server knows around them: the source, its relays since start, its routes and its recent
     * throughput.
     */
    static ObjectNode stats(RelaySource s, int maxTypes) {
        ObjectNode n = JSON.createObjectNode();
        n.put("source", s.name());
        n.put("status", s.status());
        n.setAll((ObjectNode)
                JSON.valueToTree(AdminJson.stats(s.outbox().table(), s.admin().stats(), maxTypes)));
        Activity a = s.activity();
        Activity.Counts t = a.totals();
        ObjectNode relayed = n.putObject("relayed");
        relayed.put("published", t.published()).put("retried", t.retried()).put("dead", t.dead());
        relayed.put("errors", a.errors());
        ObjectNode types = relayed.putObject("byType");
        a.byType().forEach((type, c) -> types.putObject(type)
                .put("published", c.published())
                .put("retried", c.retried())
                .put("dead", c.dead()));
        n.set("routes", routes(s));
        ArrayNode history = n.putArray("throughput");
        for (Activity.Point p : a.history()) {
            history.addObject()
                    .put("t", p.epochMillis())
                    .put("published", p.published())
                    .put("retried", p.retried())
                    .put("dead", p.dead());
        }
        return n;
    }

    /** Per route: what its broker did since start, whether it is failing, and its recent latency. */
    private static ArrayNode routes(RelaySource s) {
        ArrayNode list = JSON.createArrayNode();
        for (RouteStats r : s.routes()) {
            RouteStats.Snapshot x = r.snapshot();
            ObjectNode o = list.addObject();
            o.put("name", x.name()).put("transport", x.transport()).put("target", x.target());
            x.types().forEach(o.putArray("types")::add);
            o.put("published", x.published())
                    .put("retried", x.retried())
                    .put("dead", x.dead())
                    .put("failures", x.failures())
                    .put("heldBack", x.heldBack())
                    .put("failing", x.failing())
                    .put("lastError", x.lastError());
            o.putObject("recent")
                    .put("seconds", RouteStats.WINDOW)
                    .put("publishedPerSecond", x.recentPerSecond())
                    .put("meanLatencyMillis", x.recentMeanLatencyMillis())
                    .put("maxLatencyMillis", x.recentMaxLatencyMillis());
        }
        return list;
    }

    /** One page of dead events, as the actuator endpoint answers it too ({@link AdminJson.DeadPage}). */
    static JsonNode dead(RelaySource s, Map<String, String> query) {
        DeadQuery q = AdminJson.deadQuery(query.get("type"), query.get("limit"), query.get("after"));
        return JSON.valueToTree(AdminJson.deadPage(s.admin().dead(q), q));
    }

    static DeadSelector selector(JsonNode body) {
        JsonNode ids = body.get("ids");
        JsonNode type = body.get("type");
        boolean all = body.path("all").asBoolean(false);
        int given = (ids != null ? 1 : 0) + (type != null ? 1 : 0) + (all ? 1 : 0);
        if (given != 1) {
            throw new AdminServer.HttpError(
                    400, "give exactly one of {\"ids\": [...]}, {\"type\": \"...\"} or {\"all\": true}");
        }
        if (ids != null) {
            if (!ids.isArray() || ids.isEmpty() || ids.size() > DeadQuery.MAX_LIMIT) {
                throw new AdminServer.HttpError(
                        400, "ids must be a list of 1 to " + DeadQuery.MAX_LIMIT + " event ids");
            }
            Set<UUID> set = new LinkedHashSet<>();
            for (JsonNode id : ids) {
                set.add(uuid("ids", id.asText()));
            }
            return DeadSelector.ids(set);
        }
        if (type != null) {
            if (!type.isTextual() || type.asText().isBlank()) {
                throw new AdminServer.HttpError(400, "type must be a non-blank event type");
            }
            return DeadSelector.type(type.asText());
        }
        return DeadSelector.all();
    }

    static String describe(DeadSelector s) {
        if (s.ids() != null) {
            return s.ids().size() + " id(s)";
        }
        return s.eventType() != null ? "type " + s.eventType() : "all";
    }

    static UUID uuid(String field, String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new AdminServer.HttpError(400, field + ": '" + text + "' is not an event id (a UUID)");
        }
    }
}
