package io.gridlimit.app.support;

import io.gridlimit.micronaut.support.Ports;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The service's {@code main} ({@code io.gridlimit.app.Application}) started as its own JVM, as {@code java -jar}
 * starts the jar: this test's class path, the service's own {@code application.yml} and {@code logback.xml}, free
 * ports (public, internal, Hazelcast) and a cluster of its own set as system properties, environment variables as
 * given (so {@code MICRONAUT_CONFIG_FILES} and {@code GRIDLIMIT_*} are the real thing). Its output goes to a file.
 */
public final class ServiceJvm implements AutoCloseable {
    private final Process process;
    private final Path output;
    private final int httpPort;

    private ServiceJvm(Process process, Path output, int httpPort) {
        this.process = process;
        this.output = output;
        this.httpPort = httpPort;
    }

    /**
     * @param environment environment variables to add (the machine's own GRIDLIMIT_* and MICRONAUT_* ones are removed)
     * @param properties system properties to add or replace (after the defaults above)
     * @return the started process (not yet serving)
     * @throws IOException when it cannot be started
     */
    public static ServiceJvm start(Map<String, String> environment, Map<String, String> properties) throws IOException {
        int http = Ports.freePort();
        int hazelcast = Ports.freePort();
        Map<String, String> p = new LinkedHashMap<>();
        p.put("micronaut.server.port", Integer.toString(http));
        p.put("gridlimit.decision-api.port", Integer.toString(Ports.freePort()));
        p.put("gridlimit.hazelcast.port", Integer.toString(hazelcast));
        p.put("gridlimit.hazelcast.members", "127.0.0.1:" + hazelcast);
        p.put("gridlimit.hazelcast.cluster-name", "jvm-" + UUID.randomUUID());
        p.put("gridlimit.grid-timeout", "30s");
        p.putAll(properties);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path")));
        p.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("io.gridlimit.app.Application");
        Path output = Files.createTempFile("service-jvm", ".log");
        output.toFile().deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        // the machine's GRIDLIMIT_* and MICRONAUT_* variables (.ci/run exports GRIDLIMIT_BASE_IMAGE) are not the test's
        builder.environment().keySet().removeIf(name -> name.startsWith("GRIDLIMIT_") || name.startsWith("MICRONAUT_"));
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        return new ServiceJvm(process, output, Integer.parseInt(p.get("micronaut.server.port")));
    }

    /** @return the public port's base URL, {@code http://127.0.0.1:<port>} */
    public String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    /**
     * Waits until the public port accepts connections.
     *
     * @throws AssertionError with the output when the process ends first or after two minutes
     */
    public void awaitServing() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the service ended with " + process.exitValue() + ":\n" + output());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", httpPort), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200); // polling a child process's port, no clock under test
            }
        }
        throw new AssertionError("the service did not serve within two minutes:\n" + output());
    }

    /**
     * Waits for the process to end.
     *
     * @return its exit status
     * @throws AssertionError when it has not ended within two minutes
     */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            throw new AssertionError("the service did not stop within two minutes:\n" + output());
        }
        return process.exitValue();
    }

    /** @return everything the process printed so far */
    public String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ends the process (it has no state to keep) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
