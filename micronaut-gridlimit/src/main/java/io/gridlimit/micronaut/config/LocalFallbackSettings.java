package io.gridlimit.micronaut.config;

/**
 * The checked {@code gridlimit.local.*} settings of {@code failure-mode: local} (docs/SPEC.md §5). Checked at
 * boot whatever the failure mode, so switching to {@code local} later cannot meet a bad value.
 *
 * @param maxKeys the most (policy, key) states one replica keeps in its local map, in [1, 100 000 000]
 *     (default 100 000)
 * @param expectedReplicas the number of replicas sharing the traffic; each band's quota and refill rate is divided
 *     by it, in [1, 10 000] (default 3)
 */
public record LocalFallbackSettings(int maxKeys, int expectedReplicas) {
    /** Default {@code gridlimit.local.max-keys}. */
    public static final int DEFAULT_MAX_KEYS = 100_000;
    /** Default {@code gridlimit.local.expected-replicas}. */
    public static final int DEFAULT_EXPECTED_REPLICAS = 3;
    /** Largest {@code gridlimit.local.max-keys}. */
    public static final int MAX_MAX_KEYS = 100_000_000;
    /** Largest {@code gridlimit.local.expected-replicas}. */
    public static final int MAX_EXPECTED_REPLICAS = 10_000;

    /**
     * @throws IllegalArgumentException naming the value when one is out of range
     */
    public LocalFallbackSettings {
        if (maxKeys < 1 || maxKeys > MAX_MAX_KEYS) {
            throw new IllegalArgumentException("maxKeys must be in [1, " + MAX_MAX_KEYS + "], got " + maxKeys);
        }
        if (expectedReplicas < 1 || expectedReplicas > MAX_EXPECTED_REPLICAS) {
            throw new IllegalArgumentException("expectedReplicas must be in [1, " + MAX_EXPECTED_REPLICAS
                    + "], got " + expectedReplicas);
        }
    }
}
