package io.txoutbox.internal.transport;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** How the transports put a broker client's failure into an outcome's reason. */
public final class Errors {
    private Errors() {}

    /**
     * @param error the failure
     * @return the error and up to three of its causes in one line: the clients often wrap the telling one
     */
    public static String describe(Throwable error) {
        StringBuilder text = new StringBuilder(error.toString());
        Throwable cause = error.getCause();
        for (int depth = 0; cause != null && depth < 3; depth++, cause = cause.getCause()) {
            text.append("; caused by ").append(cause);
        }
        return text.toString();
    }

    /**
     * @param error the failure
     * @return the error and its root cause in one line, cut to 240 and 160 characters: the clients often
     *     wrap the telling one, and repeat themselves down the cause chain
     */
    public static String withRootCause(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = cut(error.toString(), 240);
        return root == error ? text : text + "; root cause " + cut(root.toString(), 160);
    }

    private static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }

    /**
     * @param error a failure, as a future reports it
     * @return the failure inside any {@link CompletionException} and {@link ExecutionException} wrappers
     */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
