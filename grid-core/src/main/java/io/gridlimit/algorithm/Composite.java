package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.util.ArrayList;
import java.util.List;

/**
 * Combines band decisions: composite policies and the single-band case (SPEC §4).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Rule.</b> A request is admitted iff every band admits it; then it consumes from every band; denied by
 *   any band, it consumes from none (each band is first evaluated without consuming, then all admitted states
 *   are taken together or none is).</li>
 *   <li><b>Binding band.</b> On a denial: the first declared denying band that can never pass, else the denying
 *   band with the longest retryAfter (the first declared among equals). When admitted: the band with the
 *   smallest remaining, then the nearest resetAfter, then the first declared ({@link Decision#bindsBefore}).
 *   The decision's limit (the band's quota: capacity or window limit), remaining, resetAfter and retryAfter are
 *   the binding band's;
 *   {@link Decision#band()} names it for a composite policy and is null for a single-band one.</li>
 *   <li><b>State.</b> A {@link CompositeState} maps band names to band states, so a changed policy keeps the
 *   bands it still has; a band whose algorithm, period or window changed starts fresh here (the band algorithm
 *   ignores a state of another shape): the grid carries such a state over first ({@link CarryOver}). A single-band
 *   state found under a composite policy is taken as the state
 *   of the band named after the policy, and the reverse, so switching a policy between the two keeps that
 *   band.</li>
 *   <li><b>Writes and TTL.</b> Admitted: every band's new state, TTL the longest band TTL. Denied: nothing,
 *   unless a band rebased after a clock step back (SPEC §2): then every band's current state (rebased where it
 *   was) is written, TTL the longest time until a band is fresh. TTLs saturate at {@code Long.MAX_VALUE}.</li>
 *   <li><b>Overflow and clock step back</b> are handled inside each band algorithm ({@link TokenBucket},
 *   {@link Gcra}, {@link FixedWindow} (calendar bands too), {@link SlidingWindowLog},
 *   {@link SlidingWindowCounter}).</li>
 * </ol>
 * Sources: SPEC.md §2, §4.
 */
final class Composite {
    private Composite() {
    }

    static BandResult decideBand(LimiterState bandState, Band band, long cost, long nowNanos) {
        return switch (band.algorithm()) {
            case TOKEN_BUCKET -> TokenBucket.decide(bandState, band, cost, nowNanos);
            case GCRA -> Gcra.decide(bandState, band, cost, nowNanos);
            case FIXED_WINDOW -> FixedWindow.decide(bandState, band, cost, nowNanos);
            case SLIDING_WINDOW_LOG -> SlidingWindowLog.decide(bandState, band, cost, nowNanos);
            case SLIDING_WINDOW_COUNTER -> SlidingWindowCounter.decide(bandState, band, cost, nowNanos);
            case CALENDAR -> FixedWindow.decideCalendar(bandState, band, cost, nowNanos);
        };
    }

    static long nanosUntilFresh(LimiterState bandState, Band band, long nowNanos) {
        return switch (band.algorithm()) {
            case TOKEN_BUCKET -> TokenBucket.nanosUntilFresh(bandState, band, nowNanos);
            case GCRA -> Gcra.nanosUntilFresh(bandState, band, nowNanos);
            case FIXED_WINDOW -> FixedWindow.nanosUntilFresh(bandState, band, nowNanos);
            case SLIDING_WINDOW_LOG -> SlidingWindowLog.nanosUntilFresh(bandState, band, nowNanos);
            case SLIDING_WINDOW_COUNTER -> SlidingWindowCounter.nanosUntilFresh(bandState, band, nowNanos);
            case CALENDAR -> FixedWindow.nanosUntilFreshCalendar(bandState, band, nowNanos);
        };
    }

    /**
     * The state of a policy whose bands' states are {@code bandStates} (in band order, null for fresh): the single
     * band's state for a single-band policy, else a {@link CompositeState} of the non-null ones at {@code lastNanos}.
     */
    static LimiterState ofBands(Policy policy, LimiterState[] bandStates, long lastNanos) {
        if (!policy.isComposite()) {
            return bandStates[0];
        }
        List<Band> bands = policy.bands();
        List<String> names = new ArrayList<>();
        List<LimiterState> states = new ArrayList<>();
        for (int i = 0; i < bands.size(); i++) {
            if (bandStates[i] != null) {
                names.add(bands.get(i).name());
                states.add(bandStates[i]);
            }
        }
        return new CompositeState(lastNanos, names.toArray(new String[0]), states.toArray(new LimiterState[0]),
                false);
    }

    /** The stored state of one band of {@code policy}, or null. */
    static LimiterState bandState(LimiterState stored, Policy policy, Band band) {
        if (stored instanceof CompositeState c) {
            return c.bandState(band.name());
        }
        return stored != null && band.name().equals(policy.name()) ? stored : null;
    }

    static Outcome apply(LimiterState stored, Policy policy, long cost, long nowNanos) {
        if (!policy.isComposite()) {
            Band band = policy.bands().get(0);
            BandResult r = decideBand(bandState(stored, policy, band), band, cost, nowNanos);
            Decision d = new Decision(r.allowed, band.quota(), r.remaining, r.resetAfterNanos, r.retryAfterNanos,
                    null);
            if (r.allowed) {
                return new Outcome(d, true, r.admittedState, r.resetAfterNanos);
            }
            return r.rebased ? new Outcome(d, true, r.keepState, r.keepResetAfterNanos)
                    : new Outcome(d, false, stored, 0);
        }
        List<Band> bands = policy.bands();
        int n = bands.size();
        BandResult[] results = new BandResult[n];
        boolean allowed = true;
        boolean rebased = false;
        for (int i = 0; i < n; i++) {
            Band band = bands.get(i);
            results[i] = decideBand(bandState(stored, policy, band), band, cost, nowNanos);
            allowed &= results[i].allowed;
            rebased |= results[i].rebased;
        }
        int binding = allowed ? bindingAdmitted(results) : bindingDenied(results);
        BandResult b = results[binding];
        Decision d = new Decision(allowed, bands.get(binding).quota(), b.remaining, b.resetAfterNanos,
                allowed ? Decision.NO_RETRY : b.retryAfterNanos, bands.get(binding).name());
        if (!allowed && !rebased) {
            return new Outcome(d, false, stored, 0);
        }
        List<String> names = new ArrayList<>(n);
        List<LimiterState> states = new ArrayList<>(n);
        long ttlNanos = 0;
        for (int i = 0; i < n; i++) {
            BandResult r = results[i];
            LimiterState s = allowed ? r.admittedState : r.keepState;
            if (s != null) {
                names.add(bands.get(i).name());
                states.add(s);
            }
            ttlNanos = Math.max(ttlNanos, allowed ? r.resetAfterNanos : r.keepResetAfterNanos);
        }
        CompositeState state = new CompositeState(nowNanos, names.toArray(new String[0]),
                states.toArray(new LimiterState[0]), false);
        return new Outcome(d, true, state, ttlNanos);
    }

    private static int bindingAdmitted(BandResult[] results) {
        int best = 0;
        for (int i = 1; i < results.length; i++) {
            BandResult r = results[i];
            BandResult b = results[best];
            if (Decision.bindsBefore(r.remaining, r.resetAfterNanos, b.remaining, b.resetAfterNanos)) {
                best = i;
            }
        }
        return best;
    }

    private static int bindingDenied(BandResult[] results) {
        int best = -1;
        for (int i = 0; i < results.length; i++) {
            BandResult r = results[i];
            if (r.allowed) {
                continue;
            }
            if (r.neverPasses()) {
                return i;
            }
            if (best < 0 || r.retryAfterNanos > results[best].retryAfterNanos) {
                best = i;
            }
        }
        return best;
    }

    static boolean isFresh(LimiterState stored, Policy policy, long nowNanos) {
        if (stored == null) {
            return true;
        }
        for (Band band : policy.bands()) {
            if (nanosUntilFresh(bandState(stored, policy, band), band, nowNanos) != 0) {
                return false;
            }
        }
        return true;
    }
}
