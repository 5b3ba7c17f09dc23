package io.txoutbox.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The licences a bundled component may have, and the reviewed licence of components whose pom declares
 * none the list knows, read from a text file kept in the repository (build/licence-allow-list.txt).
 *
 * <p>Lines: {@code licence <SPDX id or licence name as a pom writes it>}; {@code component
 * <groupId>:<artifactId> <licence> -- <reason>}, the licence of a component whose pom declares none or
 * one the list does not know, read from its own files, which must itself be allowed; {@code exception
 * <groupId>:<artifactId> <licence> -- <reason>}, one component accepted under a licence that is not
 * allowed in general, as long as it still declares that licence; blank lines and {@code #} comments.
 */
final class AllowList {

    private final Set<String> licences;
    private final Map<String, Reviewed> components;
    private final Map<String, Reviewed> exceptions;

    private AllowList(Set<String> licences, Map<String, Reviewed> components, Map<String, Reviewed> exceptions) {
        this.licences = licences;
        this.components = components;
        this.exceptions = exceptions;
    }

    /** A licence someone decided on for one component, and why. */
    record Reviewed(String licence, String reason) {}

    static AllowList read(Path file) throws IOException {
        return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    static AllowList parse(String source, List<String> lines) {
        Set<String> licences = new TreeSet<>();
        Map<String, Reviewed> components = new HashMap<>();
        Map<String, Reviewed> exceptions = new HashMap<>();
        List<String> errors = new ArrayList<>();
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("licence ")) {
                licences.add(normal(line.substring("licence ".length())));
            } else if (line.startsWith("component ") || line.startsWith("exception ")) {
                String kind = line.substring(0, line.indexOf(' '));
                String rest = line.substring(kind.length() + 1).strip();
                int space = rest.indexOf(' ');
                int dashes = rest.indexOf(" -- ");
                if (space < 0 || dashes < space || rest.substring(0, space).split(":").length != 2) {
                    errors.add(source + ":" + number + ": " + kind + " line is '" + kind
                            + " <groupId>:<artifactId> <licence> -- <reason>'");
                    continue;
                }
                (kind.equals("component") ? components : exceptions)
                        .put(
                                rest.substring(0, space),
                                new Reviewed(
                                        rest.substring(space + 1, dashes).strip(),
                                        rest.substring(dashes + 4).strip()));
            } else {
                errors.add(source + ":" + number + ": a line starts with 'licence ', 'component ', 'exception '"
                        + " or '#'");
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", errors));
        }
        return new AllowList(licences, components, exceptions);
    }

    /** The reviewed licence of a component, if the list names one. */
    Optional<Reviewed> reviewed(String group, String artifact) {
        return Optional.ofNullable(components.get(group + ":" + artifact));
    }

    /**
     * The exception for a component, if the list makes one and the component still declares the licence
     * it was made for.
     */
    Optional<Reviewed> exception(String group, String artifact, List<String> declared) {
        Reviewed exception = exceptions.get(group + ":" + artifact);
        if (exception == null
                || declared.stream().map(AllowList::normal).noneMatch(normal(exception.licence())::equals)) {
            return Optional.empty();
        }
        return Optional.of(exception);
    }

    /**
     * Whether a licence is allowed: a listed licence, or an SPDX expression one of whose {@code OR}
     * alternatives has only listed terms ({@code A WITH exception} is one term).
     */
    boolean allows(String licence) {
        String expression = licence.replace("(", " ").replace(")", " ").strip();
        for (String alternative : expression.split("\\s+OR\\s+")) {
            boolean all = true;
            for (String term : alternative.split("\\s+AND\\s+")) {
                all &= licences.contains(normal(term));
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    private static String normal(String licence) {
        return licence.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }
}
