package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;
import java.util.List;

/**
 * One policy, {@code gridlimit.policies.<name>}: an {@code algorithm} with its parameters, or {@code bands} (a
 * composite, SPEC §4), plus {@code shadow}. Ranges are grid-core's ({@code Band}); {@link GridLimitConfigFactory}
 * maps this onto {@code Policy.builder}.
 *
 * @param name the map key, exactly as written (the start-up property check ({@link io.gridlimit.micronaut.config.sources.ConfigurationSources}) refuses names Micronaut would change)
 * @param algorithm token-bucket, gcra (alias leaky-bucket), fixed-window, sliding-window-log,
 *     sliding-window-counter or calendar; null for a composite
 * @param capacity the burst size in tokens (bucket algorithms)
 * @param refillTokens tokens per refill period (bucket algorithms)
 * @param refillPeriod the refill period (bucket algorithms)
 * @param limit the quota per window (window algorithms) or per period (calendar)
 * @param window the window (window algorithms)
 * @param shadow true to evaluate and report without ever denying
 * @param bands the bands of a composite policy, or null
 * @param maxDebt how far below zero a settle may take the balance (docs/SPEC.md §10), in the band's units; for a
 *     composite, the default of every band without its own; null: the band's quota
 * @param period calendar: hour, day, week, month, quarter or year (docs/SPEC.md §14)
 * @param zone calendar: an IANA time-zone id or UTC (the default)
 * @param weekStart calendar, period week: the first day of a week, monday (the default) to sunday
 * @param anchor calendar, period month: the day a month starts on, 1 (the default) to 31 (the last day of shorter
 *     months)
 */
@EachProperty("gridlimit.policies")
public record PolicyProperties(@Parameter String name, @Nullable String algorithm, @Nullable Long capacity,
                               @Nullable Long refillTokens, @Nullable Duration refillPeriod, @Nullable Long limit,
                               @Nullable Duration window, @Bindable(defaultValue = "false") boolean shadow,
                               @Nullable List<Band> bands, @Nullable Long maxDebt, @Nullable String period,
                               @Nullable String zone, @Nullable String weekStart, @Nullable Long anchor) {
    /**
     * One band of a composite policy, {@code gridlimit.policies.<name>.bands.<band>}; parameters as above.
     *
     * @param name the band name, exactly as written
     * @param algorithm the band's algorithm
     * @param capacity the burst size in tokens
     * @param refillTokens tokens per refill period
     * @param refillPeriod the refill period
     * @param limit the quota per window
     * @param window the window
     * @param maxDebt the band's maximum debt (docs/SPEC.md §10); null: the policy's, else the band's quota
     * @param period calendar: the kind of period
     * @param zone calendar: the time zone
     * @param weekStart calendar, period week: the first day of a week
     * @param anchor calendar, period month: the day a month starts on
     */
    @EachProperty("bands")
    public record Band(@Parameter String name, @Nullable String algorithm, @Nullable Long capacity,
                       @Nullable Long refillTokens, @Nullable Duration refillPeriod, @Nullable Long limit,
                       @Nullable Duration window, @Nullable Long maxDebt, @Nullable String period,
                       @Nullable String zone, @Nullable String weekStart, @Nullable Long anchor) {
    }
}
