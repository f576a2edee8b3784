package io.gridlimit.bench.grid;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.GridTestHooks;
import io.gridlimit.grid.HazelcastRateLimiter;
import java.util.function.LongSupplier;

/**
 * Bench-only access to the lease builder's clock, through grid-core's {@link GridTestHooks} (internal to grid-core,
 * not API): a limiter with leases whose holder side reads {@code ticker} instead of {@code System.nanoTime},
 * sweeper on.
 */
public final class BenchLeases {
    private BenchLeases() {
    }

    /**
     * @param hz the member or client
     * @param ticker the holder's monotonic clock, nanoseconds (the bench's stepped owner clock)
     * @return a new limiter with leases on
     */
    public static HazelcastRateLimiter withTicker(HazelcastInstance hz, LongSupplier ticker) {
        return GridTestHooks.leaseTicker(HazelcastRateLimiter.builder(hz).leases(true), ticker, true).build();
    }
}
