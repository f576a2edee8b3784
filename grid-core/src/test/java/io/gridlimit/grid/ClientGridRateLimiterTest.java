package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;

/** The grid suite through a Hazelcast client connected to both members. */
class ClientGridRateLimiterTest extends AbstractGridRateLimiterTest {
    @Override
    HazelcastInstance connect(GridTestSupport.Cluster cluster) {
        return cluster.startClient();
    }

    @Override
    String expectedAsyncPath() {
        return "client";
    }
}
