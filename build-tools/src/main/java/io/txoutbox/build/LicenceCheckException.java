package io.txoutbox.build;

import java.util.List;

/** A bundled component whose licence is unknown or not allowed: the build stops on it. */
public final class LicenceCheckException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> failures;

    LicenceCheckException(List<String> failures) {
        super(failures.size() + " bundled component(s) failed the licence check:\n  " + String.join("\n  ", failures));
        this.failures = List.copyOf(failures);
    }

    /** Each failing component with its reason, one entry each. */
    public List<String> failures() {
        return failures;
    }
}
