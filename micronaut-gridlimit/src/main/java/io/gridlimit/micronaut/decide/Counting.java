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
    EACH_ON_ITS_OWN
}
