package io.txoutbox.nats;

/** What NATS accepts as a subject to publish to. */
final class Subjects {
    private Subjects() {}

    /**
     * @return why a message can never be published to this subject, or {@code null} when it can
     */
    static String problem(String subject) {
        if (subject == null) {
            return "the router gave no subject";
        }
        if (subject.isEmpty()) {
            return "the subject is empty";
        }
        for (int i = 0; i < subject.length(); i++) {
            char c = subject.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                return "subject '" + printable(subject) + "' contains whitespace or a control character";
            }
        }
        for (String token : subject.split("\\.", -1)) {
            if (token.isEmpty()) {
                return "subject '" + subject + "' has an empty token";
            }
            if (token.equals("*") || token.equals(">")) {
                return "subject '" + subject + "' has a wildcard: a message needs a concrete subject";
            }
        }
        return null;
    }

    private static String printable(String subject) {
        StringBuilder out = new StringBuilder(subject.length());
        for (int i = 0; i < subject.length(); i++) {
            char c = subject.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return out.toString();
    }
}
