package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import io.txoutbox.webhook.WebhookEndpoint;
import io.txoutbox.webhook.WebhookPublisher;
import io.txoutbox.webhook.WebhookSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code transport: {webhook: ...}}: signed HTTP POSTs, through {@code txoutbox-webhook}. */
final class WebhookTransport {
    private WebhookTransport() {}

    static Transports.Spec parse(ConfigNode settings) {
        // The publisher's settings are the library's, read through their descriptors and refused under
        // their keys here; the endpoints (URLs, secrets from files or the environment) are the server's to read.
        WebhookSettings checked;
        try {
            checked = WebhookSettings.of(
                    SettingReader.values(settings, WebhookSettings.SETTINGS), Spelling.keys(settings.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        List<ConfigNode> items = settings.objects("endpoints");
        if (items.isEmpty()) {
            throw new ConfigException(
                    settings.key("endpoints"), "is required: at least one endpoint with url and secret");
        }
        List<WebhookEndpoint> endpoints = new ArrayList<>();
        List<String> described = new ArrayList<>();
        for (ConfigNode e : items) {
            String url = e.requiredString("url");
            WebhookEndpoint.Builder b = WebhookEndpoint.builder(url);
            String name = e.string("name", null);
            ConfigNode.ifGiven(name, b::name);
            List<String> secrets = new ArrayList<>();
            Secret one = e.secret("secret");
            if (one != null) {
                secrets.add(one.value());
            }
            for (String s : e.strings("secrets")) {
                secrets.add(s);
            }
            if (secrets.isEmpty()) {
                throw new ConfigException(e.key("secret"), "is required: every webhook is signed (whsec_<base64>)");
            }
            secrets.forEach(b::secret);
            List<String> types = e.strings("event-types");
            if (!types.isEmpty()) {
                b.eventTypes(types.toArray(String[]::new));
            }
            e.stringMap("headers").forEach(b::header);
            e.rejectUnknown();
            WebhookEndpoint endpoint;
            try {
                endpoint = b.build();
            } catch (OutboxValidationException ex) {
                throw new ConfigException(e.key(endpointKey(ex.field())), ex.getMessage(), ex);
            }
            endpoints.add(endpoint);
            described.add(endpoint.name() + " " + endpoint.url().getScheme() + "://"
                    + endpoint.url().getAuthority() + endpoint.url().getPath() + " " + endpoint.eventTypes());
        }
        String key = settings.path();
        return new Transports.Spec("webhook", key) {
            @Override
            public String describe() {
                return "webhook " + described;
            }

            @Override
            public Publisher open() {
                return publisher();
            }

            /**
             * A TCP connection to each endpoint, after the address policy the relay applies: a name that
             * resolves to a private address is a check failure naming {@code allow-private-networks}, and
             * nothing connects to it. No request is sent, so nothing is published.
             */
            @Override
            public String check(Duration timeout) throws Exception {
                try (WebhookPublisher publisher = publisher()) {
                    return "webhook endpoint(s) accept TCP connections at " + publisher.checkConnections(timeout);
                } catch (OutboxValidationException ex) {
                    throw refused(ex);
                }
            }

            private WebhookPublisher publisher() {
                try {
                    return WebhookPublisher.builder()
                            .settings(checked)
                            .endpoints(endpoints)
                            .build();
                } catch (OutboxValidationException ex) {
                    throw refused(ex);
                }
            }

            /** A refusal of a setting names its key already; one of the endpoints is the endpoints' key's. */
            private ConfigException refused(OutboxValidationException ex) {
                if (ex.field() != null && ex.field().startsWith(key + ".")) {
                    return new ConfigException(ex.field(), ex.getMessage(), ex);
                }
                return new ConfigException(key + ".endpoints", ex.getMessage(), ex);
            }
        };
    }

    private static String endpointKey(String field) {
        if (field == null) {
            return "url";
        }
        if (field.contains("secret")) {
            return "secret";
        }
        if (field.endsWith(".eventTypes")) {
            return "event-types";
        }
        if (field.endsWith(".name")) {
            return "name";
        }
        if (field.toLowerCase(Locale.ROOT).contains("header")) {
            return "headers";
        }
        return "url";
    }
}
