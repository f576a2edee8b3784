package io.gridlimit.app.support;

import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;

import java.net.MalformedURLException;
import java.net.URL;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Properties that start the service (its own {@code application.yml}) in a test: random public HTTP port, a free
 * internal port (decision API and management endpoints) on 127.0.0.1, an embedded Hazelcast member on a free port of
 * 127.0.0.1 in a cluster of its own, a shared manual clock, generous timeouts.
 */
public final class ServiceProperties {
    /** The internal port's property (decision API and management endpoints). */
    public static final String INTERNAL_PORT = "gridlimit.decision-api.port";
    /** The internal port's base URL as a property placeholder, for {@code @Client(...)} in {@code @MicronautTest}. */
    public static final String INTERNAL_CLIENT = "http://127.0.0.1:${" + INTERNAL_PORT + "}";

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
        p.put(INTERNAL_PORT, freePortApartFrom(hazelcastPort));
        p.putAll(SLOW_MACHINE_TIMEOUTS);
        return p;
    }

    /**
     * The internal port's base URL of a running service started with these properties.
     *
     * @param context the service's context
     * @return {@code http://127.0.0.1:<gridlimit.decision-api.port>}
     */
    public static URL internalUrl(ApplicationContext context) {
        int port = context.getRequiredProperty(INTERNAL_PORT, Integer.class);
        try {
            return new URL("http://127.0.0.1:" + port);
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A free port that is none of a member's three ports (its own and the two auto-increment may take). */
    private static int freePortApartFrom(int hazelcastPort) {
        for (int attempt = 0; attempt < 20; attempt++) {
            int port = Ports.freePort();
            if (port < hazelcastPort || port > hazelcastPort + 2) {
                return port;
            }
        }
        throw new IllegalStateException("no free port apart from " + hazelcastPort);
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
