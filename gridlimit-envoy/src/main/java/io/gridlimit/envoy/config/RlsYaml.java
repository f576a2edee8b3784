package io.gridlimit.envoy.config;

import io.micronaut.core.annotation.Nullable;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Parses one envoyproxy/ratelimit configuration file into plain YAML values (docs/SPEC.md §12: "Scalars are text
 * as written"): every scalar is a {@link String}, every sequence a {@link List}, every mapping a
 * {@link java.util.Map}, and a plain YAML null a {@link YamlNull}; an explicitly tagged scalar ({@code !!int 5})
 * keeps the type its tag gives, so that {@link RlsFields} can refuse it where it stands. Duplicate keys, recursive
 * keys and more than 20 aliases of collections are refused by the parser. Stateless.
 */
final class RlsYaml {
    private static final Tag NULL_TAG = new Tag("tag:gridlimit.io,2026:yaml-null");
    private static final Pattern YAML_NULL = Pattern.compile("^(?:~|null|Null|NULL)$");

    private RlsYaml() {
    }

    /**
     * Reads every YAML document of one file, UTF-8, leaving out the empty ones (an empty or comment-only file has
     * none).
     *
     * @param file the file, as listed or found in a listed directory (messages name it)
     * @param bytes its contents, read once ({@link RlsFiles#bytes})
     * @param errors where a file that is not UTF-8 ({@code <file>: cannot be read: …}) or is not valid YAML
     *               ({@code <file>: is not valid YAML: …}, on one line) is recorded
     * @return the non-empty documents in file order, possibly none; null when an error was recorded
     */
    static @Nullable List<Object> documents(Path file, byte[] bytes, List<String> errors) {
        String where = file.toString();
        List<Object> documents = new ArrayList<>();
        // a reporting decoder, as Files.newBufferedReader uses: bytes that are not UTF-8 are refused, never replaced
        try (Reader in = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(bytes),
                StandardCharsets.UTF_8.newDecoder()))) {
            for (Object doc : yaml().loadAll(in)) {
                if (doc != null && !(doc instanceof String s && s.isEmpty())) {
                    documents.add(doc);
                }
            }
        } catch (IOException e) {
            errors.add(where + ": cannot be read: " + e.getMessage());
            return null;
        } catch (YAMLException e) {
            errors.add(where + ": is not valid YAML: " + e.getMessage().replace('\n', ' '));
            return null;
        }
        return documents;
    }

    /**
     * Every scalar is read as the text written (no implicit int, bool or float types), except a plain YAML null
     * ({@code null}, {@code Null}, {@code NULL}, {@code ~}), which becomes a {@link YamlNull} so that it is refused
     * where it is written. An empty plain scalar stays the empty text.
     *
     * @return a new parser for one file, never null (SnakeYAML's {@link Yaml} is not thread-safe)
     */
    private static Yaml yaml() {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        options.setAllowRecursiveKeys(false);
        DumperOptions dumper = new DumperOptions();
        SafeConstructor constructor = new SafeConstructor(options) {
            {
                this.yamlConstructors.put(NULL_TAG, new AbstractConstruct() {
                    @Override
                    public Object construct(Node node) {
                        return new YamlNull(((ScalarNode) node).getValue());
                    }
                });
            }
        };
        return new Yaml(constructor, new Representer(dumper), dumper, options, new Resolver() {
            @Override
            protected void addImplicitResolvers() {
                addImplicitResolver(NULL_TAG, YAML_NULL, "~nN");
            }
        });
    }

    /**
     * A plain YAML null as written ({@code null}, {@code Null}, {@code NULL} or {@code ~}).
     *
     * @param text the scalar exactly as written, which messages quote
     */
    record YamlNull(String text) {
        /** @return {@link #text()}, so that a message quoting the value shows what was written */
        @Override
        public String toString() {
            return text;
        }
    }
}
