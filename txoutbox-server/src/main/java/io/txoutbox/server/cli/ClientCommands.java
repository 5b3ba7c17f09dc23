package io.txoutbox.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.txoutbox.server.yaml.ConfigNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The commands that talk to a running server's admin API over HTTP: they need only the server's URL
 * and its token, never database credentials, and they go through the same checks and logs as the
 * dashboard.
 */
public final class ClientCommands {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ClientCommands() {}

    /** A failed call, with the exit code it maps to. */
    public static final class ClientException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final int exitCode;

        ClientException(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    /** Where the server is and how to authenticate; shared by every client command. */
    public static class Connection {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(
                names = {"-s", "--server"},
                paramLabel = "URL",
                description = "The server's base URL (default: TXOUTBOX_SERVER, else http://127.0.0.1:8080).")
        String server;

        @Option(
                names = "--token",
                paramLabel = "TOKEN",
                description =
                        "The admin token (default: TXOUTBOX_ADMIN_TOKEN; prefer the variable: options show in ps).")
        String token;

        @Option(
                names = "--source",
                paramLabel = "NAME",
                description = "The source (default: the server's only source).")
        String source;

        @Option(names = "--json", description = "Prints the server's JSON answer as it is.")
        boolean json;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        JsonNode call(String method, String path, JsonNode body) {
            String base = server != null
                    ? server
                    : TxoutboxCli.env().getOrDefault("TXOUTBOX_SERVER", "http://127.0.0.1:8080");
            String t = token != null ? token : TxoutboxCli.env().get("TXOUTBOX_ADMIN_TOKEN");
            if (t == null || t.isBlank()) {
                throw new ClientException(TxoutboxCli.USAGE, "no admin token: set TXOUTBOX_ADMIN_TOKEN (or --token)");
            }
            URI uri;
            try {
                uri = URI.create(base.replaceAll("/+$", "") + path);
            } catch (IllegalArgumentException e) {
                throw new ClientException(TxoutboxCli.USAGE, "--server '" + base + "' is not a URL: " + e.getMessage());
            }
            HttpRequest.Builder rb = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + t)
                    .header("Accept", "application/json");
            if (body == null) {
                rb.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                rb.header("Content-Type", "application/json");
                rb.method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
            }
            HttpResponse<String> response;
            try {
                HttpClient client = HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build();
                response = client.send(rb.build(), HttpResponse.BodyHandlers.ofString());
            } catch (ConnectException e) {
                throw new ClientException(
                        TxoutboxCli.FAILURE, "cannot reach the server at " + base + " (is it running?)");
            } catch (IOException e) {
                throw new ClientException(TxoutboxCli.FAILURE, "calling " + base + " failed: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClientException(TxoutboxCli.FAILURE, "interrupted");
            }
            JsonNode answer;
            try {
                answer = JSON.readTree(response.body());
            } catch (IOException e) {
                throw new ClientException(
                        TxoutboxCli.FAILURE, "the server answered HTTP " + response.statusCode() + " with no JSON");
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) {
                return answer;
            }
            String message = "HTTP " + status + ": " + answer.path("error").asText("(no message)");
            throw new ClientException(status >= 500 ? TxoutboxCli.FAILURE : TxoutboxCli.USAGE, message);
        }

        /** The source's path, asking the server when there is only one. */
        String sourcePath() {
            String name = source;
            if (name == null) {
                JsonNode all = call("GET", "/api/sources", null).path("sources");
                if (all.size() != 1) {
                    List<String> names = new ArrayList<>();
                    all.forEach(s -> names.add(s.path("name").asText()));
                    throw new ClientException(
                            TxoutboxCli.USAGE,
                            "the server has several sources " + names + ": choose one with --source");
                }
                name = all.get(0).path("name").asText();
            }
            return "/api/sources/"
                    + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
        }

        /**
         * Prints an answer: as it is with {@code --json}, else as one line for people.
         *
         * @param answer the server's JSON answer
         * @param line the line for people, from the answer
         * @return {@link TxoutboxCli#OK}
         */
        int print(JsonNode answer, Function<JsonNode, String> line) {
            if (json) {
                printJson(answer);
            } else {
                out().println(line.apply(answer));
            }
            return TxoutboxCli.OK;
        }

        void printJson(JsonNode n) {
            try {
                out().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n));
            } catch (IOException e) {
                throw new ClientException(TxoutboxCli.FAILURE, e.toString());
            }
        }
    }

    /** {@code txoutbox stats}. */
    @Command(
            name = "stats",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Shows a source's backlog, dead events, throughput and counts by type.")
    public static final class Stats extends Connection implements Callable<Integer> {
        @Override
        public Integer call() {
            JsonNode s = call("GET", sourcePath() + "/stats", null);
            if (json) {
                printJson(s);
                return TxoutboxCli.OK;
            }
            PrintWriter o = out();
            o.printf(
                    "source %s: %s%n",
                    s.path("source").asText(), s.path("status").asText());
            o.printf(
                    "  pending %d (retrying %d), in flight %d, dead %d, oldest pending %s%n",
                    s.path("pending").asLong(),
                    s.path("retrying").asLong(),
                    s.path("inFlight").asLong(),
                    s.path("dead").asLong(),
                    Duration.ofMillis(s.path("oldestPendingAgeMillis").asLong()));
            JsonNode r = s.path("relayed");
            o.printf(
                    "  since start: published %d, retried %d, dead %d%n",
                    r.path("published").asLong(),
                    r.path("retried").asLong(),
                    r.path("dead").asLong());
            o.printf("  %-32s %10s %10s %8s %8s%n", "event type", "published", "pending", "dead", "retried");
            JsonNode table = s.path("byType");
            JsonNode relayed = r.path("byType");
            java.util.TreeSet<String> types = new java.util.TreeSet<>();
            table.fieldNames().forEachRemaining(types::add);
            relayed.fieldNames().forEachRemaining(types::add);
            for (String type : types) {
                o.printf(
                        "  %-32s %10d %10d %8d %8d%n",
                        type,
                        relayed.path(type).path("published").asLong(),
                        table.path(type).path("pending").asLong(),
                        table.path(type).path("dead").asLong(),
                        relayed.path(type).path("retried").asLong());
            }
            return TxoutboxCli.OK;
        }
    }

    /** {@code txoutbox dead}. */
    @Command(
            name = "dead",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Lists dead events with the reason of their last failure (payloads are never shown).")
    public static final class Dead extends Connection implements Callable<Integer> {
        @Option(names = "--type", paramLabel = "TYPE", description = "Only this event type.")
        String type;

        @Option(
                names = "--limit",
                paramLabel = "N",
                defaultValue = "50",
                description = "Page size, 1 to 1000 (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--after", paramLabel = "ID", description = "The page after this event id (printed as 'next').")
        String after;

        @Override
        public Integer call() {
            StringBuilder q = new StringBuilder("?limit=").append(limit);
            if (type != null) {
                q.append("&type=").append(URLEncoder.encode(type, StandardCharsets.UTF_8));
            }
            if (after != null) {
                q.append("&after=").append(URLEncoder.encode(after, StandardCharsets.UTF_8));
            }
            JsonNode page = call("GET", sourcePath() + "/dead" + q, null);
            if (json) {
                printJson(page);
                return TxoutboxCli.OK;
            }
            PrintWriter o = out();
            for (Iterator<JsonNode> it = page.path("events").elements(); it.hasNext(); ) {
                JsonNode e = it.next();
                o.printf(
                        "%s  %-28s %s/%s  attempts %d  %s%n",
                        e.path("id").asText(),
                        e.path("eventType").asText(),
                        e.path("aggregateType").asText(),
                        e.path("aggregateId").asText(),
                        e.path("attempts").asInt(),
                        e.path("lastError").asText());
            }
            if (page.path("events").isEmpty()) {
                o.println("no dead events");
            }
            if (!page.path("next").isNull()) {
                o.println("next: --after " + page.path("next").asText());
            }
            return TxoutboxCli.OK;
        }
    }

    /** Which dead events: ids, a type, or all. */
    static final class Selection {
        @Option(
                names = "--id",
                paramLabel = "ID",
                split = ",",
                description = "These event ids (repeat or separate with commas).")
        List<String> ids;

        @Option(names = "--type", paramLabel = "TYPE", description = "Every dead event of this type.")
        String type;

        @Option(names = "--all", description = "Every dead event.")
        boolean all;

        JsonNode body() {
            ObjectNode n = JSON.createObjectNode();
            if (ids != null) {
                ids.forEach(n.putArray("ids")::add);
            } else if (type != null) {
                n.put("type", type);
            } else {
                n.put("all", true);
            }
            return n;
        }
    }

    /** A command on a selection of dead events: a call of the API with the selection as its body. */
    abstract static class OnDeadEvents extends Connection implements Callable<Integer> {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Selection selection;

        private final String method;
        private final String path;
        private final String done;

        /**
         * @param method the API call's method
         * @param path its path under the source
         * @param done what was done, as the answer's field names it ({@code revived})
         */
        OnDeadEvents(String method, String path, String done) {
            this.method = method;
            this.path = path;
            this.done = done;
        }

        @Override
        public Integer call() {
            return print(
                    call(method, sourcePath() + path, selection.body()),
                    r -> done + " " + r.path(done).asLong() + " dead event(s)");
        }
    }

    /** {@code txoutbox revive}. */
    @Command(
            name = "revive",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Puts dead events back to pending with a fresh attempt budget; relays publish them at once.")
    public static final class Revive extends OnDeadEvents {
        Revive() {
            super("POST", "/revive", "revived");
        }
    }

    /** {@code txoutbox delete-dead}. */
    @Command(
            name = "delete-dead",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Deletes dead events for good.")
    public static final class DeleteDead extends OnDeadEvents {
        DeleteDead() {
            super("DELETE", "/dead", "deleted");
        }
    }

    /** {@code txoutbox purge}. */
    @Command(
            name = "purge",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Deletes published events kept by retain-published that are older than a duration.")
    public static final class Purge extends Connection implements Callable<Integer> {
        @Option(
                names = "--older-than",
                required = true,
                paramLabel = "AGE",
                description = "e.g. 7d, 12h, 30m or PT30M.")
        String olderThan;

        @Override
        public Integer call() {
            try {
                ConfigNode.parseDuration(olderThan);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--older-than: " + e.getMessage());
            }
            return print(
                    call(
                            "POST",
                            sourcePath() + "/purge",
                            JSON.createObjectNode().put("olderThan", olderThan)),
                    r -> "purged " + r.path("purged").asLong() + " published event(s)");
        }
    }

    /** A command that changes a source's status: {@code pause} or {@code resume}. */
    abstract static class StatusChange extends Connection implements Callable<Integer> {
        private final String path;

        /** @param path the API call's path under the source, {@code /pause} */
        StatusChange(String path) {
            this.path = path;
        }

        @Override
        public Integer call() {
            return print(
                    call("POST", sourcePath() + path, JSON.createObjectNode()),
                    r -> "status: " + r.path("status").asText());
        }
    }

    /** {@code txoutbox pause}. */
    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Stops claiming new batches (the batch in flight completes).")
    public static final class Pause extends StatusChange {
        Pause() {
            super("/pause");
        }
    }

    /** {@code txoutbox resume}. */
    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            header = "Claims again after pause.")
    public static final class Resume extends StatusChange {
        Resume() {
            super("/resume");
        }
    }
}
