package io.gridlimit.app.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1 for test HTTP servers and Hazelcast members. */
public final class FreePorts {
    private FreePorts() {
    }

    /**
     * Finds a port that was free a moment ago, with the next two free as well (Hazelcast's port auto-increment
     * may step up when a port is taken meanwhile).
     *
     * @return the port
     * @throws IllegalStateException if none is found in 50 attempts
     */
    public static int next() {
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

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }
}
