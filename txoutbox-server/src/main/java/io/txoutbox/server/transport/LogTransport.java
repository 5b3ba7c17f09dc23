package io.txoutbox.server.transport;

import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.spi.Publisher;
import java.time.Duration;

/** {@code transport: log}: logs each event's id, type and aggregate (never the payload), and publishes it. */
final class LogTransport {
    private LogTransport() {}

    static Transports.Spec parse(ConfigNode settings) {
        String level = settings.string("level", "info");
        if (!level.equals("info") && !level.equals("debug")) {
            throw new ConfigException(settings.key("level"), "expected info or debug, got '" + level + "'");
        }
        boolean debug = level.equals("debug");
        String key = settings.path();
        return new Transports.Spec("log", key) {
            @Override
            public String describe() {
                return "log (event ids and types at " + level + ", never payloads)";
            }

            @Override
            public Publisher open() {
                return new LogSink(debug);
            }

            @Override
            public String check(Duration timeout) {
                return "the server's own log (nothing to reach)";
            }
        };
    }
}
