package io.txoutbox.build;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * Checks the licences of what a fat jar bundles and writes its third-party notice list.
 *
 * <p>Reads the CycloneDX SBOM (XML) that the build made of the jar's compile and runtime dependencies,
 * and fails when a component declares no licence, or none of the licences it declares is on the allow
 * list. A component that declares several licences may be used under any of them (as the Maven POM
 * reference reads a {@code <licenses>} list), so one allowed licence is enough; an SPDX expression is
 * read the same way ({@code OR}: one side allowed, {@code AND}: both). The allow list may name a
 * reviewed licence for a component whose pom declares none or one the list does not know, and accept one
 * component under a licence that is not allowed in general, each with the reason. On success it writes {@code THIRD-PARTY.txt}: one line per component with its coordinates,
 * its licences and its web site.
 *
 * <p>Run by txoutbox-server and txoutbox-demo in {@code prepare-package} with exec-maven-plugin:
 * {@code LicenceCheck <bom.xml> <allow-list> <THIRD-PARTY.txt> <title>}.
 */
public final class LicenceCheck {

    private static final String CYCLONEDX = "http://cyclonedx.org/schema/bom/";

    private LicenceCheck() {}

    /**
     * Checks the SBOM and writes the notice list.
     *
     * @param args the SBOM (CycloneDX XML), the allow list, the notice list to write, and the title of
     *     the notice list (the jar's name and version)
     * @throws LicenceCheckException if a component's licence is unknown or not allowed, naming each one
     * @throws IOException if a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            throw new IllegalArgumentException(
                    "LicenceCheck takes 4 arguments (bom.xml, allow list, THIRD-PARTY.txt, title); got " + args.length);
        }
        AllowList allowList = AllowList.read(Path.of(args[1]));
        Path bom = Path.of(args[0]);
        requireFresh(
                bom, Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()));
        List<Component> components = read(bom);
        String notices = check(components, allowList, args[3], args[1]);
        Path out = Path.of(args[2]);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, notices, StandardCharsets.UTF_8);
    }

    /**
     * Checks every component against the allow list.
     *
     * @return the text of the notice list
     * @throws LicenceCheckException naming every component whose licence is unknown or not allowed
     */
    static String check(List<Component> components, AllowList allowList, String title, String allowListName) {
        List<String> failures = new ArrayList<>();
        StringBuilder lines = new StringBuilder();
        List<Component> sorted = new ArrayList<>(components);
        sorted.sort(Comparator.comparing(Component::coordinates));
        for (Component c : sorted) {
            Optional<AllowList.Reviewed> reviewed = allowList.reviewed(c.group(), c.name());
            List<String> licences = reviewed.map(r -> List.of(r.licence())).orElse(c.licences());
            if (licences.isEmpty()) {
                failures.add(c.coordinates() + " declares no licence: review it and add a 'component' line to "
                        + allowListName);
                continue;
            }
            Optional<AllowList.Reviewed> exception = Optional.empty();
            if (licences.stream().noneMatch(allowList::allows)) {
                exception = reviewed.isEmpty() ? allowList.exception(c.group(), c.name(), licences) : exception;
                if (exception.isEmpty()) {
                    failures.add(c.coordinates() + " is licensed under " + String.join(" / ", licences)
                            + ", which is not on the allow list " + allowListName);
                    continue;
                }
            }
            lines.append(c.coordinates()).append('\n');
            lines.append("    licence: ")
                    .append(exception.map(AllowList.Reviewed::licence).orElse(String.join(" / ", licences)));
            reviewed.ifPresent(
                    r -> lines.append(" (reviewed: ").append(r.reason()).append(')'));
            exception.ifPresent(r -> lines.append(" (accepted for this component: ")
                    .append(r.reason())
                    .append(')'));
            lines.append('\n');
            if (!c.website().isEmpty()) {
                lines.append("    web site: ").append(c.website()).append('\n');
            }
        }
        if (!failures.isEmpty()) {
            throw new LicenceCheckException(failures);
        }
        return "Third-party software bundled in " + title + "\n\n"
                + "Generated by the build from the jar's CycloneDX SBOM (META-INF/sbom/bom.json) and checked\n"
                + "against the project's licence allow list. Each component is listed with the licence(s) its pom\n"
                + "declares (where it declares several, it may be used under any of them); the NOTICE texts\n"
                + "of the bundled components are in META-INF/NOTICE.\n\n"
                + sorted.size() + " components:\n\n" + lines;
    }

    /**
     * Fails unless the SBOM was written since {@code buildStart}: cyclonedx-maven-plugin skips itself in
     * an offline build ({@code -o}), and the SBOM of an earlier build must not be checked, or shipped, in
     * its place. exec-maven-plugin runs this check in Maven's own JVM, whose start is the build's.
     */
    static void requireFresh(Path bom, Instant buildStart) throws IOException {
        if (!Files.isRegularFile(bom)) {
            throw new IOException("no SBOM at " + bom + ": cyclonedx-maven-plugin did not write one (it skips"
                    + " itself in an offline build, -o; build online)");
        }
        Instant written = Files.getLastModifiedTime(bom).toInstant();
        if (written.isBefore(buildStart)) {
            throw new IOException("the SBOM at " + bom + " is from an earlier build (written " + written
                    + ", this build started " + buildStart + "): cyclonedx-maven-plugin did not write it again"
                    + " (it skips itself in an offline build, -o; build online)");
        }
    }

    /** Reads the components of a CycloneDX SBOM in XML (any schema version). */
    static List<Component> read(Path bom) throws IOException {
        Document doc;
        try (InputStream in = Files.newInputStream(bom)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            doc = factory.newDocumentBuilder().parse(in);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException(bom + " is not a CycloneDX SBOM in XML: " + e.getMessage(), e);
        }
        Element root = doc.getDocumentElement();
        if (root.getNamespaceURI() == null
                || !root.getNamespaceURI().startsWith(CYCLONEDX)
                || !"bom".equals(root.getLocalName())) {
            throw new IOException(bom + " is not a CycloneDX SBOM: its root is " + root.getTagName());
        }
        List<Component> components = new ArrayList<>();
        for (Element list : children(root, "components")) {
            for (Element component : children(list, "component")) {
                components.add(component(component));
            }
        }
        return components;
    }

    private static Component component(Element e) {
        List<String> licences = new ArrayList<>();
        for (Element list : children(e, "licenses")) {
            for (Element licence : children(list, "license")) {
                String id = text(licence, "id");
                licences.add(id.isEmpty() ? text(licence, "name") : id);
            }
            for (Element expression : children(list, "expression")) {
                licences.add(expression.getTextContent().trim());
            }
        }
        licences.removeIf(String::isEmpty);
        String website = "";
        for (Element refs : children(e, "externalReferences")) {
            for (Element ref : children(refs, "reference")) {
                if (website.isEmpty() && "website".equals(ref.getAttribute("type"))) {
                    website = text(ref, "url");
                }
            }
        }
        return new Component(text(e, "group"), text(e, "name"), text(e, "version"), licences, website);
    }

    /** The child elements of that local name; the release check reads poms with it too. */
    static List<Element> children(Element parent, String localName) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element child && localName.equals(child.getLocalName())) {
                found.add(child);
            }
        }
        return found;
    }

    private static String text(Element parent, String localName) {
        List<Element> found = children(parent, localName);
        return found.isEmpty() ? "" : found.get(0).getTextContent().trim();
    }

    /** One bundled component as the SBOM describes it. */
    record Component(String group, String name, String version, List<String> licences, String website) {
        Component {
            licences = List.copyOf(licences);
        }

        String coordinates() {
            return (group.isEmpty() ? "" : group + ":") + name + ":" + version;
        }
    }
}
