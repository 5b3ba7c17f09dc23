package io.txoutbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/** Starts {@link RemoteRelayMain} in a child JVM and feeds its confirmations to the current recorder. */
final class RemoteRelay implements AutoCloseable {
    private final Process process;
    private final Thread reader;
    private final CountDownLatch ready = new CountDownLatch(1);

    RemoteRelay(String url, String user, String schema, String table, int batchSize, AtomicReference<Recorder> current)
            throws IOException {
        this(List.of(), url, user, schema, table, batchSize, (id, nanos) -> {
            Recorder r = current.get();
            r.confirmAt(id, nanos);
            r.confirmedCount(1);
        });
    }

    /**
     * @param jvmOptions options for the child JVM before its class path (system properties)
     * @param table the table, schema-qualified: the notification channel is named after the schema too
     * @param confirm called with each confirmed event's id and its confirmation time ({@code System.nanoTime()})
     */
    RemoteRelay(
            List<String> jvmOptions,
            String url,
            String user,
            String schema,
            String table,
            int batchSize,
            BiConsumer<UUID, Long> confirm)
            throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m"));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                RemoteRelayMain.class.getName(),
                url,
                user,
                schema,
                table,
                Integer.toString(batchSize)));
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            if (line.equals("ready")) {
                                ready.countDown();
                                continue;
                            }
                            int space = line.indexOf(' ');
                            if (space < 0) {
                                continue;
                            }
                            confirm.accept(
                                    UUID.fromString(line.substring(0, space)),
                                    Long.parseLong(line.substring(space + 1)));
                        }
                    } catch (IOException | RuntimeException e) {
                        // The child is gone.
                    }
                },
                "remote-relay-reader");
        reader.setDaemon(true);
        reader.start();
        boolean started;
        try {
            started = ready.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started = false;
        }
        if (!started) {
            close();
            throw new IllegalStateException("the remote relay did not start within 60 s");
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(5_000);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
