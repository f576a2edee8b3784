package io.gridlimit.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Renders the repository's Kustomize directories with {@code kubectl kustomize} (offline, no API server).
 *
 * <p>kubectl is required: it is looked up in {@code $KUBECTL}, then on the {@code PATH}, then at
 * {@code /usr/bin/kubectl}. A missing kubectl fails the tests that need it (CI must not pass by skipping them).
 * Rendered output is cached per directory for the JVM's lifetime. Thread-safe.
 */
final class Kustomize {
    /** The Kustomize directories the repository ships, relative to {@code k8s/}. */
    static final List<String> DIRECTORIES = List.of(
            "base", "overlays/api-discovery", "overlays/management-center", "overlays/client-server",
            "overlays/envoy");

    private static final Map<Path, String> RENDERED = new ConcurrentHashMap<>();

    private Kustomize() {
    }

    /**
     * Finds the repository root: the system property {@code gridlimit.repoRoot} when set, else the nearest
     * directory at or above the working directory holding {@code k8s/base/kustomization.yaml}.
     *
     * @return the absolute repository root
     * @throws IllegalStateException if no such directory exists
     */
    static Path repoRoot() {
        String configured = System.getProperty("gridlimit.repoRoot");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("k8s/base/kustomization.yaml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no k8s/base/kustomization.yaml at or above " + Path.of("").toAbsolutePath());
    }

    /**
     * Locates kubectl.
     *
     * @return the kubectl executable
     * @throws AssertionError if none is found: kubectl is a test requirement, not an optional tool
     */
    static Path kubectl() {
        String env = System.getenv("KUBECTL");
        if (env != null && !env.isBlank() && Files.isExecutable(Path.of(env))) {
            return Path.of(env);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(dir, "kubectl");
                if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        Path fallback = Path.of("/usr/bin/kubectl");
        if (Files.isExecutable(fallback)) {
            return fallback;
        }
        throw new AssertionError("kubectl not found ($KUBECTL, PATH, /usr/bin/kubectl): the Kustomize tests need it"
                + " (`kubectl kustomize` renders offline); install kubectl rather than skipping these tests");
    }

    /**
     * Renders one Kustomize directory.
     *
     * @param directory a directory relative to {@code k8s/}, e.g. {@code "overlays/api-discovery"}, or an absolute
     *     path
     * @return the rendered multi-document YAML
     * @throws AssertionError if kubectl fails (its error output is in the message) or takes over 60 s
     */
    static String render(String directory) {
        Path dir = repoRoot().resolve("k8s").resolve(directory).normalize();
        return RENDERED.computeIfAbsent(dir, Kustomize::run);
    }

    private static String run(Path dir) {
        Path errors = null;
        try {
            errors = Files.createTempFile("kustomize", ".err");
            Process process = new ProcessBuilder(kubectl().toString(), "kustomize", dir.toString())
                    .redirectError(errors.toFile())
                    .start();
            process.getOutputStream().close();
            byte[] out;
            try (InputStream stdout = process.getInputStream()) {
                out = stdout.readAllBytes();
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("kubectl kustomize " + dir + " did not finish within 60 s");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("kubectl kustomize " + dir + " failed (exit " + process.exitValue() + "): "
                        + Files.readString(errors, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("could not run kubectl kustomize " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while rendering " + dir, e);
        } finally {
            if (errors != null) {
                try {
                    Files.deleteIfExists(errors);
                } catch (IOException ignored) {
                    // a leftover empty temp file is harmless
                }
            }
        }
    }
}
