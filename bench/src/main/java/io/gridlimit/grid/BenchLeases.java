package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;
import java.util.function.LongSupplier;

/**
 * Bench-only access to the lease builder's package-private clock (same package as grid-core's, no JPMS): a limiter
 * with leases whose holder side reads {@code ticker} instead of {@code System.nanoTime}, sweeper on.
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
        return HazelcastRateLimiter.builder(hz).leases(true).leaseTicker(ticker).leaseSweeper(true).build();
    }
}
