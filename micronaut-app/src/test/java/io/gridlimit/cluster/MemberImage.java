package io.gridlimit.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The image of a {@link ServiceCluster} member: the repository's {@code Dockerfile} with this build's shaded service
 * jar on {@code GRIDLIMIT_BASE_IMAGE}, built once per JVM and removed when it exits. Thread-safe.
 */
final class MemberImage {
    private static final String IMAGE_NAME = "gridlimit-cluster-test";
    private static volatile String image;

    private MemberImage() {
    }

    /**
     * The member image, built once per JVM from the repository's {@code Dockerfile} with the shaded jar as
     * {@code JAR_FILE} and {@code GRIDLIMIT_BASE_IMAGE} as {@code BASE_IMAGE}. Never pulls: the base image must be
     * present or pullable by the engine itself.
     */
    static synchronized String get() {
        if (image == null) {
            Path root = repoRoot();
            Path dockerfile = root.resolve("Dockerfile");
            if (!Files.isRegularFile(dockerfile)) {
                throw new IllegalStateException("no Dockerfile at " + dockerfile);
            }
            String base = Optional.ofNullable(System.getenv("GRIDLIMIT_BASE_IMAGE")).filter(s -> !s.isBlank())
                    .orElse("eclipse-temurin:17-jre");
            // a tag of its own per JVM (parallel builds on one engine), removed when the JVM exits (hook below)
            String tag = IMAGE_NAME + ":" + java.util.UUID.randomUUID().toString().substring(0, 12);
            ImageFromDockerfile built = new ImageFromDockerfile(tag, true)
                    .withFileFromPath("Dockerfile", dockerfile)
                    .withFileFromPath("gridlimit-service.jar", serviceJar())
                    .withBuildArg("BASE_IMAGE", base)
                    .withBuildArg("JAR_FILE", "gridlimit-service.jar")
                    .withBuildImageCmdModifier(cmd -> cmd.withPull(false));
            image = built.get();
            // Testcontainers removes images built with deleteOnExit through Ryuk, which is off here: remove it ourselves
            String builtImage = image;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    DockerClientFactory.instance().client().removeImageCmd(builtImage).withForce(true).exec();
                } catch (RuntimeException e) {
                    // already gone, or the engine is: nothing to clean
                }
            }, "gridlimit-image-cleanup"));
        }
        return image;
    }

    /** The repository root: {@code gridlimit.repoRoot} (set by failsafe), else found upwards from the working dir. */
    static Path repoRoot() {
        String configured = System.getProperty("gridlimit.repoRoot");
        if (configured != null) {
            return Paths.get(configured).toAbsolutePath().normalize();
        }
        Path dir = Paths.get("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("micronaut-app/pom.xml"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the repository root above " + Paths.get("").toAbsolutePath());
        }
        return dir;
    }

    /**
     * The shaded service jar: {@code gridlimit.serviceJar} (set by failsafe to this build's jar), else the newest
     * {@code micronaut-app/target*}/{@code micronaut-app-*-all.jar}.
     */
    static Path serviceJar() {
        String configured = System.getProperty("gridlimit.serviceJar");
        if (configured != null && Files.isRegularFile(Paths.get(configured))) {
            return Paths.get(configured);
        }
        Path module = repoRoot().resolve("micronaut-app");
        try (Stream<Path> dirs = Files.list(module)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("target") && Files.isDirectory(d))
                    .flatMap(d -> {
                        try {
                            return Files.list(d).toList().stream();
                        } catch (IOException e) {
                            return Stream.empty();
                        }
                    })
                    .filter(f -> f.getFileName().toString().matches("micronaut-app-.*-all\\.jar"))
                    .max(Comparator.comparingLong(f -> f.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("no micronaut-app-*-all.jar under " + module
                            + "/target*: build it with mvn -pl micronaut-app -am package -DskipTests"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + module, e);
        }
    }
}
