package io.txoutbox.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.txoutbox.Redaction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Where the server's texts leave the process, each through {@link Redaction}: the standard streams
 * (which carry the log, slf4j-simple writing to {@code System.err}, the CLI's messages and any stack
 * trace), {@code java.util.logging} (pgjdbc logs a URL it cannot parse there, password included: it is
 * routed to SLF4J and so to the same stream), and the admin API's JSON (which the dashboard shows).
 */
public final class RedactedOutput {
    private static volatile PrintStream unredactedOut;

    private RedactedOutput() {}

    /**
     * Routes {@code java.util.logging} to SLF4J and replaces {@code System.out} and {@code System.err} by
     * redacting streams. For a process's {@code main}: it changes process-wide state.
     */
    public static void install() {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        if (unredactedOut == null) {
            unredactedOut = System.out;
        }
        System.setOut(stream(System.out));
        System.setErr(stream(System.err));
    }

    /**
     * The standard output as it was before {@link #install()}: for the one text a user started the process
     * to be shown whole, the demo's banner with its own random admin token. Nothing else may write here.
     *
     * @return the stream, or {@code null} when {@link #install()} did not run in this process
     */
    public static PrintStream unredactedOut() {
        return unredactedOut;
    }

    /**
     * @param target where the text goes
     * @return a stream that writes to {@code target} line by line, each line through {@link Redaction}
     */
    public static PrintStream stream(OutputStream target) {
        return new PrintStream(new Lines(target), true, StandardCharsets.UTF_8);
    }

    /**
     * @param body an API answer
     * @return a copy whose every string (names and values) went through {@link Redaction}; the structure
     *     is kept, so the answer stays valid JSON
     */
    public static JsonNode json(JsonNode body) {
        if (body == null) {
            return null;
        }
        if (body.isTextual()) {
            return JsonNodeFactory.instance.textNode(Redaction.redact(body.textValue()));
        }
        if (body.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> e : body.properties()) {
                out.set(Redaction.redact(e.getKey()), json(e.getValue()));
            }
            return out;
        }
        if (body.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode(body.size());
            body.forEach(item -> out.add(json(item)));
            return out;
        }
        return body;
    }

    /**
     * Holds each line until it ends (or until a flush, or until it is long), so that a secret is redacted
     * whole and not written half before and half after a write boundary.
     */
    private static final class Lines extends OutputStream {
        private static final int MAX_LINE = 64 * 1024;

        private final OutputStream target;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private final ReentrantLock lock = new ReentrantLock();

        Lines(OutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            lock.lock();
            try {
                line.write(b);
                if (b == '\n' || line.size() >= MAX_LINE) {
                    emit();
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            lock.lock();
            try {
                for (int i = off; i < off + len; i++) {
                    write(b[i]);
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flush() throws IOException {
            lock.lock();
            try {
                emit();
                target.flush();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() throws IOException {
            flush();
        }

        private void emit() throws IOException {
            if (line.size() == 0) {
                return;
            }
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            target.write(Redaction.redact(text).getBytes(StandardCharsets.UTF_8));
        }
    }
}
