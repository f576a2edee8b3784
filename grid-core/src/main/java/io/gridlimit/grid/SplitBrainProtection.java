package io.gridlimit.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;

import java.util.Objects;

/**
 * Split-brain protection for the policy maps (off by default; grid-core/docs/reliability.md). Stateless.
 */
public final class SplitBrainProtection {
    private SplitBrainProtection() {
    }

    /**
     * Turns on split-brain protection for the policy maps: a decision is refused with Hazelcast's
     * {@code SplitBrainProtectionException} on a member that sees fewer than {@code minimumClusterSize} members,
     * so a minority side of a split answers per the service's failure mode instead of deciding on state it cannot
     * share. Hazelcast notices a lost member only after its heartbeat timeout
     * ({@code hazelcast.max.no.heartbeat.seconds}), so decisions made in that window still go through and are
     * reconciled by the merge policy. Choose {@code minimumClusterSize} as a strict majority of the expected
     * members (2 of 3); with 2 members, 2 stops every decision when one is lost.
     *
     * <p>Call after {@link GridLimitHazelcast#configure(Config)} (or after adding your own {@code gridlimit.*} map
     * configs): it applies to every map configuration whose name starts with {@link GridLimitHazelcast#MAP_PREFIX}.
     *
     * @param config the member configuration, changed in place
     * @param minimumClusterSize members a member must see to decide, in [2, 1000]
     * @return {@code config}
     * @throws IllegalArgumentException if {@code minimumClusterSize} is out of range
     * @throws NullPointerException if {@code config} is null
     */
    public static Config require(Config config, int minimumClusterSize) {
        Objects.requireNonNull(config, "config");
        if (minimumClusterSize < 2 || minimumClusterSize > 1000) {
            throw new IllegalArgumentException("minimumClusterSize must be in [2, 1000], got " + minimumClusterSize);
        }
        String name = GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME;
        config.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig(name, true, minimumClusterSize)
                .setProtectOn(SplitBrainProtectionOn.READ_WRITE));
        for (MapConfig map : config.getMapConfigs().values()) {
            if (map.getName().startsWith(GridLimitHazelcast.MAP_PREFIX)) {
                map.setSplitBrainProtectionName(name);
            }
        }
        return config;
    }
}
