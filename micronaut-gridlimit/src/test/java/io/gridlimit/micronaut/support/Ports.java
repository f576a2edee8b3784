package io.gridlimit.micronaut.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports for test servers and Hazelcast members. */
public final class Ports {
    private Ports() {
    }

    /** @return a port that was free on 127.0.0.1 a moment ago (with two more above it, for auto-increment) */
    public static int freePort() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (port < 65_000 && free(port + 1) && free(port + 2)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port found");
    }

    /**
     * The properties of an embedded member alone in a cluster of its own, on a free port.
     *
     * @param clusterPrefix the cluster name's prefix; the name is {@code <prefix>-<port>}
     * @return a modifiable map of {@code gridlimit.hazelcast.port}, {@code .members} and {@code .cluster-name}
     */
    public static java.util.Map<String, String> ownMember(String clusterPrefix) {
        int port = freePort();
        java.util.Map<String, String> p = new java.util.LinkedHashMap<>();
        p.put("gridlimit.hazelcast.port", Integer.toString(port));
        p.put("gridlimit.hazelcast.members", "127.0.0.1:" + port);
        p.put("gridlimit.hazelcast.cluster-name", clusterPrefix + "-" + port);
        return p;
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }
}
