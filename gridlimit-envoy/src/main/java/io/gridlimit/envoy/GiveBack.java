package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

/**
 * The one seam through which the Envoy service returns what an admission took when the request it belonged to is not
 * admitted as a whole (docs/SPEC.md §12): the other descriptors of a request that one descriptor denied, every
 * descriptor of a request answered {@code UNAVAILABLE}, and a grid admission that arrived after the request was
 * already answered by the failure mode.
 *
 * <p>grid-core's {@code RateLimiter} has no give-back yet, so {@link #NONE} is the only implementation: nothing is
 * returned, and such consumption stands (the limiter under-admits, never over-admits). When a give-back lands in
 * grid-core, an implementation calling it replaces {@link #NONE} here and nothing else changes.
 */
public interface GiveBack {
    /** Returns nothing: what an admission took stands. */
    GiveBack NONE = new GiveBack() {
        @Override
        public boolean returnsCapacity() {
            return false;
        }

        @Override
        public void giveBack(Policy policy, String key, long cost, Decision admitted) {
            // no give-back in grid-core yet: the consumption stands
        }
    };

    /** @return whether {@link #giveBack} returns capacity (false: requests are decided descriptor by descriptor) */
    boolean returnsCapacity();

    /**
     * Returns what one admission took. Never blocks; never throws.
     *
     * @param policy the policy that admitted
     * @param key the grid key
     * @param cost the cost admitted, in [1, 10^15]
     * @param admitted the admitting decision
     */
    void giveBack(Policy policy, String key, long cost, Decision admitted);
}
