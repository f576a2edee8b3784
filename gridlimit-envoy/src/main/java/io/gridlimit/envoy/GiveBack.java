package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;

import java.util.concurrent.CompletionStage;

/**
 * The one seam through which the Envoy service returns what an admission took when the request it belonged to is not
 * admitted as a whole (docs/SPEC.md §12): the other descriptors of a request that one descriptor denied, every
 * descriptor of a request answered {@code UNAVAILABLE}, and a grid admission that arrived after the request was
 * already answered by the failure mode.
 *
 * <p>The seam owns both ends: how a descriptor is asked ({@link #decide}) and how an admission is returned
 * ({@link #giveBack}), so that a give-back needing a handle taken at decision time (a reservation) is one
 * implementation of this interface. grid-core's {@code RateLimiter} has no give-back yet, so {@link #NONE} asks with
 * {@code tryAcquireAsync} and returns nothing: such consumption stands (the limiter under-admits, never over-admits).
 * When a give-back lands in grid-core, an implementation that asks for a reservation and gives it back replaces
 * {@link #NONE} ({@link GiveBackFactory}) and nothing else changes.
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

    /**
     * Asks the limiter for one descriptor's decision. This default is {@link RateLimiter#tryAcquireAsync(Policy,
     * String, long)}; a give-back that needs a handle asks for it here.
     *
     * @param limiter the application's limiter
     * @param policy the descriptor's policy
     * @param key its grid key
     * @param cost the cost asked, in [1, 10^15]
     * @return the pending decision, as {@code tryAcquireAsync} returns it
     */
    default CompletionStage<Decision> decide(RateLimiter limiter, Policy policy, String key, long cost) {
        return limiter.tryAcquireAsync(policy, key, cost);
    }

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
