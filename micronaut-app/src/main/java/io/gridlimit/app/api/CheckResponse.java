package io.gridlimit.app.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gridlimit.api.Decision;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;

import java.util.Objects;

/**
 * One decision of the decision API, as JSON:
 * {@code {"allowed", "limit", "remaining", "resetAfterMillis", "retryAfterMillis", "policy", "band"}}.
 *
 * <p>Every member is always written, {@code null} included. Milliseconds are derived from the decision's
 * nanoseconds rounded up, and are 0 only when the nanoseconds are 0 (SPEC §5): a reset 10 s + 1 ns away reports
 * {@code 10001}.
 *
 * @param allowed whether the request was admitted (and its cost consumed)
 * @param limit the binding band's quota: capacity in tokens for buckets, limit per window for windows; [1, 10^15]
 * @param remaining quota left after this request when admitted, or now when denied; [0, limit]
 * @param resetAfterMillis milliseconds until the binding band is back to its full quota if nothing else arrives,
 *     rounded up; >= 0
 * @param retryAfterMillis on a denial that can pass, the least milliseconds (rounded up, >= 1) after which the same
 *     cost would be admitted if nothing else arrives; null when admitted or when the cost can never be admitted
 * @param policy the policy name, as requested
 * @param band the binding band's name for a composite policy; null for a single-band policy
 * @param reservation for a check sent with {@code "reserve": true} that was admitted (and not given back): the
 *     reservation token to settle with {@code POST /v1/ratelimit/settle} (docs/SPEC.md §10); absent otherwise
 * @param givenBack in a batch sent with {@code "atomic": true}: true when this check's admission was given back
 *     because another check was denied, so it consumed nothing; false when it stands (or was denied); absent
 *     outside atomic batches
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
public record CheckResponse(
        boolean allowed,
        long limit,
        long remaining,
        long resetAfterMillis,
        @Nullable Long retryAfterMillis,
        String policy,
        @Nullable String band,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String reservation,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Boolean givenBack) {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    /**
     * Maps a core decision to its JSON form.
     *
     * @param decision the decision, as the limiter computed it (shadow policies are not overridden)
     * @param policy the policy name
     * @return the response, never null
     * @throws NullPointerException if an argument is null
     */
    public static CheckResponse of(Decision decision, String policy) {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(policy, "policy");
        Long retryAfterMillis = decision.retryAfterNanos() == Decision.NO_RETRY
                ? null : ceilMillis(decision.retryAfterNanos());
        return new CheckResponse(decision.allowed(), decision.limit(), decision.remaining(),
                ceilMillis(decision.resetAfterNanos()), retryAfterMillis, policy, decision.band(), null, null);
    }

    /**
     * @param token the reservation token, or null
     * @return this response carrying {@code token}
     */
    CheckResponse withReservation(@Nullable String token) {
        return new CheckResponse(allowed, limit, remaining, resetAfterMillis, retryAfterMillis, policy, band, token,
                givenBack);
    }

    /**
     * @param back whether the admission was given back
     * @return this response in an atomic batch's form (given back: no reservation)
     */
    CheckResponse withGivenBack(boolean back) {
        return new CheckResponse(allowed, limit, remaining, resetAfterMillis, retryAfterMillis, policy, band,
                back ? null : reservation, back);
    }

    /**
     * Converts nanoseconds to milliseconds, rounding up (SPEC §5).
     *
     * @param nanos a duration in nanoseconds, >= 0
     * @return {@code ceil(nanos / 10^6)}: 0 only for 0; {@code Long.MAX_VALUE} ns gives 9 223 372 036 855
     * @throws IllegalArgumentException if {@code nanos} is negative
     */
    static long ceilMillis(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("nanos must be >= 0, got " + nanos);
        }
        return nanos == 0 ? 0 : (nanos - 1) / NANOS_PER_MILLI + 1;
    }
}
