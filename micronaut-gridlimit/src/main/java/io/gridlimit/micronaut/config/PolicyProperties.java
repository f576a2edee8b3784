package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * The raw settings of one policy, {@code gridlimit.policies.<name>}: either an {@code algorithm} with its
 * parameters, or {@code bands} (a composite, SPEC §4), plus {@code shadow}.
 *
 * <p>Bound as text; {@link GridLimitConfigFactory} converts and checks (see {@link GridLimitProperties} for why).
 * Micronaut normalises property names to lower-case kebab form, so write policy and band names that way.
 */
@EachProperty(PolicyProperties.PREFIX)
public class PolicyProperties {
    /** The root of the policy map. */
    public static final String PREFIX = GridLimitProperties.PREFIX + ".policies";

    private final String name;
    private final List<BandProperties> bands;
    private final BandFields fields = new BandFields();
    private String shadow;

    /**
     * @param name the policy name, the map key under {@code gridlimit.policies}
     * @param bands the bands under {@code gridlimit.policies.<name>.bands}, in no particular order; may be null
     */
    public PolicyProperties(@Parameter String name, @Nullable List<BandProperties> bands) {
        this.name = name;
        this.bands = bands == null ? List.of() : List.copyOf(bands);
    }

    /** @return the policy name */
    public String getName() {
        return name;
    }

    /** @return the bands of a composite policy, in no particular order (the factory restores declared order) */
    public List<BandProperties> getBands() {
        return bands;
    }

    /** @return the single-band parameters, never null */
    BandFields fields() {
        return fields;
    }

    /** @return {@code algorithm} as written, or null */
    public @Nullable String getAlgorithm() {
        return fields.algorithm;
    }

    /**
     * @param algorithm token-bucket, gcra (alias leaky-bucket), fixed-window, sliding-window-log or
     *     sliding-window-counter
     */
    public void setAlgorithm(@Nullable String algorithm) {
        fields.algorithm = algorithm;
    }

    /** @param capacity the burst size in tokens */
    public void setCapacity(@Nullable String capacity) {
        fields.capacity = capacity;
    }

    /** @param refillTokens tokens per refill period */
    public void setRefillTokens(@Nullable String refillTokens) {
        fields.refillTokens = refillTokens;
    }

    /** @param refillPeriod the refill period, e.g. {@code 1s} */
    public void setRefillPeriod(@Nullable String refillPeriod) {
        fields.refillPeriod = refillPeriod;
    }

    /** @param limit the quota per window */
    public void setLimit(@Nullable String limit) {
        fields.limit = limit;
    }

    /** @param window the window, e.g. {@code 10s} */
    public void setWindow(@Nullable String window) {
        fields.window = window;
    }

    /** @return {@code shadow} as written, or null */
    public @Nullable String getShadow() {
        return shadow;
    }

    /** @param shadow {@code true} to evaluate and report without ever denying */
    public void setShadow(@Nullable String shadow) {
        this.shadow = shadow;
    }

    /** The parameters of one band, as written. */
    static final class BandFields {
        String algorithm;
        String capacity;
        String refillTokens;
        String refillPeriod;
        String limit;
        String window;

        boolean isEmpty() {
            return algorithm == null && capacity == null && refillTokens == null && refillPeriod == null
                    && limit == null && window == null;
        }
    }

    /** The raw settings of one band, {@code gridlimit.policies.<name>.bands.<band>}. */
    @EachProperty("bands")
    public static class BandProperties {
        private final String name;
        private final BandFields fields = new BandFields();

        /** @param name the band name, the map key under {@code bands} */
        public BandProperties(@Parameter String name) {
            this.name = name;
        }

        /** @return the band name */
        public String getName() {
            return name;
        }

        /** @return the parameters, never null */
        BandFields fields() {
            return fields;
        }

        /** @param algorithm the band's algorithm */
        public void setAlgorithm(@Nullable String algorithm) {
            fields.algorithm = algorithm;
        }

        /** @param capacity the burst size in tokens */
        public void setCapacity(@Nullable String capacity) {
            fields.capacity = capacity;
        }

        /** @param refillTokens tokens per refill period */
        public void setRefillTokens(@Nullable String refillTokens) {
            fields.refillTokens = refillTokens;
        }

        /** @param refillPeriod the refill period */
        public void setRefillPeriod(@Nullable String refillPeriod) {
            fields.refillPeriod = refillPeriod;
        }

        /** @param limit the quota per window */
        public void setLimit(@Nullable String limit) {
            fields.limit = limit;
        }

        /** @param window the window */
        public void setWindow(@Nullable String window) {
            fields.window = window;
        }
    }
}
