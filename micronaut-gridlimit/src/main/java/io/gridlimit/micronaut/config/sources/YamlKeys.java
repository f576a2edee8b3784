package io.gridlimit.micronaut.config.sources;

import io.micronaut.context.env.Environment;
import io.micronaut.context.env.PropertySource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Reads a YAML property source's text again, for what its parsed values lose: keys written twice in one mapping
 * under {@code gridlimit} (YAML keeps the last one silently, so a second {@code demo:} policy would replace the
 * first), and each scalar as written ({@code 1e3}, which YAML reads as the decimal {@code 1000.0}), so that a
 * message quotes what the user wrote. Loaded only for a YAML source, so SnakeYAML, which Micronaut needs to read
 * YAML at all, is then present.
 */
final class YamlKeys {
    private YamlKeys() {
    }

    /**
     * @param source a YAML property source
     * @param environment to open its file
     * @param errors receives one message per key written twice under {@code gridlimit}
     * @return each scalar's text as written by its path ({@code gridlimit.routes[0].cost}); empty when the file
     *     cannot be read again
     */
    static Map<String, String> read(PropertySource source, Environment environment, Set<String> errors) {
        String location = source.getOrigin().location();
        Map<String, String> written = new HashMap<>();
        try (InputStream in = environment.getResourceAsStream(location)
                .orElseGet(() -> open(Path.of(location.replaceFirst("^file:", ""))));
             Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            for (Node document : new Yaml(new LoaderOptions()).composeAll(reader)) {
                walk(document, "", location, errors, written);
            }
        } catch (IOException | RuntimeException e) {
            // Micronaut read this source already; a file it could read but this cannot hides no duplicate
        }
        return written;
    }

    private static InputStream open(Path path) {
        try {
            return Files.newInputStream(path);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void walk(Node node, String path, String location, Set<String> errors,
                             Map<String, String> written) {
        if (node instanceof ScalarNode scalar && path.startsWith("gridlimit")) {
            written.put(path, scalar.getValue());
        } else if (node instanceof MappingNode mapping) {
            Set<String> seen = new HashSet<>();
            for (NodeTuple t : mapping.getValue()) {
                String key = t.getKeyNode() instanceof ScalarNode s ? s.getValue() : String.valueOf(t.getKeyNode());
                String p = path.isEmpty() ? key : path + "." + key;
                if (!seen.add(key) && p.startsWith("gridlimit")) {
                    errors.add(p + ": written twice in " + location + " (again at line "
                            + (t.getKeyNode().getStartMark().getLine() + 1) + "); YAML would keep only the last");
                }
                walk(t.getValueNode(), p, location, errors, written);
            }
        } else if (node instanceof SequenceNode sequence) {
            for (int i = 0; i < sequence.getValue().size(); i++) {
                walk(sequence.getValue().get(i), path + "[" + i + "]", location, errors, written);
            }
        }
    }
}
