package io.txoutbox.build;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * No main class of the core or the server is longer than {@value #MAX_LINES} lines: past that a class
 * does more than one job, and its next change is harder to read than to write. This check counts the
 * lines of every main source file of the modules it is given and names each file over the limit.
 */
public final class ClassSizeCheck {
    /** The longest main source file, in lines, of a module this check covers. */
    public static final int MAX_LINES = 450;

    /** The modules whose main classes the limit holds for. */
    public static final List<String> MODULES = List.of("txoutbox-core", "txoutbox-server");

    private ClassSizeCheck() {}

    /**
     * @param args the repository's root (default {@code .})
     */
    public static void main(String[] args) {
        Map<String, Long> over = over(Path.of(args.length > 0 ? args[0] : "."), MODULES, MAX_LINES);
        if (!over.isEmpty()) {
            throw new IllegalStateException(describe(over, MAX_LINES));
        }
    }

    /**
     * @param root the repository's root: the folder whose subfolders are the modules
     * @param modules the modules to read, by folder name
     * @param maxLines the longest file allowed
     * @return each main source file longer than {@code maxLines} (its path from the root), with its length
     * @throws IllegalArgumentException when a module has no main sources (a renamed module must not
     *     silently leave the check)
     */
    public static Map<String, Long> over(Path root, List<String> modules, int maxLines) {
        Map<String, Long> over = new TreeMap<>();
        for (String module : modules) {
            Path sources = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                throw new IllegalArgumentException("module " + module + " has no src/main/java under " + root);
            }
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    long lines;
                    try (Stream<String> l = Files.lines(f)) {
                        lines = l.count();
                    }
                    if (lines > maxLines) {
                        over.put(root.relativize(f).toString(), lines);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return over;
    }

    /**
     * @param over what {@link #over} found
     * @param maxLines the limit it was found against
     * @return one line per file, with its length and the limit
     */
    public static String describe(Map<String, Long> over, int maxLines) {
        List<String> lines = new ArrayList<>();
        over.forEach((file, n) -> lines.add(file + " has " + n + " lines"));
        return "classes over " + maxLines + " lines (split the class by job):\n  " + String.join("\n  ", lines);
    }
}
