package io.gridlimit.algorithm;

/**
 * One band's part of a settle (docs/SPEC.md §10). Package-private.
 *
 * @param state the band's state after the settle; the input state when nothing changed (null when fresh)
 * @param changed whether {@code state} must be written
 * @param excess the cost a charge did not take because the band's maximum debt would have been exceeded, >= 0
 * @param debt whether the band's balance is below zero after the settle
 */
record BandSettle(LimiterState state, boolean changed, long excess, boolean debt) {
    static BandSettle unchanged(LimiterState state) {
        return new BandSettle(state, false, 0, false);
    }
}
