package io.txoutbox.build;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * No public API exposes an internal type. A package with a segment named {@code internal} ({@code
 * io.txoutbox.internal.transport}, {@code io.txoutbox.internal.admin}) is public only so that other
 * txoutbox modules reach it, and carries no compatibility promise; a type of it in a public signature
 * would make it API in practice. This check reads compiled classes (directories of {@code .class} files
 * or jars) and names, in every txoutbox class ({@code io.txoutbox…}) outside the internal packages, each
 * public or protected field, method and constructor of a public (or protected nested) class whose type,
 * generic signature or {@code throws} clause mentions an internal type (of any library), and each such
 * class whose superclass, interfaces or type parameters are internal. Other classes in a jar (the
 * libraries a fat jar bundles) are not txoutbox's API and are not read. It reads the class files
 * themselves (what javac wrote, generics included), with the JDK only.
 */
public final class InternalApiCheck {
    /** The classes checked: txoutbox's own. */
    private static final String OWN = "io/txoutbox/";

    /** A class name in a descriptor or a signature: {@code Lio/txoutbox/internal/transport/Route;}. */
    private static final Pattern CLASS_NAME = Pattern.compile("L([^;<>.:\\[()]+)");

    private InternalApiCheck() {}

    /**
     * @param args the compiled classes to check: directories of {@code .class} files or jars
     * @throws IllegalStateException naming each finding, if there is one
     */
    public static void main(String[] args) {
        List<String> findings = findings(Stream.of(args).map(Path::of).toList());
        if (!findings.isEmpty()) {
            throw new IllegalStateException(describe(findings));
        }
    }

    /**
     * @param classPath a class path ({@code java.class.path}: entries separated by {@link
     *     File#pathSeparator})
     * @return its entries that are txoutbox modules and exist: a module's {@code txoutbox-*}{@code
     *     /target/classes}, or a {@code txoutbox-*.jar} in a module's {@code target} (what a reactor build
     *     past {@code package} puts on the class path) or under {@code io/txoutbox/} in a Maven repository
     *     (test jars left out)
     */
    public static List<Path> modulesOn(String classPath) {
        return Stream.of(classPath.split(Pattern.quote(File.pathSeparator)))
                .filter(entry -> !entry.isEmpty())
                .map(Path::of)
                .filter(InternalApiCheck::isTxoutboxModule)
                .filter(Files::exists)
                .toList();
    }

    /**
     * @param locations directories of {@code .class} files or jars
     * @return one line per exposure of an internal type, in the order of the locations, each naming its
     *     module
     */
    public static List<String> findings(List<Path> locations) {
        List<String> findings = new ArrayList<>();
        for (Path location : locations) {
            findings.addAll(findings(location));
        }
        return findings;
    }

    /**
     * @param location a directory of {@code .class} files or a jar
     * @return one line per exposure of an internal type, naming the location's module (see {@link
     *     #moduleOf(Path)})
     */
    public static List<String> findings(Path location) {
        return findings(moduleOf(location), classes(location).values());
    }

    /**
     * @param findings what {@link #findings(List)} found
     * @return the findings, one per line, with what to do about them
     */
    public static String describe(List<String> findings) {
        return "public API exposes internal types (move the type out of its internal package, or make the"
                + " member or class non-public):\n  " + String.join("\n  ", findings);
    }

    /**
     * @param location a module's {@code target/classes} or a jar
     * @return the module's name: the folder above {@code target}, the artifact of a jar in a Maven
     *     repository ({@code txoutbox-kafka/0.1.0/txoutbox-kafka-0.1.0.jar}) or in a module's {@code
     *     target}, otherwise the file's name without {@code .jar}
     */
    public static String moduleOf(Path location) {
        Path absolute = location.toAbsolutePath().normalize();
        String file = name(absolute);
        Path parent = absolute.getParent();
        Path grandparent = parent == null ? null : parent.getParent();
        if (name(parent).equals("target") && grandparent != null) {
            return name(grandparent);
        }
        if (grandparent != null && file.equals(name(grandparent) + "-" + name(parent) + ".jar")) {
            return name(grandparent);
        }
        return file.endsWith(".jar") ? file.substring(0, file.length() - ".jar".length()) : file;
    }

    /**
     * @param module named in each finding
     * @param classes the classes of one module (a nested class's enclosing classes among them)
     * @return one line per exposure of an internal type
     */
    static List<String> findings(String module, Collection<ClassFile> classes) {
        Map<String, ClassFile> byName = new TreeMap<>();
        classes.forEach(c -> byName.put(c.name(), c));
        List<String> findings = new ArrayList<>();
        for (ClassFile c : byName.values()) {
            if (isInternal(c.name()) || !isVisible(c, byName)) {
                continue;
            }
            String type = display(c.name());
            String suffix = " (" + module + ")";
            Set<String> declared = new LinkedHashSet<>();
            if (c.superName() != null && isInternal(c.superName())) {
                findings.add(type + " extends " + display(c.superName()) + suffix);
                declared.add(c.superName());
            }
            for (String i : c.interfaces()) {
                if (isInternal(i)) {
                    findings.add(type + " implements " + display(i) + suffix);
                    declared.add(i);
                }
            }
            for (String internal : internalTypes(c.signature())) {
                if (declared.add(internal)) {
                    findings.add(type + " exposes " + display(internal) + " in its declaration" + suffix);
                }
            }
            for (ClassFile.Member f : c.fields()) {
                if (isVisible(f)) {
                    for (String internal : internalTypes(f.descriptor(), f.signature())) {
                        findings.add(type + "." + f.name() + " exposes " + display(internal) + suffix);
                    }
                }
            }
            for (ClassFile.Member m : c.methods()) {
                if (isVisible(m)) {
                    String member =
                            m.name().equals("<init>") ? "new " + type + "(...)" : type + "." + m.name() + "(...)";
                    Set<String> internal = internalTypes(m.descriptor(), m.signature());
                    m.exceptions().stream().filter(InternalApiCheck::isInternal).forEach(internal::add);
                    internal.forEach(i -> findings.add(member + " exposes " + display(i) + suffix));
                }
            }
        }
        return findings;
    }

    /**
     * @return the internal types named in the descriptors and signatures, each once, in order (a type
     *     variable, {@code TB;}, has no package and is never internal)
     */
    private static Set<String> internalTypes(String... descriptors) {
        Set<String> internal = new LinkedHashSet<>();
        for (String descriptor : descriptors) {
            if (descriptor == null) {
                continue;
            }
            Matcher names = CLASS_NAME.matcher(descriptor);
            while (names.find()) {
                if (isInternal(names.group(1))) {
                    internal.add(names.group(1));
                }
            }
        }
        return internal;
    }

    /**
     * @return whether code outside the class's package can see it: public, or a public or protected member
     *     class of a class that code outside can see
     */
    private static boolean isVisible(ClassFile c, Map<String, ClassFile> byName) {
        if ((c.access() & ClassFile.ACC_SYNTHETIC) != 0) {
            return false;
        }
        if (!c.nested()) {
            return (c.access() & ClassFile.ACC_PUBLIC) != 0;
        }
        if (c.outer() == null || (c.nestedAccess() & (ClassFile.ACC_PUBLIC | ClassFile.ACC_PROTECTED)) == 0) {
            return false; // local, anonymous, private or package-private
        }
        ClassFile outer = byName.get(c.outer());
        return outer == null || isVisible(outer, byName);
    }

    private static boolean isVisible(ClassFile.Member member) {
        return (member.access() & (ClassFile.ACC_PUBLIC | ClassFile.ACC_PROTECTED)) != 0
                && (member.access() & ClassFile.ACC_SYNTHETIC) == 0;
    }

    /** @return whether a class (internal name) is in a package with a segment named {@code internal} */
    static boolean isInternal(String className) {
        int end = className.lastIndexOf('/');
        return end > 0 && ("/" + className.substring(0, end) + "/").contains("/internal/");
    }

    private static String display(String className) {
        return className.replace('/', '.');
    }

    private static boolean isTxoutboxModule(Path entry) {
        Path absolute = entry.toAbsolutePath().normalize();
        String file = name(absolute);
        Path target = absolute.getParent();
        if (file.equals("classes") && name(target).equals("target")) {
            return name(target.getParent()).startsWith("txoutbox-");
        }
        return file.startsWith("txoutbox-")
                && file.endsWith(".jar")
                && !file.endsWith("-tests.jar")
                && (name(target).equals("target")
                        || absolute.toString().replace(File.separatorChar, '/').contains("/io/txoutbox/"));
    }

    private static String name(Path path) {
        return path == null || path.getFileName() == null
                ? ""
                : path.getFileName().toString();
    }

    private static Map<String, ClassFile> classes(Path location) {
        Map<String, ClassFile> classes = new TreeMap<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.walk(location)) {
                    for (Path f : files.filter(f ->
                                    isClass(location.relativize(f).toString().replace(File.separatorChar, '/')))
                            .toList()) {
                        add(classes, location + ": " + location.relativize(f), Files.readAllBytes(f));
                    }
                }
            } else {
                try (ZipFile jar = new ZipFile(location.toFile())) {
                    for (Enumeration<? extends ZipEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                        ZipEntry entry = entries.nextElement();
                        if (isClass(entry.getName())) {
                            try (InputStream in = jar.getInputStream(entry)) {
                                add(classes, location + "!" + entry.getName(), in.readAllBytes());
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes of " + location, e);
        }
        return classes;
    }

    private static boolean isClass(String path) {
        return path.startsWith(OWN) && path.endsWith(".class") && !path.endsWith("package-info.class");
    }

    private static void add(Map<String, ClassFile> classes, String where, byte[] bytes) throws IOException {
        try {
            ClassFile c = ClassFile.read(bytes);
            classes.put(c.name(), c);
        } catch (IOException e) {
            throw new IOException(where + ": " + e.getMessage(), e);
        }
    }
}
