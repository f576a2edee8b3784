package io.gridlimit.micronaut.decide;

/**
 * How one request's rules count together when one of them denies it (docs/SPEC.md §10, "All-or-nothing"): a
 * property of each call to {@link Decider#begin(Door, Counting, long, java.util.concurrent.ScheduledExecutorService,
 * java.util.concurrent.Executor)}, so that a door asks for the counting its protocol promises instead of writing a
 * second one. A request that is not admitted because the grid failed or its caller went away consumes nothing under
 * either ({@link Decisions#close} with {@code failed} gives every admission back).
 */
public enum Counting {
    /**
     * A request denied by one rule consumes nothing under the others: {@link Decisions#close} with {@code denied}
     * gives back every admission, now or arriving later (the HTTP filter, an atomic decision-API batch, Envoy's
     * descriptors; the default).
     */
    ALL_OR_NOTHING,
    /**
     * Each rule counts on its own: a denial by one leaves what the others admitted standing, and rules still in
     * flight are answered and stand ({@link Decisions#close} with {@code denied} does nothing); a request that is
     * then answered as failed still gives every admission back. A decision-API batch that is not atomic.
     */
    EACH_ON_ITS_OWN,
    /**
     * envoyproxy/ratelimit's counting (Envoy's {@code compatibility: reference}, docs/SPEC.md §12): each rule counts
     * on its own, and every hit counts, denied ones too ({@link io.gridlimit.api.RateLimiter#hitAsync}, SPEC §3
     * "Every hit counts"; a rule of cost 0 is a peek). Nothing is taken as a reservation, so nothing is ever given
     * back: a close, for either reason, only stops waiting, and a hit the grid answers after its rule was answered
     * otherwise still counts (errs towards denying). Rules are single fixed-window policies; under
     * {@code failure-mode: local} the replica's share counts them the same way.
     */
    EVERY_HIT;

    /** @return whether a denial leaves what the request's other rules admitted standing */
    boolean eachOnItsOwn() {
        return this != ALL_OR_NOTHING;
    }
}
