package io.txoutbox.sqs;

/**
 * What a route may be: an SQS queue name (1-80 letters, digits, {@code -} and {@code _}, with
 * {@code .fifo} at the end of a FIFO queue's name) or a queue URL, used as it is.
 */
final class QueueNames {
    static final int MAX_NAME_LENGTH = 80;
    static final String FIFO_SUFFIX = ".fifo";

    private QueueNames() {}

    static boolean isUrl(String route) {
        return route.startsWith("https://") || route.startsWith("http://");
    }

    /** @return the queue's name: the route itself, or the last path segment of a queue URL */
    static String nameOf(String route) {
        if (!isUrl(route)) {
            return route;
        }
        String path = route.endsWith("/") ? route.substring(0, route.length() - 1) : route;
        return path.substring(path.lastIndexOf('/') + 1);
    }

    static boolean isFifo(String route) {
        return nameOf(route).endsWith(FIFO_SUFFIX);
    }

    /** @return why this route can never name an SQS queue, or {@code null} when it can */
    static String problem(String route) {
        if (route == null || route.isEmpty()) {
            return "the router gave no queue";
        }
        String name = nameOf(route);
        if (name.isEmpty()) {
            return "queue URL '" + route + "' names no queue";
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return "queue name '" + name + "' is " + name.length() + " characters; SQS allows at most "
                    + MAX_NAME_LENGTH;
        }
        String base = name.endsWith(FIFO_SUFFIX) ? name.substring(0, name.length() - FIFO_SUFFIX.length()) : name;
        if (base.isEmpty()) {
            return "queue name '" + name + "' is only the .fifo suffix";
        }
        for (int i = 0; i < base.length(); i++) {
            char c = base.charAt(i);
            boolean ok =
                    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!ok) {
                return "queue name '" + name + "' has the character '" + c
                        + "'; SQS allows letters, digits, '-' and '_' (and '.fifo' at the end)";
            }
        }
        return null;
    }
}
