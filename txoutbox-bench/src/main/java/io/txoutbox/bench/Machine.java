package io.txoutbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

/** What the numbers were measured on. */
record Machine(int cores, String memory, String cpu, String javaVersion, String os) {

    static Machine read() {
        return new Machine(
                Runtime.getRuntime().availableProcessors(), memTotal(), cpuModel(), readJavaVersion(), osName());
    }

    /** @return what {@code uptime} prints (its load averages), or /proc/loadavg */
    static String loadAverage() {
        String uptime = run("uptime");
        if (!uptime.isBlank()) {
            return uptime.trim();
        }
        try {
            return "loadavg " + Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "(unknown)";
        }
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(java.util.Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Not Linux.
        }
        return Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB JVM max";
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // Not Linux.
        }
        return System.getProperty("os.arch");
    }

    private static String readJavaVersion() {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String out = run(java, "-version");
        return out.isBlank()
                ? System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                : out.trim();
    }

    private static String osName() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    private static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
