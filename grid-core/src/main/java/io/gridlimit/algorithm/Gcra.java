package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.internal.Wide;

/**
 * Generic cell rate algorithm, virtual scheduling form, exact (SPEC §3; ITU-T I.371 §4.4.2 / Annex A).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Formula.</b> Burst {@code B = C}, emission interval {@code T = P/R}. A request of cost {@code c} at
 *   {@code t} conforms iff {@code max(TAT, t) + c·T − t <= B·T} (I.371's {@code TAT <= t + τ} with tolerance
 *   {@code τ = (B − c)·T}); then {@code TAT := max(TAT, t) + c·T}.
 *   {@code remaining = floor(B − (max(TAT, t) − t)/T)}; {@code resetAfter = ceil(max(0, TAT − t))}; on a denial
 *   {@code retryAfter = ceil(max(TAT, t) + c·T − t − B·T)}. With {@code X = (max(TAT, t) − t)·R} (an integer,
 *   because {@code TAT} is stored scaled by {@code R}) these are: admit iff {@code X + c·P <= B·P};
 *   {@code remaining = B − ceil(X/P)}; {@code resetAfter = ceil(X/R)}; {@code retryAfter = ceil((X + c·P − B·P)/R)}.
 *   {@code X/P} is exactly the token bucket's missing tokens, so every decision equals {@link TokenBucket}'s
 *   with the same parameters (a property test checks it on random sequences).</li>
 *   <li><b>Overflow.</b> {@code TAT·R} (a reading of up to 2^63 ns times 10^15) and {@code B·P} (10^15 × 365 days)
 *   are 128-bit values ({@link Wide}); resetAfter saturates at {@code Long.MAX_VALUE}; a retryAfter beyond it, or
 *   a cost above {@code B}, is unsatisfiable ({@link Decision#NO_RETRY}).</li>
 *   <li><b>Clock step back</b> (SPEC §2): TAT shifts back by {@code lastNanos − now}, so the debt
 *   {@code TAT − t} is what it was at the last write; the rebased state is written even on a denial.</li>
 *   <li><b>Policy change</b> (SPEC §4): the tokens at the last write, {@code B_old − (TAT − last)/T_old}, are
 *   clamped to the new capacity and credited {@code (now − last)·R_new/P}, as the token bucket does; a state
 *   written under another refill period is ignored (fresh).</li>
 *   <li><b>Settle</b> (SPEC §10) of a reservation of {@code c} to an actual {@code a}: with the debt {@code X} at
 *   the reading, {@code a < c} moves TAT back by {@code (c − a)·T}, never before the reading:
 *   {@code X := max(0, X − (c − a)·P)}; {@code a > c} moves it forward by {@code k·T} with
 *   {@code k = min(a − c, floor(((B + D)·P − X)/P))} ({@code D} the band's maximum debt, so TAT never lies more
 *   than {@code (B + D)·T} ahead), and reports {@code a − c − k} as excess. {@code X/P} being the token bucket's
 *   missing tokens, this is {@link TokenBucket}'s settle, decision for decision.</li>
 * </ol>
 * Sources: ITU-T Recommendation I.371 (GCRA, virtual scheduling); SPEC.md §2-4.
 */
final class Gcra {
    private Gcra() {
    }

    /** The debt {@code X = (max(TAT, t) − t)·R} at the reading; {@code stored} is null when fresh. */
    private record Debt(Wide x, boolean rebased, GcraState stored) {
    }

    private static Debt load(LimiterState stored, Band band, long nowNanos) {
        long periodNanos = band.refillPeriodNanos();
        if (!(stored instanceof GcraState s) || s.refillPeriodNanos() != periodNanos) {
            return new Debt(Wide.ZERO, false, null);
        }
        Wide tatScaled = Wide.of(s.tatHigh(), s.tatLow());
        long oldRate = s.refillTokens();
        boolean rebased = nowNanos < s.lastNanos();
        boolean sameParameters = oldRate == band.refillTokens() && s.capacity() == band.capacity();
        if (sameParameters && !rebased) {
            return new Debt(Wide.max(Wide.ZERO, tatScaled.subtract(Wide.product(nowNanos, oldRate))), false, s);
        }
        // The debt at the last write (after a step back TAT has shifted back with the reading, so it is unchanged).
        Wide debtAtLast = Wide.max(Wide.ZERO, tatScaled.subtract(Wide.product(s.lastNanos(), oldRate)));
        if (sameParameters) {
            return new Debt(debtAtLast, true, s);
        }
        // Policy change: in units of 1/P token, tokens at the last write = B_old·P − debt; clamp to B_new, refill.
        Wide missing = Wide.max(Wide.ZERO, Wide.product(band.capacity(), periodNanos)
                .subtract(Wide.product(s.capacity(), periodNanos)).add(debtAtLast));
        if (!rebased) {
            long elapsedNanos = nowNanos - s.lastNanos();
            if (elapsedNanos < 0) {
                elapsedNanos = Long.MAX_VALUE;
            }
            missing = Wide.max(Wide.ZERO, missing.subtract(Wide.product(elapsedNanos, band.refillTokens())));
        }
        return new Debt(missing, rebased, s);
    }

    private static GcraState stateAt(long nowNanos, Wide x, Band band) {
        Wide tatScaled = Wide.product(nowNanos, band.refillTokens()).add(x);
        return new GcraState(nowNanos, tatScaled.high(), tatScaled.low(), band.capacity(), band.refillTokens(),
                band.refillPeriodNanos());
    }

    private static long remaining(Wide x, Band band) {
        long owed = x.ceilDiv(band.refillPeriodNanos()).saturatedLong();
        return Math.max(0, band.capacity() - Math.min(owed, band.capacity()));
    }

    static BandResult decide(LimiterState stored, Band band, long cost, long nowNanos) {
        Debt debt = load(stored, band, nowNanos);
        Wide x = debt.x;
        LimiterState keep = debt.stored == null ? null : debt.rebased ? stateAt(nowNanos, x, band) : debt.stored;
        long keepReset = x.ceilDiv(band.refillTokens()).saturatedLong();
        Wide burst = Wide.product(band.capacity(), band.refillPeriodNanos());
        Wide afterCost = x.add(Wide.product(cost, band.refillPeriodNanos()));
        if (afterCost.compareTo(burst) <= 0) {
            return BandResult.admitted(remaining(afterCost, band),
                    afterCost.ceilDiv(band.refillTokens()).saturatedLong(), stateAt(nowNanos, afterCost, band),
                    debt.rebased, keep, keepReset);
        }
        long retry = Decision.NO_RETRY;
        if (cost <= band.capacity()) {
            Wide wait = afterCost.subtract(burst).ceilDiv(band.refillTokens());
            if (wait.fitsLong()) {
                retry = wait.longValueExact();
            }
        }
        return BandResult.denied(remaining(x, band), retry, debt.rebased, keep, keepReset);
    }

    static BandResult.Settle settle(LimiterState stored, Band band, long reserved, long actual, long nowNanos) {
        Debt debt = load(stored, band, nowNanos);
        long periodNanos = band.refillPeriodNanos();
        if (actual < reserved) {
            if (debt.stored == null) {
                return BandResult.Settle.unchanged(stored); // fresh: TAT at or before now already
            }
            Wide x = Wide.max(Wide.ZERO, debt.x.subtract(Wide.product(reserved - actual, periodNanos)));
            return new BandResult.Settle(stateAt(nowNanos, x, band), true, 0, inDebt(x, band));
        }
        long charge = actual - reserved;
        Wide room = Wide.product(band.capacity() + band.maxDebt(), periodNanos).subtract(debt.x);
        long roomTokens = room.signum() <= 0 ? 0 : room.floorDiv(periodNanos).saturatedLong();
        long taken = Math.min(charge, roomTokens);
        Wide x = debt.x.add(Wide.product(taken, periodNanos));
        return new BandResult.Settle(stateAt(nowNanos, x, band), true, charge - taken, inDebt(x, band));
    }

    /** Below zero tokens: {@code X > B·P}. */
    private static boolean inDebt(Wide x, Band band) {
        return x.compareTo(Wide.product(band.capacity(), band.refillPeriodNanos())) > 0;
    }

    static long nanosUntilFresh(LimiterState stored, Band band, long nowNanos) {
        return load(stored, band, nowNanos).x.ceilDiv(band.refillTokens()).saturatedLong();
    }

    /** The debt {@code X = (max(TAT, t) − t)·R} a decision at {@code nowNanos} would start from: for {@link MergeStates}. */
    static Wide debtAt(LimiterState stored, Band band, long nowNanos) {
        return load(stored, band, nowNanos).x;
    }

    /**
     * The band under {@code out} units on lease at {@code atNanos} (docs/SPEC.md §13): {@code TAT >= at + out·T},
     * that is the debt {@code X >= out·P}; the stored state itself (possibly null) when that holds already.
     */
    static LimiterState capAt(LimiterState stored, Band band, long out, long atNanos) {
        Debt debt = load(stored, band, atNanos);
        Wide floor = Wide.product(out, band.refillPeriodNanos());
        if (debt.x.compareTo(floor) >= 0) {
            return debt.rebased ? stateAt(atNanos, debt.x, band) : stored;
        }
        return stateAt(atNanos, floor, band);
    }

    /** Whole tokens at the reading, {@code B − ceil(X/P)}, as a decision would find them (below zero under a debt). */
    static long available(LimiterState stored, Band band, long nowNanos) {
        long owed = load(stored, band, nowNanos).x.ceilDiv(band.refillPeriodNanos()).saturatedLong();
        return band.capacity() - owed;
    }

    /** A state at {@code nowNanos} holding debt {@code x} under {@code band}: for {@link MergeStates}. */
    static GcraState withDebt(long nowNanos, Wide x, Band band) {
        return stateAt(nowNanos, x, band);
    }
}
