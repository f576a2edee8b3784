package io.gridlimit.app.api;

import io.gridlimit.api.Settlement;
import io.micronaut.serde.annotation.Serdeable;

/**
 * The answer to {@code POST /v1/ratelimit/settle} (docs/SPEC.md §10):
 * {@code {"status", "actual", "excess", "debt", "policy"}}.
 *
 * @param status {@code "settled"}, or {@code "already-settled"} for a retry (nothing changed)
 * @param actual the actual cost that stands for the reservation: this settle's, or the first settle's
 * @param excess cost not charged because a band's maximum debt was reached, >= 0
 * @param debt true when the settle left a band's balance below zero (later requests repay it)
 * @param policy the reservation's policy
 */
@Serdeable
public record SettleResponse(String status, long actual, long excess, boolean debt, String policy) {
    static SettleResponse of(Settlement s, String policy) {
        return new SettleResponse(s.status().wireName(), s.actual(), s.excess(), s.debt(), policy);
    }
}
