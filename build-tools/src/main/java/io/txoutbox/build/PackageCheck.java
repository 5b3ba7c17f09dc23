package io.txoutbox.build;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * No two jars share a package: a package split across modules lets one jar reach another's
 * package-private classes (which makes them API in practice) and breaks on the module path. This check
 * reads the main sources of every module of the repository and names each package that more than one
 * module declares.
 */
public final class PackageCheck {
    private PackageCheck() {}

    /**
     * @param args the repository's root (default {@code .})
     */
    public static void main(String[] args) {
        Map<String, Set<String>> shared = shared(Path.of(args.length > 0 ? args[0] : "."));
        if (!shared.isEmpty()) {
            throw new IllegalStateException(describe(shared));
        }
    }

    /**
     * @param root the repository's root: the folder whose subfolders are the modules
     * @return each package declared by the main sources of more than one module, with those modules
     */
    public static Map<String, Set<String>> shared(Path root) {
        return shared(packagesByModule(root));
    }

    /**
     * @param packagesByModule each module's packages
     * @return each package that more than one module has, with those modules
     */
    static Map<String, Set<String>> shared(Map<String, Set<String>> packagesByModule) {
        Map<String, Set<String>> modulesByPackage = new TreeMap<>();
        packagesByModule.forEach((module, packages) -> packages.forEach(
                p -> modulesByPackage.computeIfAbsent(p, k -> new TreeSet<>()).add(module)));
        modulesByPackage.values().removeIf(modules -> modules.size() < 2);
        return modulesByPackage;
    }

    /**
     * @param shared what {@link #shared(Path)} found
     * @return one line per shared package, naming its modules
     */
    public static String describe(Map<String, Set<String>> shared) {
        List<String> lines = new ArrayList<>();
        shared.forEach((p, modules) -> lines.add("package " + p + " is in " + String.join(" and ", modules)));
        return "packages split across jars (move one module's classes to a package of its own):\n  "
                + String.join("\n  ", lines);
    }

    private static Map<String, Set<String>> packagesByModule(Path root) {
        Map<String, Set<String>> byModule = new TreeMap<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isRegularFile(m.resolve("pom.xml")))
                    .toList()) {
                Path sources = module.resolve("src/main/java");
                if (!Files.isDirectory(sources)) {
                    continue;
                }
                Set<String> packages = new TreeSet<>();
                try (Stream<Path> files = Files.walk(sources)) {
                    files.filter(f -> f.toString().endsWith(".java")
                                    && !f.getFileName().toString().equals("module-info.java"))
                            .forEach(f -> packages.add(
                                    sources.relativize(f.getParent()).toString().replace('/', '.')));
                }
                byModule.put(module.getFileName().toString(), packages);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return byModule;
    }
}
