package io.gridlimit.app.support;

import io.gridlimit.micronaut.support.Ports;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Properties that start the service (its own {@code application.yml}) in a test: random HTTP port, an embedded
 * Hazelcast member on a free port of 127.0.0.1 in a cluster of its own, a shared manual clock, generous timeouts.
 */
public final class ServiceProperties {
    /**
     * Generous grid timeouts for tests: a loaded build machine can take longer than the defaults (100 ms for the
     * filter, 1 s for the decision API) to answer a cold decision, which the filter would take for a grid failure
     * (admitting without headers) and the API would answer with 503. Tests of those failure paths set their own.
     */
    public static final Map<String, Object> SLOW_MACHINE_TIMEOUTS = Map.of(
            "gridlimit.grid-timeout", "30s",
            "gridlimit.decision-api.timeout", "30s");

    private ServiceProperties() {
    }

    /**
     * Properties for one member of a test cluster.
     *
     * @param clusterName the Hazelcast cluster name, unique per test cluster
     * @param clock the shared clock's name ({@link SharedClock})
     * @param hazelcastPort this member's port
     * @param memberPorts the ports of every member of the cluster (TCP-IP join on 127.0.0.1)
     * @return a mutable map of properties
     */
    public static Map<String, Object> member(String clusterName, String clock, int hazelcastPort,
                                             int... memberPorts) {
        Map<String, Object> p = new HashMap<>();
        p.put("micronaut.server.port", -1);
        p.put(SharedClock.PROPERTY, clock);
        p.put("gridlimit.hazelcast.cluster-name", clusterName);
        p.put("gridlimit.hazelcast.port", hazelcastPort);
        List<String> members = new java.util.ArrayList<>();
        for (int port : memberPorts) {
            members.add("127.0.0.1:" + port);
        }
        p.put("gridlimit.hazelcast.members", members);
        p.putAll(SLOW_MACHINE_TIMEOUTS);
        return p;
    }

    /**
     * Properties for a single-member service with its own cluster and clock.
     *
     * @return a mutable map of properties
     */
    public static Map<String, Object> standalone() {
        String id = UUID.randomUUID().toString();
        int port = Ports.freePort();
        return member("svc-test-" + id, id, port, port);
    }
}
