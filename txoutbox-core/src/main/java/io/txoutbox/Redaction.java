package io.txoutbox;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redaction path: every text that may reach a log line, an exception message, an HTTP response
 * or a dashboard passes through {@link #redact(String)} before it leaves txoutbox. It hides two kinds of
 * secret:
 *
 * <ul>
 *   <li>the secrets it was told of ({@link #register(String)}, {@link #registerUrl(String)}): each as
 *       given, URL-decoded, URL-encoded and JSON-escaped, and each piece of it between the characters
 *       where a URL parser may cut it ({@code @ : / ? # ; & ,}), wherever it appears, so that a driver that
 *       quotes a password in a message of its own words (an unparsable URL, a host name made of {@code
 *       user:password@host}) quotes {@code ****};
 *   <li>credential-looking parts of any URL, told of or not: the user information of {@code
 *       scheme://user:password@host} (up to the last {@code @}, so a password that holds {@code @} or
 *       {@code :} is hidden whole; an {@code @} later in the same word hides more than the password, never less) and the value of every parameter whose name says it is a credential
 *       ({@code password=}, {@code PASSWORD=}, {@code sslpassword=}, {@code trustStorePassword=}, {@code
 *       pwd=}, {@code secret=}, {@code token=}, {@code api-key=}, ...) after {@code ?}, {@code &} or
 *       {@code ;} (MariaDB, H2).
 * </ul>
 *
 * <p>The secrets told of are process-wide, because the places that print (a logging backend, the
 * standard streams, a driver's {@code java.util.logging} records) cannot be handed a configuration: the
 * relay server registers every secret of its configuration while it reads it. A registered secret is
 * never forgotten. Secrets shorter than {@value #MIN_LENGTH} characters are not replaced everywhere (a
 * password such as {@code short} would mask every word that holds it, {@code shorter} included); in a URL
 * they are still hidden by the second rule.
 */
public final class Redaction {
    /** What a secret is replaced by. */
    public static final String MASK = "****";

    /** The shortest registered secret that is replaced wherever it appears. */
    public static final int MIN_LENGTH = 8;

    /** Words that make a parameter or property name the name of a credential. */
    private static final String CREDENTIAL_WORD = "(?:password|passwd|passphrase|pwd|secret|token|credential"
            + "|api[-_.]?key|access[-_.]?key|private[-_.]?key|auth)";

    private static final Pattern CREDENTIAL_NAME = Pattern.compile("(?i).*" + CREDENTIAL_WORD + ".*");

    /**
     * {@code name=value} where the name holds a credential word: the value runs to the next parameter
     * separator ({@code &}, {@code ;}), white space, or a comma that white space follows (a message's
     * "(url, dialect)"), so {@code @}, {@code :}, {@code ,} and {@code %xx} inside it are hidden with it.
     */
    private static final Pattern CREDENTIAL_PARAMETER =
            Pattern.compile("(?i)((?<![\\w.-])[\\w.-]*" + CREDENTIAL_WORD + "[\\w.-]*\\s*=)(?:[^&;,\\s]|,(?!\\s))*");

    /** Where a URL parser may cut a password that holds these characters. */
    private static final Pattern PIECES = Pattern.compile("[@:/?#;&,]+");

    private static final ReentrantLock LOCK = new ReentrantLock();

    /** Every form of every registered secret, longest first (a secret inside another is replaced after it). */
    private static volatile List<String> known = List.of();

    private Redaction() {}

    /**
     * @param text any text: a message, a log line, a response body; or {@code null}
     * @return the text with every registered secret and every credential-looking URL part replaced by
     *     {@value #MASK}; {@code null} for {@code null}
     */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (String secret : known) {
            if (out.contains(secret)) {
                out = out.replace(secret, MASK);
            }
        }
        out = CREDENTIAL_PARAMETER.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + MASK));
        return maskUserInfo(out);
    }

    /**
     * Makes a secret of the configuration known, so that {@link #redact} hides it wherever it appears.
     *
     * @param secret a password, token, signing secret or header value; {@code null}, blank and values
     *     shorter than {@value #MIN_LENGTH} characters are ignored
     */
    public static void register(String secret) {
        if (secret == null || secret.isBlank()) {
            return;
        }
        Set<String> forms = new LinkedHashSet<>();
        forms.add(secret);
        forms.add(secret.strip());
        forms.add(jsonEscaped(secret));
        String encoded = URLEncoder.encode(secret, StandardCharsets.UTF_8);
        forms.add(encoded);
        forms.add(encoded.replace("+", "%20"));
        String decoded = urlDecoded(secret);
        if (decoded != null) {
            forms.add(decoded);
            forms.add(jsonEscaped(decoded));
        }
        // A driver that misreads a URL splits the password where a URL has separators and quotes a piece
        // ("Incorrect port value : p@ss"): each piece is a secret too.
        // Not a value with white space in it (a JAAS line): its pieces are words such as "password".
        for (String whole : decoded != null ? List.of(secret, decoded) : List.of(secret)) {
            if (whole.chars().noneMatch(Character::isWhitespace)) {
                forms.addAll(List.of(PIECES.split(whole)));
            }
        }
        forms.removeIf(f -> f.length() < MIN_LENGTH);
        if (forms.isEmpty()) {
            return;
        }
        LOCK.lock();
        try {
            List<String> all = new ArrayList<>(known);
            boolean changed = false;
            for (String f : forms) {
                if (!all.contains(f)) {
                    all.add(f);
                    changed = true;
                }
            }
            if (changed) {
                all.sort(Comparator.comparingInt(String::length).reversed());
                known = List.copyOf(all);
            }
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * Makes the credentials inside a URL known: the password of its user information and the value of
     * every credential parameter, as written and decoded.
     *
     * @param url a JDBC or broker URL, or any configuration value; {@code null} is ignored
     */
    public static void registerUrl(String url) {
        if (url == null) {
            return;
        }
        int[] info = userInfo(url, 0, true);
        while (info != null) {
            String userInfo = url.substring(info[0], info[1]);
            int colon = userInfo.indexOf(':');
            if (colon >= 0) {
                register(userInfo.substring(colon + 1));
            }
            info = userInfo(url, info[1], true);
        }
        Matcher m = CREDENTIAL_PARAMETER.matcher(url);
        while (m.find()) {
            register(url.substring(m.end(1), m.end()));
        }
    }

    /**
     * @param name a property, parameter or header name ({@code ssl.keystore.password}, {@code
     *     Authorization}, {@code X-Api-Key})
     * @return whether its value is a credential, by its name
     */
    public static boolean isCredentialName(String name) {
        if (name == null) {
            return false;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        return CREDENTIAL_NAME.matcher(lower).matches() || lower.equals("cookie") || lower.contains("jaas");
    }

    /** Replaces the user information of every {@code //user:password@host} by {@value #MASK}. */
    private static String maskUserInfo(String text) {
        int[] info = userInfo(text, 0, false);
        if (info == null) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        while (info != null) {
            out.append(text, copied, info[0]).append(MASK);
            copied = info[1];
            info = userInfo(text, info[1], false);
        }
        return out.append(text, copied, text.length()).toString();
    }

    /**
     * The next user information at or after {@code from}: after a {@code //}, up to the last {@code @}
     * before white space or the next {@code //}. Where it hides ({@code strict} false) nothing else ends it,
     * so that a password holding {@code @}, {@code :}, {@code /}, {@code ?} or a quote is hidden whole (a
     * path or query that holds an {@code @} is hidden with it: too much, never too little). Where it
     * registers ({@code strict} true) it ends at the host's {@code /}, {@code ?} or {@code #} as a URL
     * parser reads it, so that only a real password becomes a known secret.
     *
     * @return {start, end} of the user information (the {@code @} at end excluded), or {@code null}
     */
    private static int[] userInfo(String text, int from, boolean strict) {
        int slashes = text.indexOf("//", from);
        while (slashes >= 0) {
            int start = slashes + 2;
            int at = -1;
            int i = start;
            for (; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '@') {
                    at = i;
                } else if (Character.isWhitespace(c)
                        || c == '/' && i + 1 < text.length() && text.charAt(i + 1) == '/'
                        || strict && (c == '/' || c == '?' || c == '#')) {
                    break;
                }
            }
            if (at > start) {
                return new int[] {start, at};
            }
            slashes = text.indexOf("//", Math.max(i, start));
        }
        return null;
    }

    private static String urlDecoded(String s) {
        if (s.indexOf('%') < 0) {
            return null;
        }
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The form a JSON writer gives the secret inside a string: a response body quotes it so. */
    private static String jsonEscaped(String s) {
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04X", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
