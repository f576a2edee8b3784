package io.gridlimit.grid.lease;

import io.gridlimit.api.Reservation;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This replica's grants by their token (docs/SPEC.md §13), open and recently retired, so that a reservation taken
 * from a lease finds its grant: the token is the first 8 bytes of a local reservation's mac, drawn from a sequence
 * with a random start. Thread-safe.
 */
final class GrantRegistry {
    /**
     * How long a retired grant that handed out reservations still answers their settles ({@code EXPIRED}); later,
     * such a settle reaches the owner, which refuses it as not its own ({@code forged}): the reserved cost stands
     * either way.
     */
    static final long RETIRED_GRANT_MEMORY_NANOS = 10_000_000_000L;

    private final ConcurrentHashMap<Long, HeldGrant> grants = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong(new SecureRandom().nextLong());

    /** @return a token no grant of this replica had */
    long nextToken() {
        return tokens.incrementAndGet();
    }

    void add(HeldGrant g) {
        grants.put(g.token, g);
    }

    /** Forgets a grant that handed out no reservation: nothing can settle into it. */
    void remove(HeldGrant g) {
        grants.remove(g.token, g);
    }

    /** @return the grant a reservation was taken from, or null when it was not taken from a lease of this replica */
    HeldGrant find(Reservation r) {
        byte[] mac = r.mac();
        if (mac.length != Reservation.MAC_BYTES) {
            return null;
        }
        HeldGrant g = grants.get(HeldGrant.longAt(mac, 0));
        return g != null && g.holds(r) ? g : null;
    }

    /** Forgets the grants retired more than {@link #RETIRED_GRANT_MEMORY_NANOS} before {@code nowTicks}. */
    void forgetRetired(long nowTicks) {
        grants.values().removeIf(g -> {
            synchronized (g.owner) {
                return g.closed && nowTicks - g.retiredTicks > RETIRED_GRANT_MEMORY_NANOS;
            }
        });
    }
}
