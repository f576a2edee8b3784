package io.gridlimit.bench;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

/**
 * One Hazelcast member of a benchmark cluster in its own JVM, started by {@link BenchCluster} (never by hand in a
 * run): {@link BenchMember#clusterConfig} with the given cluster name, port, member ports and backup mode, so it
 * carries exactly the serialization and map configuration of the benchmark's own member.
 *
 * <p>It runs until its standard input reaches end of file: the harness closes the pipe to stop it, and the pipe
 * also closes when the harness JVM dies in any way (even {@code kill -9}), so an orphan member stops by itself.
 * Then it terminates the member (no graceful migration: the whole cluster is going away) and exits. Hazelcast logs
 * at INFO to standard output, which the harness sends to a log file.
 *
 * <pre>{@code
 * java --add-opens=... -Xmx512m -cp benchmarks.jar io.gridlimit.bench.BenchClusterMember \
 *     <cluster-name> <port> <port,port,port> <sync|async|none>
 * }</pre>
 */
public final class BenchClusterMember {
    private BenchClusterMember() {
    }

    /**
     * Starts the member and waits for end of input.
     *
     * @param args cluster name, this member's port, the comma-separated ports of all members, backup mode
     * @throws IllegalArgumentException if the arguments are not four or a value is malformed (the message names it)
     */
    public static void main(String[] args) {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: BenchClusterMember <cluster-name> <port> <port,port,...>"
                    + " <sync|async|none>, got " + args.length + " arguments");
        }
        String clusterName = args[0];
        int port = parsePort(args[1]);
        List<Integer> ports = new ArrayList<>();
        for (String p : args[2].split(",")) {
            ports.add(parsePort(p));
        }
        BackupMode backups = BackupMode.of(args[3]);
        BenchMember.logHazelcastAt(Level.INFO);
        HazelcastInstance member =
                Hazelcast.newHazelcastInstance(BenchMember.clusterConfig(clusterName, port, ports, backups));
        System.out.println("[bench-cluster-member] up: cluster " + clusterName + ", port " + port + ", backups "
                + backups.label() + ", pid " + ProcessHandle.current().pid());
        waitForEndOfInput(System.in);
        System.out.println("[bench-cluster-member] input closed: terminating");
        member.getLifecycleService().terminate();
        System.exit(0);
    }

    private static void waitForEndOfInput(InputStream in) {
        byte[] buffer = new byte[64];
        try {
            while (in.read(buffer) >= 0) {
                // discard: only the end of the stream matters
            }
        } catch (IOException e) {
            // a broken pipe means the harness is gone: stop as on end of input
        }
    }

    private static int parsePort(String text) {
        try {
            int port = Integer.parseInt(text.trim());
            if (port >= 1 && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("port must be an integer in [1, 65535], got '" + text + "'");
    }
}
