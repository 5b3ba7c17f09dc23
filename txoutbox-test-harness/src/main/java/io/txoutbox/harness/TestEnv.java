package io.txoutbox.harness;

/** Where the tests find their local services: environment variables, with the local defaults. */
public final class TestEnv {
    private TestEnv() {}

    /**
     * @param name an environment variable, for example {@code TXOUTBOX_NATS_HOST}
     * @param fallback what stands when it is unset or blank
     * @return its value, or {@code fallback}
     */
    public static String get(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
