package io.txoutbox.server;

import java.util.regex.Pattern;

/** Hides secrets that can hide inside otherwise harmless values, such as a JDBC URL's password. */
final class Masking {
    private static final Pattern URL_PASSWORD =
            Pattern.compile("(?i)((?:password|pwd|sslpassword|secret|token)=)[^&;]*");
    private static final Pattern USER_INFO = Pattern.compile("(//)[^/@]*:[^/@]*@");
    private static final Pattern ANY_USER_INFO = Pattern.compile("(//)[^/@\\s]+@");

    private Masking() {}

    /**
     * @param url a JDBC URL
     * @return the URL with {@code password=...}-like parameters and {@code user:password@} masked
     */
    static String jdbcUrl(String url) {
        if (url == null) {
            return null;
        }
        String masked = URL_PASSWORD.matcher(url).replaceAll("$1****");
        return USER_INFO.matcher(masked).replaceAll("$1****@");
    }

    /**
     * @param text a broker URI ({@code redis://:secret@host}, {@code nats://user:pass@host}), or a message
     *     that may quote one
     * @return it with every {@code user:password@} and {@code password=...} masked
     */
    static String uri(String text) {
        if (text == null) {
            return null;
        }
        String masked = URL_PASSWORD.matcher(text).replaceAll("$1****");
        return ANY_USER_INFO.matcher(masked).replaceAll("$1****@");
    }
}
