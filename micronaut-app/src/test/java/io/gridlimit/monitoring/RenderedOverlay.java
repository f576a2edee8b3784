package io.gridlimit.monitoring;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One Kustomize directory of the repository rendered with {@code kubectl kustomize} (offline) and read into the
 * fabric8 Kubernetes model, with the look-ups the monitoring tests need: a resource by kind and name, and a file as
 * a container of a Deployment sees it through its ConfigMap volume mounts.
 *
 * <p>Strict parsing of every overlay is {@code io.gridlimit.k8s.KustomizeRenderTest}'s job; this class only reads.
 * kubectl is required ({@code $KUBECTL}, the {@code PATH}, then {@code /usr/bin/kubectl}): a missing kubectl fails,
 * it does not skip. Immutable.
 */
final class RenderedOverlay {
    private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final String directory;
    private final List<HasMetadata> resources;

    private RenderedOverlay(String directory, List<HasMetadata> resources) {
        this.directory = directory;
        this.resources = List.copyOf(resources);
    }

    /**
     * Renders and parses a directory.
     *
     * @param directory relative to {@code k8s/}, e.g. {@code "overlays/management-center"}
     * @return the rendered resources
     * @throws AssertionError if kubectl is missing or fails, or a document is not a known Kubernetes kind
     */
    static RenderedOverlay of(String directory) {
        List<HasMetadata> parsed = new ArrayList<>();
        for (String document : DOCUMENT_SEPARATOR.split(render(directory))) {
            if (document.isBlank()) {
                continue;
            }
            KubernetesResource resource = SERIALIZATION.unmarshal(document, KubernetesResource.class);
            if (!(resource instanceof HasMetadata object)) {
                throw new AssertionError(directory + ": not a Kubernetes object: " + document);
            }
            parsed.add(object);
        }
        return new RenderedOverlay(directory, parsed);
    }

    /** @return the repository root: {@code gridlimit.repoRoot}, else the nearest directory above holding k8s/ */
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
     * @param type a model class
     * @param name {@code metadata.name}
     * @param <T> the model type
     * @return the resource
     * @throws AssertionError if there is none of that kind and name
     */
    <T extends HasMetadata> T get(Class<T> type, String name) {
        return resources.stream().filter(type::isInstance).map(type::cast)
                .filter(r -> name.equals(r.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError(directory + ": no " + type.getSimpleName() + " " + name));
    }

    /** @return every rendered resource, in document order */
    List<HasMetadata> all() {
        return resources;
    }

    /**
     * @param deployment a Deployment of this directory
     * @param containerName one of its containers
     * @param variable an environment variable name
     * @return the variable's literal value, if the container sets one
     */
    static Optional<String> env(Deployment deployment, String containerName, String variable) {
        return Optional.ofNullable(container(deployment, containerName).getEnv()).orElse(List.of()).stream()
                .filter(e -> e.getName().equals(variable)).map(EnvVar::getValue).findFirst();
    }

    /**
     * Reads a file as a container sees it through its ConfigMap volume mounts.
     *
     * @param deployment a Deployment of this directory
     * @param containerName one of its containers
     * @param path an absolute path inside the container
     * @return the file's content
     * @throws AssertionError if no mounted ConfigMap provides it
     */
    String fileInContainer(Deployment deployment, String containerName, String path) {
        Container container = container(deployment, containerName);
        for (VolumeMount mount : Optional.ofNullable(container.getVolumeMounts()).orElse(List.of())) {
            String dir = mount.getMountPath().endsWith("/") ? mount.getMountPath() : mount.getMountPath() + "/";
            if (!path.startsWith(dir)) {
                continue;
            }
            Optional<Volume> volume = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName())).findFirst();
            if (volume.isPresent() && volume.get().getConfigMap() != null) {
                ConfigMap map = get(ConfigMap.class, volume.get().getConfigMap().getName());
                String content = map.getData() == null ? null : map.getData().get(path.substring(dir.length()));
                if (content != null) {
                    return content;
                }
            }
        }
        throw new AssertionError(directory + ": no ConfigMap mounted in " + deployment.getMetadata().getName() + "/"
                + containerName + " provides " + path);
    }

    private static Container container(Deployment deployment, String name) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(deployment.getMetadata().getName() + " has no container "
                        + name));
    }

    private static String render(String directory) {
        Path dir = repoRoot().resolve("k8s").resolve(directory).normalize();
        try {
            Path errors = Files.createTempFile("kustomize", ".err");
            try {
                Process process = new ProcessBuilder(kubectl(), "kustomize", dir.toString())
                        .redirectError(errors.toFile()).start();
                process.getOutputStream().close();
                byte[] out = process.getInputStream().readAllBytes();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("kubectl kustomize " + dir + " did not finish within 60 s");
                }
                if (process.exitValue() != 0) {
                    throw new AssertionError("kubectl kustomize " + dir + " failed: "
                            + Files.readString(errors, StandardCharsets.UTF_8));
                }
                return new String(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(errors);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run kubectl kustomize " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while rendering " + dir, e);
        }
    }

    private static String kubectl() {
        String env = System.getenv("KUBECTL");
        if (env != null && !env.isBlank() && Files.isExecutable(Path.of(env))) {
            return env;
        }
        String path = System.getenv("PATH");
        for (String dir : path == null ? new String[0] : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
                return Path.of(dir, "kubectl").toString();
            }
        }
        if (Files.isExecutable(Path.of("/usr/bin/kubectl"))) {
            return "/usr/bin/kubectl";
        }
        throw new AssertionError("kubectl not found ($KUBECTL, PATH, /usr/bin/kubectl): the monitoring tests render"
                + " the manifests with `kubectl kustomize`; install it rather than skipping them");
    }
}
