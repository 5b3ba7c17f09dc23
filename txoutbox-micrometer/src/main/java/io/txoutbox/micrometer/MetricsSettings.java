package io.txoutbox.micrometer;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * The meters' settings, checked: each is declared here once, as a {@link Setting}. {@link
 * OutboxMetrics.Builder} and the Spring starter's {@code txoutbox.metrics.*} properties bind through these
 * descriptors and are checked by {@link #of}, which names a refused setting as the caller spelled it.
 */
public final class MetricsSettings {
    /** How long the gauges reuse one stats read. */
    public static final Setting<Duration> STATS_REFRESH = Setting.builder("statsRefresh", Duration.class)
            .defaultValue(OutboxMetrics.Builder.DEFAULT_STATS_REFRESH)
            .notNegativeUpTo(Duration.ofDays(1))
            .doc("How long the gauges reuse one stats read; a scrape after it passed reads the table again.")
            .build();

    /** Client-side percentiles of the two timers. */
    public static final Setting<double[]> PERCENTILES = Setting.builder("percentiles", double[].class)
            .defaultValue(new double[] {0.5, 0.99})
            .defaultText("0.5, 0.99")
            .rule(MetricsSettings::allFractions, "hold numbers between 0 and 1 only", "each in [0, 1]")
            .doc("Client-side percentiles of the publish and delivery timers; none publishes none.")
            .build();

    /** Whether the timers publish histogram buckets. */
    public static final Setting<Boolean> HISTOGRAM = Setting.builder("histogram", Boolean.class)
            .defaultValue(false)
            .doc("Publish histogram buckets of the two timers, for server-side percentiles.")
            .build();

    /** Whether the event counters are tagged with the event type. */
    public static final Setting<Boolean> TYPE_TAG = Setting.builder("typeTag", Boolean.class)
            .defaultValue(true)
            .doc("Tag the event counters with the event type; turn it off when types are many or not yours.")
            .build();

    /** Event types with series of their own. */
    public static final Setting<Integer> MAX_TYPES = Setting.builder("maxTypes", Integer.class)
            .defaultValue(OutboxMetrics.Builder.DEFAULT_MAX_TYPES)
            .between(1, OutboxMetrics.Builder.MAX_TYPES_LIMIT)
            .doc("Event types with type-tagged series of their own, the first ones seen; every later type counts"
                    + " under type=\"<other>\".")
            .build();

    /** The settings of the meters, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(STATS_REFRESH, PERCENTILES, HISTOGRAM, TYPE_TAG, MAX_TYPES);

    /** The Java spelling: {@code OutboxMetrics.Builder.maxTypes}. */
    static final Spelling JAVA = Spelling.java("OutboxMetrics.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final Duration statsRefresh;
    private final double[] percentiles;
    private final boolean histogram;
    private final boolean typeTag;
    private final int maxTypes;

    private MetricsSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.statsRefresh = v.checked(STATS_REFRESH, spelling);
        this.percentiles = v.checked(PERCENTILES, spelling).clone();
        this.histogram = v.checked(HISTOGRAM, spelling);
        this.typeTag = v.checked(TYPE_TAG, spelling);
        this.maxTypes = v.checked(MAX_TYPES, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting out of bounds
     */
    public static MetricsSettings of(SettingValues values, Spelling spelling) {
        return new MetricsSettings(values, spelling);
    }

    private static boolean allFractions(double[] values) {
        for (double p : values) {
            if (!(p >= 0 && p <= 1)) {
                return false;
            }
        }
        return true;
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return how long the gauges reuse one stats read */
    public Duration statsRefresh() {
        return statsRefresh;
    }

    /** @return the timers' client-side percentiles (a copy) */
    public double[] percentiles() {
        return percentiles.clone();
    }

    /** @return whether the timers publish histogram buckets */
    public boolean histogram() {
        return histogram;
    }

    /** @return whether the event counters are tagged with the event type */
    public boolean typeTag() {
        return typeTag;
    }

    /** @return event types with series of their own */
    public int maxTypes() {
        return maxTypes;
    }
}
