package io.gridlimit.micronaut.metrics;

import io.micronaut.core.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares {@code gridlimit.local.expected-replicas} with the live member count (docs/SPEC.md §5): under
 * {@code failure-mode: local} each replica admits its share {@code floor(q / expected-replicas)} while the grid
 * does not answer, so more replicas than expected admit more than the policy (the bound of SPEC §5 grows with
 * them). Logs a WARN each time the count changes to a value above the expected one, and an INFO when it is back
 * within, never more than once per change (the caller observes every few seconds). Only an embedded member sees
 * the replicas (each replica is a member); a Hazelcast client sees the members of the cluster, not the other
 * clients, so the check does not apply there. Thread-safe.
 */
final class ReplicaCountCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaCountCheck.class);

    private final int expected;
    private final boolean active;
    private int lastMembers = -1;
    private boolean exceeded;

    /**
     * @param expected {@code gridlimit.local.expected-replicas}, >= 1
     * @param active true under {@code failure-mode: local} on an embedded member; otherwise nothing is logged
     */
    ReplicaCountCheck(int expected, boolean active) {
        this.expected = expected;
        this.active = active;
    }

    /**
     * Takes one reading of the member count.
     *
     * @param members the live members, >= 0 (0: the instance is not running, which says nothing of the replicas)
     * @return the line logged for this reading, or null when nothing was logged
     */
    synchronized @Nullable String observe(int members) {
        if (!active || members <= 0 || members == lastMembers) {
            return null;
        }
        lastMembers = members;
        if (members > expected) {
            exceeded = true;
            String line = "the cluster has " + members + " members but gridlimit.local.expected-replicas is "
                    + expected + ": while the grid does not answer, failure-mode local admits up to " + members
                    + " shares of 1/" + expected + " of each quota; set gridlimit.local.expected-replicas to at least "
                    + members;
            LOG.warn(line);
            return line;
        }
        if (exceeded) {
            exceeded = false;
            String line = "the cluster has " + members + " members, within gridlimit.local.expected-replicas="
                    + expected;
            LOG.info(line);
            return line;
        }
        return null;
    }
}
