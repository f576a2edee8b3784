package io.gridlimit.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.Yaml;

/**
 * The documents of one rendered Kustomize directory, parsed into the fabric8 Kubernetes model, with the look-ups the
 * consistency tests need (a resource by kind and name, the workloads, a file as a container would see it).
 *
 * <p>Parsing is strict: a document whose kind the model does not know, or with any field the model could not map
 * ({@link UnknownFields}), fails with every problem listed. Immutable after construction.
 */
final class RenderedManifests {
    private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final String source;
    private final List<HasMetadata> resources;

    private RenderedManifests(String source, List<HasMetadata> resources) {
        this.source = source;
        this.resources = List.copyOf(resources);
    }

    /**
     * Renders a Kustomize directory and parses it strictly.
     *
     * @param directory relative to {@code k8s/}, e.g. {@code "base"}
     * @return the parsed resources
     * @throws AssertionError if rendering fails or any document does not parse strictly
     */
    static RenderedManifests of(String directory) {
        return parse(directory, Kustomize.render(directory));
    }

    /**
     * Parses multi-document YAML strictly.
     *
     * @param source a name for messages (the directory or file)
     * @param yaml documents separated by {@code ---} lines
     * @return the parsed resources, in document order
     * @throws AssertionError listing every document that is of an unknown kind or has unmapped fields
     */
    static RenderedManifests parse(String source, String yaml) {
        List<HasMetadata> parsed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String document : DOCUMENT_SEPARATOR.split(yaml)) {
            if (document.isBlank()) {
                continue;
            }
            String id = identify(document);
            KubernetesResource resource;
            try {
                resource = SERIALIZATION.unmarshal(document, KubernetesResource.class);
            } catch (RuntimeException e) {
                problems.add(id + ": does not parse: " + e.getMessage().lines().findFirst().orElse(""));
                continue;
            }
            if (!(resource instanceof HasMetadata object) || resource instanceof GenericKubernetesResource) {
                problems.add(id + ": not a kind the Kubernetes model knows ("
                        + (resource == null ? "null" : resource.getClass().getSimpleName()) + ")");
                continue;
            }
            for (String unknown : UnknownFields.of(object)) {
                problems.add(id + " " + unknown);
            }
            parsed.add(object);
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(source + ": " + problems.size() + " document problem(s):\n  "
                    + String.join("\n  ", problems));
        }
        return new RenderedManifests(source, parsed);
    }

    /** {@code "<apiVersion> <kind>/<name>"} of a YAML document, read without the Kubernetes model. */
    private static String identify(String document) {
        Object loaded = new Yaml().load(document);
        if (!(loaded instanceof Map<?, ?> map)) {
            return "<not a YAML mapping>";
        }
        Object metadata = map.get("metadata");
        Object name = metadata instanceof Map<?, ?> m ? m.get("name") : null;
        return map.get("apiVersion") + " " + map.get("kind") + "/" + name;
    }

    /** @return where these documents came from, for messages */
    String source() {
        return source;
    }

    /** @return every resource, in document order */
    List<HasMetadata> all() {
        return resources;
    }

    /**
     * @param type a model class
     * @param <T> the model type
     * @return every resource of that class, in document order
     */
    <T extends HasMetadata> List<T> all(Class<T> type) {
        return resources.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    }

    /**
     * @param type a model class
     * @param name the resource's {@code metadata.name}
     * @param <T> the model type
     * @return the resource, if present
     */
    <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
        return all(type).stream().filter(r -> name.equals(r.getMetadata().getName())).findFirst();
    }

    /**
     * @param type a model class
     * @param name the resource's {@code metadata.name}
     * @param <T> the model type
     * @return the resource
     * @throws AssertionError if absent
     */
    <T extends HasMetadata> T get(Class<T> type, String name) {
        return find(type, name).orElseThrow(() -> new AssertionError(
                source + ": no " + type.getSimpleName() + " named " + name));
    }

    /**
     * A Deployment or StatefulSet, seen through its pod template.
     *
     * @param replicas {@code spec.replicas}, or Kubernetes' default 1 when absent (an HPA then sets the count)
     */
    record Workload(HasMetadata resource, PodTemplateSpec template, Map<String, String> selector, int replicas) {
        String name() {
            return resource.getKind() + "/" + resource.getMetadata().getName();
        }

        Map<String, String> podLabels() {
            return template.getMetadata().getLabels();
        }

        Container container(String name) {
            return template.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError(name() + " has no container " + name));
        }

        Optional<String> env(Container container, String name) {
            return Optional.ofNullable(container.getEnv()).orElse(List.of()).stream()
                    .filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst();
        }
    }

    /** @return every Deployment and StatefulSet */
    List<Workload> workloads() {
        List<Workload> found = new ArrayList<>();
        for (Deployment d : all(Deployment.class)) {
            found.add(new Workload(d, d.getSpec().getTemplate(), d.getSpec().getSelector().getMatchLabels(),
                    d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas()));
        }
        for (StatefulSet s : all(StatefulSet.class)) {
            found.add(new Workload(s, s.getSpec().getTemplate(), s.getSpec().getSelector().getMatchLabels(),
                    s.getSpec().getReplicas()));
        }
        return found;
    }

    /**
     * Tells whether a label selector (matchLabels or a Service selector) selects a set of labels.
     *
     * @param selector required labels; null or empty selects nothing here (we never mean "everything")
     * @param labels the object's labels
     * @return true when every selector label is present with the same value
     */
    static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return selector != null && !selector.isEmpty() && labels != null
                && labels.entrySet().containsAll(selector.entrySet());
    }

    /**
     * Reads a file as a container of a workload would see it, through its volume mounts of ConfigMaps.
     *
     * @param workload the workload
     * @param container the container
     * @param path an absolute file path inside the container
     * @return the file's content, or empty when no ConfigMap mount provides that path
     */
    Optional<String> fileInContainer(Workload workload, Container container, String path) {
        for (VolumeMount mount : Optional.ofNullable(container.getVolumeMounts()).orElse(List.of())) {
            String dir = mount.getMountPath().endsWith("/") ? mount.getMountPath() : mount.getMountPath() + "/";
            if (!path.startsWith(dir)) {
                continue;
            }
            String key = path.substring(dir.length());
            Optional<Volume> volume = workload.template().getSpec().getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName())).findFirst();
            if (volume.isEmpty() || volume.get().getConfigMap() == null) {
                continue;
            }
            Optional<ConfigMap> configMap = find(ConfigMap.class, volume.get().getConfigMap().getName());
            if (configMap.isPresent() && configMap.get().getData() != null
                    && configMap.get().getData().containsKey(key)) {
                return Optional.of(configMap.get().getData().get(key));
            }
        }
        return Optional.empty();
    }
}
