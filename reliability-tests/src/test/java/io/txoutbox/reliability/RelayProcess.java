package io.txoutbox.reliability;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A relay slot of the chaos harness: one {@link ChaosRelayMain} process at a time, started with the
 * test's own class path, killed with SIGKILL, frozen with SIGSTOP and thawed with SIGCONT. Every
 * process it starts writes a log of its own in the run directory.
 */
final class RelayProcess {
    private final String name;
    private final List<String> arguments;
    private final Path logDir;
    private final List<Path> logs = new ArrayList<>();
    private Process process;
    private int generation;

    /**
     * @param name the relay's name (also its slot)
     * @param arguments the arguments of {@link ChaosRelayMain}
     * @param logDir where the processes' output goes
     */
    RelayProcess(String name, List<String> arguments, Path logDir) {
        this.name = name;
        this.arguments = List.copyOf(arguments);
        this.logDir = logDir;
    }

    String name() {
        return name;
    }

    /** Starts a new process in this slot. */
    synchronized void start() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx192m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp",
                System.getProperty("java.class.path"),
                ChaosRelayMain.class.getName()));
        command.addAll(arguments);
        Path log = logDir.resolve(name + "-" + (++generation) + ".log");
        logs.add(log);
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .directory(new File(System.getProperty("user.dir")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start relay " + name, e);
        }
    }

    /** SIGKILL: no shutdown hook, no lease returned, no batch finished. */
    synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        waitFor(process);
        process = null;
    }

    /** SIGTERM: the relay finishes its batch and returns its leases. */
    synchronized void stopGracefully() {
        if (process == null) {
            return;
        }
        signal("CONT");
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                waitFor(process);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** SIGSTOP: the process freezes, leases and all, until {@link #thaw()}. */
    synchronized void freeze() {
        signal("STOP");
    }

    /** SIGCONT. */
    synchronized void thaw() {
        signal("CONT");
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    private void signal(String signal) {
        if (process == null) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the lines of every log this slot wrote that start with the prefix */
    List<String> logLines(String prefix) {
        List<String> lines = new ArrayList<>();
        for (Path log : logs) {
            try {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    if (line.startsWith(prefix)) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return lines;
    }

    private static void waitFor(Process p) {
        try {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                throw new IllegalStateException("process " + p.pid() + " did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
