package io.gridlimit.k8s;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryYamlConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.gridlimit.k8s.RenderedManifests.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.Yaml;

/**
 * The configuration a GridLimit container of a rendered workload would start with: the jar's
 * {@code application.yml}, overlaid with every file listed in {@code MICRONAUT_CONFIG_FILES} (read from the mounted
 * ConfigMaps, in order, maps merged and lists replaced as Micronaut does), and, for an embedded member, the
 * Hazelcast configuration file {@code gridlimit.hazelcast.config-file} points at.
 *
 * <p>Environment-variable overrides other than {@code MICRONAUT_CONFIG_FILES} are not applied (the manifests set
 * none). Immutable.
 *
 * @param workload the Deployment or StatefulSet
 * @param container its GridLimit container (the one whose image is {@code gridlimit})
 * @param micronaut the merged Micronaut configuration tree
 * @param configFiles the {@code MICRONAUT_CONFIG_FILES} entries, in order
 */
record PodConfiguration(Workload workload, Container container, Map<String, Object> micronaut,
                        List<String> configFiles) {

    /** The image name (before the tag) of GridLimit containers, as the manifests write it. */
    static final String IMAGE = "gridlimit";

    /**
     * Reads a workload's GridLimit container configuration.
     *
     * @param manifests the rendered manifests holding the workload and its ConfigMaps
     * @param workload the workload
     * @return its configuration
     * @throws AssertionError if the workload has no GridLimit container, or a listed config file is not mounted
     */
    static PodConfiguration of(RenderedManifests manifests, Workload workload) {
        Container container = gridLimitContainer(workload).orElseThrow(
                () -> new AssertionError(workload.name() + " has no container running image " + IMAGE));
        Map<String, Object> merged = load(applicationYml());
        List<String> files = new ArrayList<>();
        String listed = workload.env(container, "MICRONAUT_CONFIG_FILES").orElse("");
        for (String file : listed.split(",")) {
            if (file.isBlank()) {
                continue;
            }
            files.add(file.trim());
            String content = manifests.fileInContainer(workload, container, file.trim()).orElseThrow(
                    () -> new AssertionError(workload.name() + ": MICRONAUT_CONFIG_FILES lists " + file
                            + ", which no ConfigMap volume mount provides"));
            merge(merged, load(content));
        }
        return new PodConfiguration(workload, container, merged, List.copyOf(files));
    }

    /**
     * @param workload a workload
     * @return its container running the GridLimit image, if any
     */
    static Optional<Container> gridLimitContainer(Workload workload) {
        return workload.template().getSpec().getContainers().stream()
                .filter(c -> c.getImage() != null && c.getImage().split(":")[0].equals(IMAGE)).findFirst();
    }

    /**
     * @param dottedPath e.g. {@code "gridlimit.hazelcast.mode"}
     * @return the value at that path of the merged configuration, if present
     */
    Optional<Object> value(String dottedPath) {
        Object node = micronaut;
        for (String part : dottedPath.split("\\.")) {
            if (!(node instanceof Map<?, ?> map) || !map.containsKey(part)) {
                return Optional.empty();
            }
            node = map.get(part);
        }
        return Optional.ofNullable(node);
    }

    /**
     * @param dottedPath a configuration path
     * @return its value as a string
     * @throws AssertionError if absent
     */
    String string(String dottedPath) {
        return value(dottedPath).map(String::valueOf).orElseThrow(
                () -> new AssertionError(workload.name() + ": no " + dottedPath + " in its configuration"));
    }

    /**
     * @param manifests the manifests the workload came from
     * @return the content of the file {@code gridlimit.hazelcast.config-file} names, as the container sees it
     * @throws AssertionError if the property is absent or no ConfigMap mount provides the file
     */
    String hazelcastYaml(RenderedManifests manifests) {
        String path = string("gridlimit.hazelcast.config-file");
        return manifests.fileInContainer(workload, container, path).orElseThrow(() -> new AssertionError(
                workload.name() + ": gridlimit.hazelcast.config-file " + path + " is not provided by a mounted"
                        + " ConfigMap"));
    }

    /**
     * Parses the member's Hazelcast configuration with Hazelcast's own YAML loader, which validates it against
     * Hazelcast's configuration schema.
     *
     * @param manifests the manifests the workload came from
     * @return the member configuration
     */
    Config hazelcastConfig(RenderedManifests manifests) {
        return new InMemoryYamlConfig(hazelcastYaml(manifests));
    }

    /** @return the service's own {@code application.yml}, the lowest configuration layer */
    static String applicationYml() {
        Path file = Kustomize.repoRoot().resolve("micronaut-app/src/main/resources/application.yml");
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> load(String yaml) {
        Object loaded = new Yaml().load(yaml);
        if (loaded == null) {
            return new LinkedHashMap<>();
        }
        if (!(loaded instanceof Map<?, ?>)) {
            throw new AssertionError("not a YAML mapping: " + yaml);
        }
        return (Map<String, Object>) loaded;
    }

    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<String, Object> from) {
        for (Map.Entry<String, Object> entry : from.entrySet()) {
            Object existing = into.get(entry.getKey());
            if (existing instanceof Map<?, ?> a && entry.getValue() instanceof Map<?, ?> b) {
                Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) a);
                merge(copy, (Map<String, Object>) b);
                into.put(entry.getKey(), copy);
            } else {
                into.put(entry.getKey(), entry.getValue());
            }
        }
    }
}
