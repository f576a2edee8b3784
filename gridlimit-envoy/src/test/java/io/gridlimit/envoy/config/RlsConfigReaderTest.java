package io.gridlimit.envoy.config;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** envoyproxy/ratelimit's documented configurations read unchanged, and every refusal with its message. */
class RlsConfigReaderTest {
    @TempDir
    Path dir;

    static Path example(String name) {
        return Path.of("src/test/resources/rls", name);
    }

    private RlsConfig read(String... files) {
        return RlsConfigReader.read(List.of(files));
    }

    private String write(String name, String yaml) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, yaml);
        return f.toString();
    }

    private String refusal(String yaml) throws IOException {
        String f = write("bad.yaml", yaml);
        try {
            read(f);
        } catch (RlsConfigException e) {
            assertThat(e.getMessage()).startsWith("Invalid GridLimit configuration: " + f + ": ");
            return e.getMessage();
        }
        throw new AssertionError("not refused: " + yaml);
    }

    @Test
    void theDocumentedExamplesLoadUnchangedAsFixedWindowsOfTheirUnits() {
        RlsConfig c = read(example("example1.yaml").toString(), example("example2.yaml").toString(),
                example("example4.yaml").toString(), example("example5.yaml").toString(),
                example("example6.yaml").toString(), example("example7.yaml").toString());
        assertThat(c.domains()).containsOnlyKeys("mongo_cps", "messaging", "example4", "internal", "example6",
                "example7");
        assertThat(c.rules()).extracting(RlsRule::path).containsExactly(
                "database=users", "database=default",
                "message_type=marketing/to_number", "to_number",
                "key=value/subkey", "flat=value",
                "ldap", "azure",
                "service/user=user-a", "service/user=user-b",
                "key_1=value_1/user=bkthomps", "key_2=value_2/user=bkthomps");
        RlsRule marketing = c.rules().get(2);
        assertThat(marketing.policy().name()).isEqualTo("messaging.message_type_marketing.to_number");
        assertThat(marketing.policy().bands()).containsExactly(
                Band.fixedWindow("messaging.message_type_marketing.to_number", 5, Duration.ofDays(1)));
        assertThat(marketing.unit()).isEqualTo(RlsUnit.DAY);
        assertThat(marketing.requestsPerUnit()).isEqualTo(5);
        assertThat(c.rules().get(6).unlimited()).isTrue();
        assertThat(c.rules().get(6).policy()).isNull();
        assertThat(c.rules().get(8).shadow()).isTrue();
        assertThat(c.rules().get(9).shadow()).isFalse();
        assertThat(c.rules().get(10).name()).isEqualTo("specific_limit");
        assertThat(c.rules().get(11).replaces()).containsExactly("specific_limit");
        assertThat(c.policies()).hasSize(11);
    }

    @Test
    void lookupMatchesKeyAndValueBeforeKeyAloneAndOnlyAtTheDescriptorsDepth() {
        RlsConfig c = read(example("example2.yaml").toString(), example("example4.yaml").toString(),
                example("example3-without-blocklist.yaml").toString());
        RlsDomain messaging = c.domains().get("messaging");
        assertThat(c.lookup(messaging, List.of("message_type", "to_number"), List.of("marketing", "2061111111"))
                .path()).isEqualTo("message_type=marketing/to_number");
        assertThat(c.lookup(messaging, List.of("to_number"), List.of("2061111111")).path()).isEqualTo("to_number");
        // a placeholder without a limit, and a type with no descriptor
        assertThat(c.lookup(messaging, List.of("message_type"), List.of("marketing"))).isNull();
        assertThat(c.lookup(messaging, List.of("message_type", "to_number"), List.of("alerts", "1"))).isNull();
        RlsDomain four = c.domains().get("example4");
        // README Example 4: two entries do not match a one-level rule, and one entry does not match a nested one
        assertThat(c.lookup(four, List.of("flat", "subkey"), List.of("value", "subvalue"))).isNull();
        assertThat(c.lookup(four, List.of("key"), List.of("value"))).isNull();
        assertThat(c.lookup(four, List.of("key", "subkey"), List.of("value", "subvalue")).path())
                .isEqualTo("key=value/subkey");
        RlsDomain ip = c.domains().get("edge_proxy_per_ip");
        assertThat(c.lookup(ip, List.of("remote_address"), List.of("50.0.0.5")).requestsPerUnit()).isEqualTo(2);
        assertThat(c.lookup(ip, List.of("remote_address"), List.of("50.0.0.1")).requestsPerUnit()).isEqualTo(10);
    }

    @Test
    void example3sRequestsPerUnitZeroIsABlockListWithoutAPolicy() throws IOException {
        RlsConfig c = read(example("example3.yaml").toString());
        RlsRule block = c.rules().get(1);
        assertThat(block.kind()).isEqualTo(RlsRule.Kind.BLOCKED);
        assertThat(block.blocked()).isTrue();
        assertThat(block.path()).isEqualTo("remote_address=50.0.0.5");
        assertThat(block.policy()).isNull();
        assertThat(block.policyName()).isEqualTo("edge_proxy_per_ip.remote_address_50.0.0.5");
        assertThat(block.unit()).isEqualTo(RlsUnit.SECOND);
        assertThat(block.requestsPerUnit()).isZero();
        assertThat(block.quota()).isZero();
        // only the 10 per second is a policy (SPEC §1: a limit is at least 1)
        assertThat(c.policies()).extracting(p -> p.name()).containsExactly("edge_proxy_per_ip.remote_address");
        RlsDomain d = c.domains().get("edge_proxy_per_ip");
        assertThat(c.lookup(d, List.of("remote_address"), List.of("50.0.0.5"))).isSameAs(block);
        // a block list has no algorithm to choose
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_unit: 0, gridlimit: {algorithm: gcra}}
                """)).endsWith("domain 'd', descriptor k (descriptors[0]): rate_limit.gridlimit: a block list "
                        + "(requests_per_unit: 0) is decided without an algorithm; remove the extension");
    }

    @Test
    void theExtensionChoosesAnyAlgorithm() {
        RlsConfig c = read(example("buckets.yaml").toString());
        assertThat(c.rules().get(0).policy().bands().get(0)).isEqualTo(
                Band.tokenBucket("buckets.api_key", 5, 2, Duration.ofSeconds(1)));
        assertThat(c.rules().get(0).quota()).isEqualTo(5);
        assertThat(c.rules().get(1).policy().bands().get(0).algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
        assertThat(c.rules().get(1).policy().bands().get(0).windowNanos()).isEqualTo(60_000_000_000L);
    }

    @Test
    void everyUnitHasEnvoyProxyRatelimitsLength() throws IOException {
        StringBuilder y = new StringBuilder("domain: units\ndescriptors:\n");
        for (String u : List.of("second", "MINUTE", "Hour", "day", "week", "month", "year")) {
            y.append("  - key: ").append(u).append("\n    rate_limit: {unit: ").append(u)
                    .append(", requests_per_unit: 1}\n");
        }
        RlsConfig c = read(write("units.yaml", y.toString()));
        assertThat(c.rules()).extracting(r -> r.policy().bands().get(0).windowNanos() / 1_000_000_000L)
                .containsExactly(1L, 60L, 3_600L, 86_400L, 604_800L, 2_592_000L, 31_536_000L);
    }

    @Test
    void valuesAreReadAsWrittenAndNamesThatAreNoPolicyNameGetAHash() throws IOException {
        RlsConfig c = read(write("v.yaml", """
                domain: d
                descriptors:
                  - key: version
                    value: 1.50
                    rate_limit: {unit: second, requests_per_unit: 1}
                  - key: path
                    value: /api/v1
                    rate_limit: {unit: second, requests_per_unit: 1}
                """));
        RlsDomain d = c.domains().get("d");
        assertThat(c.lookup(d, List.of("version"), List.of("1.50"))).isNotNull();
        assertThat(c.lookup(d, List.of("version"), List.of("1.5"))).isNull();
        assertThat(c.rules().get(0).policy().name()).isEqualTo("d.version_1.50");
        assertThat(c.rules().get(1).policy().name()).matches("d\\.path_-api-v1-[0-9a-f]{8}");
    }

    @Test
    void aDirectoryStandsForItsYamlFilesInNameOrder() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("conf"));
        Files.copy(example("example1.yaml"), sub.resolve("b.yaml"));
        Files.copy(example("example2.yaml"), sub.resolve("a.yml"));
        Files.writeString(sub.resolve(".hidden.yaml"), "not: [valid");
        Files.writeString(sub.resolve("notes.txt"), "ignored: not yaml by name");
        RlsConfig c = read(sub.toString());
        assertThat(c.domains()).containsOnlyKeys("messaging", "mongo_cps");
        assertThat(c.rules().get(0).domain()).isEqualTo("messaging");
    }

    @Test
    void unsupportedFeaturesAndUnknownFieldsAreRefused() throws IOException {
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_second: 5}
                """)).contains("descriptor k (descriptors[0]): rate_limit.requests_per_second: unknown field "
                + "(known: gridlimit, name, replaces, requests_per_unit, unit, unlimited)")
                .doesNotContain("requests_per_unit is missing");
        // a missing requests_per_unit is Go's 0 there: a block list, loaded so and warned of
        String f = write("missing.yaml", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second}\n");
        RlsConfig missing = read(f);
        assertThat(missing.rules()).singleElement().satisfies(r -> assertThat(r.blocked()).isTrue());
        assertThat(missing.warnings()).containsExactly(f + ": domain 'd', descriptor k (descriptors[0]): "
                + "rate_limit.requests_per_unit is missing, read as envoyproxy/ratelimit reads it: 0, a block list, "
                + "so every request it matches is OVER_LIMIT");
        // read as envoyproxy/ratelimit reads them: quota_mode served, the metric flags and metadata without effect
        assertThat(read(write("flags.yaml", """
                domain: d
                descriptors:
                  - key: k
                    quota_mode: true
                    detailed_metric: true
                    metadata: {team: a}
                    rate_limit: {unit: second, requests_per_unit: 5}
                """)).rules()).singleElement().extracting(RlsRule::quotaMode).isEqualTo(true);
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    descriptors:
                      - key: user
                        rate_limt: {unit: second, requests_per_unit: 5}
                """)).contains("descriptor k/user (descriptors[0].descriptors[0]): rate_limt: unknown field");
        assertThat(refusal("domain: d\nversion: 2\ndescriptors: []\n")).contains(": version: unknown field");
    }

    @Test
    void detailedMetricFalseIsTheDefaultAndAccepted() throws IOException {
        RlsConfig c = read(write("ok.yaml", """
                domain: d
                descriptors:
                  - key: k
                    detailed_metric: false
                    share_threshold: false
                    rate_limit: {unit: second, requests_per_unit: 5}
                """));
        assertThat(c.rules()).hasSize(1);
    }

    @Test
    void malformedValuesAreRefusedNamingThem() throws IOException {
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: fortnight, requests_per_unit: five}
                """)).contains("rate_limit.unit: 'fortnight' is not a unit (second, minute, hour, day, week, month "
                + "or year)").contains("rate_limit.requests_per_unit: 'five' is not a whole number");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_unit: 4294967296}
                """)).contains("rate_limit.requests_per_unit: '4294967296' is outside [0, 4294967295]");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    shadow_mode: yes
                    rate_limit: {unlimited: true, unit: second}
                """)).contains("shadow_mode: 'yes' is not true or false")
                .contains("rate_limit.unlimited: true takes no unit");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_unit: 200000, gridlimit: {algorithm: sliding-window-log}}
                  - key: j
                    rate_limit: {unit: second, requests_per_unit: 2, gridlimit: {algorithm: fixed-window, capacity: 3}}
                  - key: i
                    rate_limit: {unit: second, requests_per_unit: 2, gridlimit: {algorithm: leaky}}
                """)).contains("descriptor k (descriptors[0]): rate_limit: limit must be in [1, 100000], got 200000")
                .contains("descriptor j (descriptors[1]): rate_limit.gridlimit.capacity is for token-bucket and gcra "
                        + "only; fixed-window takes requests_per_unit per unit")
                .contains("descriptor i (descriptors[2]): rate_limit.gridlimit.algorithm: unknown algorithm 'leaky'");
        // docs/SPEC.md §12, §14: a rule's unit is a fixed length, so a calendar band is refused, never mapped
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: month, requests_per_unit: 10000, gridlimit: {algorithm: calendar}}
                """)).contains("descriptor k (descriptors[0]): rate_limit.gridlimit.algorithm: 'calendar' is not "
                + "served to Envoy: a rule's unit is a fixed length (docs/SPEC.md §12); limit calendar quotas in a "
                + "service's configuration (gridlimit.policies, docs/SPEC.md §14)");
    }

    @Test
    void structureErrorsAreRefused() throws IOException {
        assertThat(refusal("descriptors: []\n")).endsWith(": domain is missing or empty");
        assertThat(refusal("- domain: d\n")).endsWith(": is not a map with domain and descriptors");
        assertThat(refusal("domain: a\n---\ndomain: b\n")).endsWith(": holds 2 YAML documents; write exactly one "
                + "domain per file");
        assertThat(refusal("domain: d\ndomain: e\n")).contains(": is not valid YAML: ").contains("duplicate key");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    value: v
                    rate_limit: {unit: second, requests_per_unit: 1}
                  - key: k
                    value: v
                    rate_limit: {unit: second, requests_per_unit: 2}
                """)).endsWith("descriptor k=v (descriptors[1]): another descriptor of this level has the same key "
                + "and value");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - value: v
                  - key: s
                    shadow_mode: true
                """)).contains("descriptors[0]): key is missing or empty")
                .doesNotContain("descriptor s (descriptors[1])");
        // envoyproxy/ratelimit loads shadow_mode without a rate_limit (it shadows nothing): loaded, warned of
        String f = write("shadow.yaml", "domain: d\ndescriptors:\n  - key: s\n    shadow_mode: true\n");
        assertThat(read(f).warnings()).containsExactly(f + ": domain 'd', descriptor s (descriptors[0]): shadow_mode: "
                + "true without a rate_limit shadows nothing, as envoyproxy/ratelimit reads it: move it beside the "
                + "rate_limit it is meant for");
    }

    @Test
    void aListOrMapWhereTextBelongsIsRefusedNeverReadAsAnyValue() throws IOException {
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    value: [a, b]
                    value_to_metric: true
                    rate_limit: {unit: {a: b}, requests_per_unit: 1}
                """)).contains("domain 'd', descriptors[0]: value is a list; write one text")
                .contains("rate_limit.unit is a map; write one text");
        assertThat(refusal("domain: [a]\n")).endsWith(": domain is a list; write one text; " + dir.resolve("bad.yaml")
                + ": domain is missing or empty");
    }

    @Test
    void yamlNullIsReadAsTheReferenceReadsItNeverAsTextAndTaggedValuesAreRefused() throws IOException {
        // found by attack: value: null limited only requests whose value is the text "null", key: null and
        // domain: ~ became the key "null" and the domain "~". Go's YAML gives a null field its zero value: empty
        // text, false, 0, no list; so does GridLimit, with a warning naming each, and refuses what that refuses
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    value: null
                    rate_limit: {unit: second, requests_per_unit: 1}
                  - key: ~
                    rate_limit: {unit: second, requests_per_unit: 1}
                """)).doesNotContain("descriptors[0]").contains("descriptors[1]): key is missing or empty");
        assertThat(refusal("domain: ~\ndescriptors: []\n")).contains(": domain is missing or empty");
        String f = write("nulls.yaml", """
                domain: d
                descriptors:
                  - key: j
                    shadow_mode: NULL
                    rate_limit: Null
                  - key: k
                    quota_mode: ~
                    metadata: ~
                    descriptors: ~
                    rate_limit: {unit: second, requests_per_unit: ~, replaces: null, name: ~}
                  - key: u
                    rate_limit: {unlimited: ~, unit: minute, requests_per_unit: 3}
                """);
        RlsConfig nulls = read(f);
        String at = f + ": domain 'd', descriptor ";
        assertThat(nulls.warnings()).containsExactly(
                at + "j (descriptors[0]): shadow_mode: 'NULL' is YAML's null, read as envoyproxy/ratelimit reads it: "
                        + "false (leave the field out, or quote it, 'NULL', to mean the text)",
                at + "j (descriptors[0]): rate_limit: 'Null' is YAML's null, read as envoyproxy/ratelimit reads it: "
                        + "no rate_limit, so the descriptor is not limited (leave the field out, or quote it, 'Null', "
                        + "to mean the text)",
                at + "k (descriptors[1]): quota_mode: '~' is YAML's null, read as envoyproxy/ratelimit reads it: "
                        + "false (leave the field out, or quote it, '~', to mean the text)",
                at + "k (descriptors[1]): metadata: '~' is YAML's null, read as envoyproxy/ratelimit reads it: no "
                        + "metadata (leave the field out, or quote it, '~', to mean the text)",
                at + "k (descriptors[1]): rate_limit.name: '~' is YAML's null, read as envoyproxy/ratelimit reads "
                        + "it: empty, as if it were left out (leave the field out, or quote it, '~', to mean the text)",
                at + "k (descriptors[1]): rate_limit.replaces: 'null' is YAML's null, read as envoyproxy/ratelimit "
                        + "reads it: replaces nothing (leave the field out, or quote it, 'null', to mean the text)",
                at + "k (descriptors[1]): rate_limit.requests_per_unit: '~' is YAML's null, read as "
                        + "envoyproxy/ratelimit reads it: 0 (leave the field out, or quote it, '~', to mean the text)",
                f + ": domain 'd': descriptors[1].descriptors: '~' is YAML's null, read as envoyproxy/ratelimit reads "
                        + "it: no descriptors (leave the field out, or quote it, '~', to mean the text)",
                at + "u (descriptors[2]): rate_limit.unlimited: '~' is YAML's null, read as envoyproxy/ratelimit "
                        + "reads it: false (leave the field out, or quote it, '~', to mean the text)");
        // j: no rule; k: requests_per_unit 0, a block list, not in quota mode; u: limited, 3 per minute
        assertThat(nulls.rules()).extracting(r -> r.path() + " " + r.kind() + " " + r.requestsPerUnit() + " "
                + r.quotaMode()).containsExactly("k BLOCKED 0 false", "u LIMITED 3 false");
        // GridLimit's own extension takes no null
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_unit: 5, gridlimit: ~}
                """)).contains("rate_limit.gridlimit: '~' is YAML's null; leave the field out, or quote it ('~') to "
                + "mean the text");
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: !!binary aGVsbG8=
                  - key: k
                    shadow_mode: !!bool true
                    rate_limit: {unit: second, requests_per_unit: !!int 5}
                """)).contains("descriptors[0]: key: '[B@").contains("has an explicit YAML tag (read as byte[]); "
                        + "write one text without a tag")
                .contains("descriptor k (descriptors[1]): shadow_mode: 'true' has an explicit YAML tag (read as "
                        + "Boolean); write true or false without a tag")
                .contains("rate_limit.requests_per_unit: '5' has an explicit YAML tag (read as Integer); write a "
                        + "whole number without a tag");
        // quoted, the same words are text; an empty value still matches any value
        RlsConfig c = read(write("q.yaml", """
                domain: d
                descriptors:
                  - key: k
                    value: 'null'
                    rate_limit: {unit: second, requests_per_unit: 1}
                  - key: j
                    value:
                    rate_limit: {unit: second, requests_per_unit: 1}
                """));
        RlsDomain d = c.domains().get("d");
        assertThat(c.lookup(d, List.of("k"), List.of("null"))).isNotNull();
        assertThat(c.lookup(d, List.of("k"), List.of("other"))).isNull();
        assertThat(c.lookup(d, List.of("j"), List.of("anything"))).isNotNull();
    }

    @Test
    void replacesMustNameAnotherRuleOfTheDomainOrReplaceNothing() throws IOException {
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: a
                    rate_limit:
                      name: mine
                      unit: second
                      requests_per_unit: 1
                      replaces: [{name: mine}, {name: nobody}, {}]
                """)).contains("rate_limit.replaces[0].name 'mine' is this rule's own name")
                .contains("rate_limit.replaces[2].name is missing or empty")
                .doesNotContain("nobody");
    }

    @Test
    void replacesThatMakeACycleLoadWithAWarning() throws IOException {
        // found by attack: a replaces b and b replaces a drop both limits whenever both match (no limit at all):
        // envoyproxy/ratelimit loads it so, GridLimit too, and says so at boot
        String f = write("cycle.yaml", """
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {name: a, unit: second, requests_per_unit: 5, replaces: [{name: b}]}
                  - key: j
                    rate_limit: {name: b, unit: second, requests_per_unit: 5, replaces: [{name: a}]}
                """);
        assertThat(read(f).warnings()).containsExactly(f + ": domain 'd': rate_limit.replaces make a cycle (a "
                + "replaces b replaces a): when its rules all match one request, none of their limits applies "
                + "(envoyproxy/ratelimit's resolution: every replaced rule is dropped)");
        assertThat(read(write("cycle3.yaml", """
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {name: a, unit: second, requests_per_unit: 5, replaces: [{name: b}]}
                  - key: j
                    rate_limit: {name: b, unit: second, requests_per_unit: 5, replaces: [{name: c}]}
                  - key: i
                    rate_limit: {name: c, unlimited: true, replaces: [{name: a}]}
                """)).warnings()).singleElement().asString()
                .contains("rate_limit.replaces make a cycle (a replaces b replaces c replaces a)");
        // a chain is no cycle
        RlsConfig c = read(write("chain.yaml", """
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {name: a, unit: second, requests_per_unit: 5, replaces: [{name: b}]}
                  - key: j
                    rate_limit: {name: b, unit: second, requests_per_unit: 5, replaces: [{name: c}]}
                  - key: i
                    rate_limit: {name: c, unit: second, requests_per_unit: 5}
                """));
        assertThat(c.rules()).extracting(RlsRule::replaces).containsExactly(List.of("b"), List.of("c"), List.of());
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void emptyFilesEmptyDirectoriesAndHugeLimitsAreRefused() throws IOException {
        assertThat(refusal("")).endsWith(": holds 0 YAML documents; write exactly one domain per file");
        assertThat(refusal("# only a comment\n---\n")).endsWith(": holds 0 YAML documents; write exactly one domain "
                + "per file");
        Path none = Files.createDirectory(dir.resolve("none"));
        Files.writeString(none.resolve("notes.txt"), "domain: d");
        assertThatThrownBy(() -> read(none.toString())).hasMessage("Invalid GridLimit configuration: "
                + "gridlimit.envoy-rls.config-files[0]: directory '" + none + "' holds no .yaml or .yml file");
        // 10^15 + 1 (above SPEC §1's limit), and a number past 2^64 (was refused as 'not a whole number')
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    rate_limit: {unit: second, requests_per_unit: 1000000000000001}
                  - key: j
                    rate_limit: {unit: DaY, requests_per_unit: 2,
                                 gridlimit: {algorithm: gcra, capacity: 123456789012345678901234}}
                """)).contains("descriptor k (descriptors[0]): rate_limit.requests_per_unit: '1000000000000001' is "
                        + "outside [0, 4294967295]")
                .contains("descriptor j (descriptors[1]): rate_limit.gridlimit.capacity: '123456789012345678901234' is "
                        + "outside [1, 4294967295]");
    }

    @Test
    void aDirectoryReadsYamlExtensionsInAnyCase() throws IOException {
        // found by attack: B.YAML beside a.yaml was skipped without a word (its limits silently absent)
        Path conf = Files.createDirectory(dir.resolve("mixed"));
        Files.copy(example("example1.yaml"), conf.resolve("a.yaml"));
        Files.copy(example("example2.yaml"), conf.resolve("B.YAML"));
        Files.copy(example("example4.yaml"), conf.resolve("c.Yml"));
        assertThat(read(conf.toString()).domains()).containsOnlyKeys("mongo_cps", "messaging", "example4");
    }

    @Test
    void aDomainLivesInOneFileAndEveryPathMustExist() throws IOException {
        String a = write("a.yaml", "domain: d\ndescriptors: []\n");
        String b = write("b.yaml", "domain: d\ndescriptors: []\n");
        assertThatThrownBy(() -> read(a, b)).hasMessage("Invalid GridLimit configuration: " + b + ": domain 'd' is "
                + "also defined in " + a + "; each domain lives in one file");
        assertThatThrownBy(() -> read(dir.resolve("missing.yaml").toString())).hasMessage("Invalid GridLimit "
                + "configuration: gridlimit.envoy-rls.config-files[0]: '" + dir.resolve("missing.yaml")
                + "' is neither a file nor a directory");
        assertThatThrownBy(() -> RlsConfigReader.read(List.of())).hasMessageContaining(
                "gridlimit.envoy-rls.config-files: is empty");
        // found by attack: an empty entry ("a.yaml," in an environment variable) was the working directory, whose
        // YAML files were then read as rules
        Files.writeString(Path.of("stray-in-working-directory.yaml"), "domain: stray\ndescriptors: []\n");
        try {
            assertThatThrownBy(() -> read(a, "", "  ")).hasMessage("Invalid GridLimit configuration: "
                    + "gridlimit.envoy-rls.config-files[1]: is empty; write a file or directory path; "
                    + "gridlimit.envoy-rls.config-files[2]: is empty; write a file or directory path");
        } finally {
            Files.delete(Path.of("stray-in-working-directory.yaml"));
        }
        // the same file twice (listed again, or inside a listed directory) says so
        assertThatThrownBy(() -> read(a, dir.toString())).hasMessageContaining(a + ": is read twice (listed again "
                + "in gridlimit.envoy-rls.config-files, or inside a listed directory); list each file once");
    }

    @Test
    void gridKeysNeverShareAStateAcrossDifferentDescriptors() {
        assertThat(RlsConfig.gridKey(List.of("a"), List.of("b|c")))
                .isNotEqualTo(RlsConfig.gridKey(List.of("a", "c"), List.of("b", "")))
                .isNotEqualTo(RlsConfig.gridKey(List.of("a="), List.of("b|c")))
                .startsWith("rls:").hasSize(68);
        assertThat(RlsConfig.gridKey(List.of("a"), List.of("x".repeat(5000)))).hasSize(68);
    }
}
