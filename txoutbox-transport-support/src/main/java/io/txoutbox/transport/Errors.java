package io.txoutbox.transport;

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
}
