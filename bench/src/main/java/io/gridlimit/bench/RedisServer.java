package io.gridlimit.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A throwaway {@code redis-server} (Debian's package, {@code apt-get install -y redis-server}) on a free loopback
 * port, no persistence ({@code --save "" --appendonly no}), started and stopped by the harness. Not thread-safe.
 */
public final class RedisServer implements AutoCloseable {
    private final Process process;
    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts a server and waits (up to 10 s) until it answers PING.
     *
     * @return the running server, never null
     * @throws IllegalStateException if {@code redis-server} is missing or does not answer
     */
    public static RedisServer start() {
        int port = freePort();
        Process process;
        try {
            process = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                    "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (apt-get install -y redis-server)", e);
        }
        RedisServer server = new RedisServer(process, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                if ("PONG".equals(jedis.ping())) {
                    return server;
                }
            } catch (RuntimeException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        server.close();
        throw new IllegalStateException("redis-server did not answer on port " + port);
    }

    /** @return the port, loopback */
    public int port() {
        return port;
    }

    /** Stops the server and waits for it to exit. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
