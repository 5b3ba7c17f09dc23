package io.txoutbox.build;

import static io.txoutbox.build.LicenceCheck.children;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.xml.sax.SAXException;

/**
 * Checks a release staged to a local file repository against what Maven Central asks of it.
 *
 * <p>For each module listed as published: a pom, and for a jar module the jar, its {@code -sources.jar}
 * and {@code -javadoc.jar}; an MD5 and SHA-1 checksum beside each file that match it, and with {@code
 * --signed} a {@code .asc} signature; {@code META-INF/LICENSE} and {@code META-INF/NOTICE} in the jar;
 * and in the pom, or the parent pom it inherits from (staged too), a name, description, URL, licence
 * with name and URL, developer, and SCM connection and URL. A module of the group that is staged but not
 * listed fails as well: the list is the one place that says what is published.
 *
 * <p>Run by build/release-check after {@code ./mvnw -Prelease deploy} to a file repository: {@code
 * ReleaseCheck <staging repository> <published-modules.txt> <groupId> <version> [--signed]}.
 */
public final class ReleaseCheck {

    private ReleaseCheck() {}

    /**
     * Checks the staged release; prints what it checked, or each failure, and exits non-zero on a failure.
     *
     * @param args the staging repository, the list of published modules, the groupId, the version, and
     *     optionally {@code --signed}
     * @throws IOException if the staging repository or the list cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 4 || args.length > 5 || (args.length == 5 && !"--signed".equals(args[4]))) {
            throw new IllegalArgumentException(
                    "ReleaseCheck takes <staging repository> <published-modules.txt> <groupId> <version> [--signed]");
        }
        List<String> modules = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
        List<String> failures = check(Path.of(args[0]), args[2], args[3], modules, args.length == 5);
        if (!failures.isEmpty()) {
            System.err.println("release-check: " + failures.size() + " problem(s) in " + args[0] + ":");
            failures.forEach(f -> System.err.println("  " + f));
            System.exit(1);
        }
        System.out.println("release-check: " + modules.size() + " modules of " + args[2] + " " + args[3]
                + " staged in " + args[0] + " with sources, Javadoc, checksums"
                + (args.length == 5 ? ", signatures" : "") + ", licence files and complete poms");
    }

    /**
     * Checks the staged release.
     *
     * @return one line per problem, naming the module and what it lacks; empty when the release is complete
     */
    static List<String> check(Path repo, String groupId, String version, List<String> modules, boolean signed)
            throws IOException {
        List<String> failures = new ArrayList<>();
        Path group = repo.resolve(groupId.replace('.', '/'));
        Set<String> staged = new TreeSet<>();
        if (Files.isDirectory(group)) {
            try (Stream<Path> dirs = Files.list(group)) {
                dirs.filter(Files::isDirectory)
                        .forEach(d -> staged.add(d.getFileName().toString()));
            }
        }
        for (String extra : staged) {
            if (!modules.contains(extra)) {
                failures.add(extra + ": staged, but not in the list of published modules");
            }
        }
        for (String module : modules) {
            Path dir = group.resolve(module).resolve(version);
            if (!Files.isDirectory(dir)) {
                failures.add(module + ": not staged (no " + repo.relativize(dir) + ")");
                continue;
            }
            new Module(repo, groupId, module, version, dir, signed, failures).check();
        }
        return failures;
    }

    /** One staged module: its files and its pom. */
    private record Module(
            Path repo,
            String groupId,
            String artifactId,
            String version,
            Path dir,
            boolean signed,
            List<String> failures) {

        void check() throws IOException {
            String base = artifactId + "-" + fileVersion(dir, version);
            Path pom = dir.resolve(base + ".pom");
            if (!present(pom)) {
                return;
            }
            Element project = parse(pom);
            String packaging = text(project, "packaging");
            if (packaging.isEmpty() || "jar".equals(packaging)) {
                Path jar = dir.resolve(base + ".jar");
                if (present(jar)) {
                    licenceFiles(jar);
                }
                present(dir.resolve(base + "-sources.jar"));
                present(dir.resolve(base + "-javadoc.jar"));
            }
            fields(pom, project);
        }

        /** The file exists, with checksums that match it and, if asked, a signature. */
        private boolean present(Path file) throws IOException {
            if (!Files.isRegularFile(file)) {
                failures.add(artifactId + ": no " + file.getFileName());
                return false;
            }
            byte[] bytes = Files.readAllBytes(file);
            for (String algorithm : List.of("MD5", "SHA-1")) {
                Path sum = file.resolveSibling(
                        file.getFileName() + "." + algorithm.replace("-", "").toLowerCase());
                if (!Files.isRegularFile(sum)) {
                    failures.add(artifactId + ": no " + sum.getFileName());
                } else if (!Files.readString(sum).strip().startsWith(digest(algorithm, bytes))) {
                    failures.add(artifactId + ": " + sum.getFileName() + " does not match " + file.getFileName());
                }
            }
            if (signed && !Files.isRegularFile(file.resolveSibling(file.getFileName() + ".asc"))) {
                failures.add(artifactId + ": no " + file.getFileName() + ".asc");
            }
            return true;
        }

        private void licenceFiles(Path jar) throws IOException {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                for (String entry : List.of("META-INF/LICENSE", "META-INF/NOTICE")) {
                    if (zip.getEntry(entry) == null) {
                        failures.add(artifactId + ": " + jar.getFileName() + " has no " + entry);
                    }
                }
            }
        }

        /** The fields Central asks for, from the pom or the staged parents it inherits them from. */
        private void fields(Path pom, Element project) throws IOException {
            List<Element> chain = new ArrayList<>();
            chain.add(project);
            Element current = project;
            while (!children(current, "parent").isEmpty()) {
                Element parent = children(current, "parent").get(0);
                Path parentPom = repo.resolve(text(parent, "groupId").replace('.', '/'))
                        .resolve(text(parent, "artifactId"))
                        .resolve(text(parent, "version"));
                Path file = Files.isDirectory(parentPom)
                        ? parentPom.resolve(text(parent, "artifactId") + "-"
                                + fileVersion(parentPom, text(parent, "version")) + ".pom")
                        : parentPom;
                if (!Files.isRegularFile(file)) {
                    failures.add(artifactId + ": its parent " + text(parent, "artifactId") + " is not staged");
                    return;
                }
                current = parse(file);
                chain.add(current);
            }
            // name and description are each module's own: Central shows them per artifact.
            require(List.of(project), "name");
            require(List.of(project), "description");
            require(chain, "url");
            Element licence = first(chain, "licenses", "license");
            if (licence == null
                    || text(licence, "name").isEmpty()
                    || text(licence, "url").isEmpty()) {
                failures.add(artifactId + ": pom has no licence with a name and a URL");
            }
            Element developer = first(chain, "developers", "developer");
            if (developer == null
                    || (text(developer, "name").isEmpty()
                            && text(developer, "id").isEmpty())) {
                failures.add(artifactId + ": pom has no developer");
            }
            Element scm = chain.stream()
                    .flatMap(p -> children(p, "scm").stream())
                    .findFirst()
                    .orElse(null);
            if (scm == null
                    || text(scm, "connection").isEmpty()
                    || text(scm, "url").isEmpty()) {
                failures.add(artifactId + ": pom has no scm with a connection and a URL");
            }
            if (!groupId.equals(inherited(chain, "groupId"))) {
                failures.add(artifactId + ": " + pom.getFileName() + " is not of group " + groupId);
            }
        }

        private void require(List<Element> chain, String field) {
            String value = chain.stream()
                    .map(p -> text(p, field))
                    .filter(v -> !v.isEmpty())
                    .findFirst()
                    .orElse("");
            if (value.isEmpty() || value.contains("${")) {
                failures.add(artifactId + ": pom has no " + field);
            }
        }

        private static String inherited(List<Element> chain, String field) {
            String own = text(chain.get(0), field);
            if (!own.isEmpty()) {
                return own;
            }
            List<Element> parent = children(chain.get(0), "parent");
            return parent.isEmpty() ? "" : text(parent.get(0), field);
        }

        private static Element first(List<Element> chain, String list, String item) {
            for (Element p : chain) {
                for (Element l : children(p, list)) {
                    List<Element> items = children(l, item);
                    if (!items.isEmpty()) {
                        return items.get(0);
                    }
                }
            }
            return null;
        }
    }

    /**
     * The version in a staged file's name: the version itself, or for a snapshot the timestamped one of
     * its last deploy, as the directory's maven-metadata.xml records it.
     */
    static String fileVersion(Path dir, String version) throws IOException {
        Path metadata = dir.resolve("maven-metadata.xml");
        if (!version.endsWith("-SNAPSHOT") || !Files.isRegularFile(metadata)) {
            return version;
        }
        Element root = parse(metadata);
        for (Element versioning : children(root, "versioning")) {
            for (Element snapshot : children(versioning, "snapshot")) {
                String timestamp = text(snapshot, "timestamp");
                String build = text(snapshot, "buildNumber");
                if (!timestamp.isEmpty() && !build.isEmpty()) {
                    return version.substring(0, version.length() - "SNAPSHOT".length()) + timestamp + "-" + build;
                }
            }
        }
        return version;
    }

    private static String digest(String algorithm, byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is a JDK digest", e);
        }
    }

    private static Element parse(Path xml) throws IOException {
        try (InputStream in = Files.newInputStream(xml)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(in).getDocumentElement();
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException(xml + " is not well-formed XML: " + e.getMessage(), e);
        }
    }

    private static String text(Element parent, String localName) {
        List<Element> found = children(parent, localName);
        return found.isEmpty() ? "" : found.get(0).getTextContent().strip();
    }
}
