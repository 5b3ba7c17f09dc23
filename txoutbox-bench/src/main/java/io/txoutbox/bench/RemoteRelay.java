package io.txoutbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Starts {@link RemoteRelayMain} in a child JVM and feeds its confirmations to the current recorder. */
final class RemoteRelay implements AutoCloseable {
    private final Process process;
    private final Thread reader;
    private final CountDownLatch ready = new CountDownLatch(1);

    RemoteRelay(String url, String user, String schema, String table, int batchSize, AtomicReference<Recorder> current)
            throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        process = new ProcessBuilder(
                        java,
                        "-Xmx512m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        RemoteRelayMain.class.getName(),
                        url,
                        user,
                        schema,
                        table,
                        Integer.toString(batchSize))
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
                            Recorder r = current.get();
                            r.confirmAt(
                                    UUID.fromString(line.substring(0, space)),
                                    Long.parseLong(line.substring(space + 1)));
                            r.confirmedCount(1);
                        }
                    } catch (IOException e) {
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
