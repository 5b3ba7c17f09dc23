package io.txoutbox.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A main class of these tests in a JVM of its own, on the test's classpath, its output in a temporary log. */
final class ChildJvm {
    private ChildJvm() {}

    /**
     * @param jvmOptions options before the classpath ({@code -Xmx256m}), or none
     * @param main the class whose {@code main} the child runs
     * @param args its arguments
     * @return the started process
     * @throws IOException when the log cannot be created or the JVM cannot start
     */
    static Process start(List<String> jvmOptions, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile(main.getSimpleName(), ".log");
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .directory(new File(System.getProperty("user.dir")))
                .start();
    }
}
