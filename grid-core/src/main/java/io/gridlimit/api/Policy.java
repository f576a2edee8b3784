package io.gridlimit.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable rate-limit rule with a stable name: one {@link Band}, or several named bands (a composite, SPEC §4)
 * that must all admit a request, which then consumes from every band.
 *
 * <p>Built through {@link #builder(String)}, whose setters validate at once (SPEC §1 ranges). Each policy's state
 * lives in its own map, {@code gridlimit.<name>}. Immutable and thread-safe.
 *
 * <pre>{@code
 * Policy api = Policy.builder("api").tokenBucket(20, 5, Duration.ofSeconds(1)).build();
 * Policy tiers = Policy.builder("tiers")
 *     .band(Band.tokenBucket("burst", 10, 1, Duration.ofSeconds(1)))
 *     .band(Band.slidingWindowLog("hourly", 1000, Duration.ofHours(1)))
 *     .build();
 * }</pre>
 */
public final class Policy {
    private final String name;
    private final List<Band> bands;
    private final boolean composite;
    /** Computed once: a policy is a map key on every request (per-policy header parts, renamed copies). */
    private final int hash;

    private Policy(String name, List<Band> bands, boolean composite) {
        this.name = name;
        this.bands = List.copyOf(bands);
        this.composite = composite;
        this.hash = Objects.hash(this.name, this.bands, composite);
    }

    /**
     * Starts a policy.
     *
     * @param name the policy name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @return a new builder, never null
     * @throws IllegalArgumentException if the name is malformed (the message quotes it)
     * @throws NullPointerException if {@code name} is null
     */
    public static Builder builder(String name) {
        return new Builder(Band.checkName(name));
    }

    /** @return the policy name, never null */
    public String name() {
        return name;
    }

    /**
     * Returns the bands in declared order. A single-band policy has exactly one band, named after the policy.
     *
     * @return an unmodifiable list of 1 to 16 bands
     */
    public List<Band> bands() {
        return bands;
    }

    /** @return true when the policy was built from named bands ({@link Builder#band(Band)}) */
    public boolean isComposite() {
        return composite;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Policy p && name.equals(p.name) && composite == p.composite
                && bands.equals(p.bands));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "Policy{" + name + " " + bands + "}";
    }

    /** Builds a {@link Policy}; not thread-safe. Each setter validates at once. */
    public static final class Builder {
        /** Most bands a composite policy may have. */
        public static final int MAX_BANDS = 16;

        private final String name;
        private final List<Band> bands = new ArrayList<>();
        private Band single;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * Makes this a single-band token bucket policy (SPEC §3).
         *
         * @param capacity burst size in tokens, in [1, 10^15]
         * @param refillTokens tokens per refill period, in [1, 10^15]
         * @param refillPeriod in [1 ms, 365 days]
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder tokenBucket(long capacity, long refillTokens, Duration refillPeriod) {
            return single(Band.tokenBucket(name, capacity, refillTokens, refillPeriod));
        }

        /**
         * Makes this a single-band GCRA policy (SPEC §3).
         *
         * @param capacity burst size in tokens, in [1, 10^15]
         * @param refillTokens tokens per refill period, in [1, 10^15]
         * @param refillPeriod in [1 ms, 365 days]
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder gcra(long capacity, long refillTokens, Duration refillPeriod) {
            return single(Band.gcra(name, capacity, refillTokens, refillPeriod));
        }

        /**
         * Makes this a single-band fixed window policy (SPEC §3).
         *
         * @param limit quota per window, in [1, 10^15]
         * @param window in [1 ms, 365 days]
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder fixedWindow(long limit, Duration window) {
            return single(Band.fixedWindow(name, limit, window));
        }

        /**
         * Makes this a single-band sliding window log policy (SPEC §3).
         *
         * @param limit quota per window, in [1, 100 000]
         * @param window in [1 ms, 365 days]
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder slidingWindowLog(long limit, Duration window) {
            return single(Band.slidingWindowLog(name, limit, window));
        }

        /**
         * Makes this a single-band sliding window counter policy (SPEC §3).
         *
         * @param limit quota per window, in [1, 10^15]
         * @param window in [1 ms, 365 days]
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder slidingWindowCounter(long limit, Duration window) {
            return single(Band.slidingWindowCounter(name, limit, window));
        }

        /**
         * Makes this a single-band calendar policy (docs/SPEC.md §14).
         *
         * @param limit quota per period, in [1, 10^15]
         * @param calendar the periods
         * @return this builder
         * @throws IllegalArgumentException naming the parameter and its value when out of range
         */
        public Builder calendar(long limit, io.gridlimit.calendar.CalendarPeriods calendar) {
            return single(Band.calendar(name, limit, calendar));
        }

        /**
         * Makes this a single-band policy of the given band, renamed after the policy.
         *
         * @param band any band
         * @return this builder
         * @throws IllegalStateException if named bands were added
         */
        public Builder single(Band band) {
            Objects.requireNonNull(band, "band");
            if (!bands.isEmpty()) {
                throw new IllegalStateException("policy '" + name + "' already has named bands");
            }
            this.single = band.name().equals(name) ? band : band.withName(name);
            return this;
        }

        /**
         * Adds a named band, making this a composite policy (SPEC §4). Bands are checked in declared order.
         *
         * @param band a band whose name is unique within this policy
         * @return this builder
         * @throws IllegalArgumentException if a band of that name was already added, or more than 16 bands
         * @throws IllegalStateException if a single band was already set
         */
        public Builder band(Band band) {
            Objects.requireNonNull(band, "band");
            if (single != null) {
                throw new IllegalStateException("policy '" + name + "' is already a single-band policy");
            }
            for (Band b : bands) {
                if (b.name().equals(band.name())) {
                    throw new IllegalArgumentException(
                            "policy '" + name + "' has two bands named '" + band.name() + "'");
                }
            }
            if (bands.size() == MAX_BANDS) {
                throw new IllegalArgumentException("policy '" + name + "' has more than " + MAX_BANDS + " bands");
            }
            bands.add(band);
            return this;
        }

        /**
         * Builds the policy.
         *
         * @return the immutable policy, never null
         * @throws IllegalArgumentException if no band was given
         */
        public Policy build() {
            if (single != null) {
                return new Policy(name, List.of(single), false);
            }
            if (bands.isEmpty()) {
                throw new IllegalArgumentException("policy '" + name + "' has no band: set an algorithm or add bands");
            }
            Set<String> seen = new HashSet<>();
            bands.forEach(b -> seen.add(b.name()));
            return new Policy(name, bands, true);
        }
    }
}
