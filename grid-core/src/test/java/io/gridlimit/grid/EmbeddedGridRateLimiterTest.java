package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;

/** The grid suite through an embedded member (half of the keys are owned by the other member). */
class EmbeddedGridRateLimiterTest extends AbstractGridRateLimiterTest {
    @Override
    HazelcastInstance connect(GridTestSupport.Cluster cluster) {
        return cluster.members.get(0);
    }

    @Override
    String expectedAsyncPath() {
        return "member";
    }
}
