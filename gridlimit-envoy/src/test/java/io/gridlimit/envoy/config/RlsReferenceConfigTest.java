package io.gridlimit.envoy.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * envoyproxy/ratelimit's own test material (test/config/config_test.go over test/config/*.yaml), re-stated over
 * GridLimit's reader: the configurations it loads load here with the meaning it gives them (docs/SPEC.md §12). The
 * YAML files are in src/test/resources/reference, written after the reference's.
 */
class RlsReferenceConfigTest {
    @TempDir
    Path dir;

    static String reference(String name) {
        return Path.of("src/test/resources/reference", name).toString();
    }

    private static RlsConfig read(String... files) {
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
            return e.getMessage();
        }
        throw new AssertionError("not refused: " + yaml);
    }

    private static RlsMatch match(RlsConfig c, String domain, String... keyValues) {
        List<String> keys = new java.util.ArrayList<>();
        List<String> values = new java.util.ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            keys.add(keyValues[i]);
            values.add(keyValues[i + 1]);
        }
        return c.match(c.domains().get(domain), keys, values);
    }

    private static String path(RlsMatch m) {
        return m == null ? null : m.rule().path();
    }

    @Test
    void wildcardsMatchAsTheReferencesTestWildcardConfigSays() {
        RlsConfig c = read(reference("wildcard.yaml"));
        // a key alone matches every value, each counted on its own key
        assertThat(match(c, "wildcard", "noVal", "foo1").rule()).isSameAs(match(c, "wildcard", "noVal", "foo2").rule());
        // a trailing wildcard: one rule, each value its own counter (no share_threshold)
        RlsMatch foo1 = match(c, "wildcard", "wild", "foo1");
        RlsMatch foo2 = match(c, "wildcard", "wild", "foo2");
        assertThat(path(foo1)).isEqualTo("wild=foo*");
        assertThat(foo2.rule()).isSameAs(foo1.rule());
        assertThat(foo1.keyValues()).containsExactly("foo1");
        assertThat(foo1.gridKey()).isNotEqualTo(foo2.gridKey()).isEqualTo(RlsConfig.gridKey(List.of("wild"),
                List.of("foo1")));
        assertThat(match(c, "wildcard", "wild", "foo").rule()).isSameAs(foo1.rule()); // * matches nothing too
        assertThat(path(match(c, "wildcard", "nestedWild", "val1", "wild", "goo2")))
                .isEqualTo("nestedWild=val1/wild=goo*");
        assertThat(match(c, "wildcard", "wild", "bar")).isNull();
        // a value without * never matches a longer one ("non-wildcard values don't eager match")
        assertThat(match(c, "wildcard", "noWild", "foo1")).isNull();
        assertThat(path(match(c, "wildcard", "noWild", "foo"))).isEqualTo("noWild=foo");
        // a middle wildcard: prefix "bar", suffix "b", zero or more between
        for (String v : List.of("barab", "bar123b", "barb")) {
            assertThat(path(match(c, "wildcard", "midWild", v))).as(v).isEqualTo("midWild=bar*b");
        }
        assertThat(match(c, "wildcard", "midWild", "bara")).isNull();
        assertThat(match(c, "wildcard", "midWild", "xbarb")).isNull();
        // several wildcards: the parts in order
        for (String v : List.of("foo123bar456baz", "foobarbaz")) {
            assertThat(path(match(c, "wildcard", "multiWild", v))).as(v).isEqualTo("multiWild=foo*bar*baz");
        }
        assertThat(match(c, "wildcard", "multiWild", "foo123baz")).isNull();
        assertThat(match(c, "wildcard", "multiWild", "bar456baz")).isNull();
        // the wildcard's policy has a hashed name ('*' is no policy-name character)
        assertThat(foo1.rule().policyName()).matches("wildcard\\.wild_foo--[0-9a-f]{8}");
    }

    @Test
    void wildcardPartsNeverOverlapAndStarAloneMatchesEverything() {
        RlsWildcard w = RlsWildcard.of("ab*ba");
        assertThat(w.parts()).containsExactly("ab", "ba");
        assertThat(w.matches("aba")).isFalse(); // prefix and suffix would share the middle 'b'
        assertThat(w.matches("abba")).isTrue();
        assertThat(w.matches("abxba")).isTrue();
        RlsWildcard any = RlsWildcard.of("*");
        assertThat(any.matches("")).isTrue();
        assertThat(any.matches("x/y")).isTrue();
        RlsWildcard mid = RlsWildcard.of("a*bc*d");
        assertThat(mid.matches("abcd")).isTrue();
        assertThat(mid.matches("abd")).isFalse();
        assertThat(mid.matches("axbcbcd")).isTrue();
        RlsWildcard tight = RlsWildcard.of("a*bc*c");
        assertThat(tight.matches("abcc")).isTrue();
        assertThat(tight.matches("axbc")).isFalse(); // the middle "bc" would take the suffix's "c"
        assertThat(RlsWildcard.of("plain")).isNull();
    }

    @Test
    void shareThresholdPutsThePatternForTheValueAsTheReferencesTestShareThresholdSays() {
        RlsConfig c = read(reference("share_threshold.yaml"));
        String d = "share_threshold";
        RlsMatch a = match(c, d, "files", "files/a.pdf");
        assertThat(a.keyValues()).containsExactly("files/*");
        for (String v : List.of("files/b.csv", "files/c.txt")) {
            assertThat(match(c, d, "files", v).gridKey()).isEqualTo(a.gridKey());
        }
        assertThat(a.gridKey()).isEqualTo(RlsConfig.gridKey(List.of("files"), List.of("files/*")));
        assertThat(a.rule().requestsPerUnit()).isEqualTo(3);
        // nested below an exact value
        RlsMatch nested = match(c, d, "nested", "parent", "files", "nested/file1.txt");
        assertThat(nested.keyValues()).containsExactly("parent", "nested/*");
        assertThat(nested.rule().requestsPerUnit()).isEqualTo(200);
        // the same key at two levels, both shared: each level by its own index
        RlsMatch both = match(c, d, "files", "top/file1.txt", "files", "nested/file1.txt");
        assertThat(both.keyValues()).containsExactly("top/*", "nested/*");
        assertThat(both.rule().requestsPerUnit()).isEqualTo(2);
        // the parent shares, the child (share_threshold: false) and the key alone count each value
        assertThat(match(c, d, "path", "path/foo", "file", "file/doc1", "type", "pdf").keyValues())
                .containsExactly("path/*", "file/doc1", "pdf");
        // the exact value wins over the wildcard, on its own counter
        RlsMatch test1 = match(c, d, "file", "test1");
        assertThat(test1.rule().requestsPerUnit()).isEqualTo(50);
        assertThat(test1.keyValues()).containsExactly("test1");
        for (String v : List.of("test2", "test23", "test123")) {
            RlsMatch m = match(c, d, "file", v);
            assertThat(m.rule().requestsPerUnit()).isEqualTo(100);
            assertThat(m.keyValues()).containsExactly("test*");
        }
        // middle and multiple wildcards share too
        for (String v : List.of("/api/v1", "/api-beta-v1", "/apiXYZv1")) {
            assertThat(match(c, d, "midpath", v).keyValues()).containsExactly("/api*v1");
        }
        assertThat(match(c, d, "midpath", "/api/v2")).isNull();
        for (String v : List.of("svcAepBrpc", "svcXXXepYYYrpc", "svceprpc")) {
            assertThat(match(c, d, "multiroute", v).keyValues()).containsExactly("svc*ep*rpc");
        }
        assertThat(match(c, d, "multiroute", "svcABCrpc")).isNull();
    }

    @Test
    void shareThresholdOutsideAWildcardAndAStarInAKeyAreRefused() throws IOException {
        String f = dir.resolve("bad.yaml").toString();
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: files
                    value: exact
                    share_threshold: true
                    rate_limit: {unit: minute, requests_per_unit: 20}
                  - key: path*
                    rate_limit: {unit: minute, requests_per_unit: 20}
                """)).isEqualTo("Invalid GridLimit configuration: " + f + ": domain 'd', descriptor files=exact "
                + "(descriptors[0]): share_threshold: true applies to wildcard values only (a value holding '*'), as "
                + "envoyproxy/ratelimit requires; remove it, or write the wildcard; " + f + ": domain 'd', "
                + "descriptor path* (descriptors[1]): key 'path*' holds a '*': envoyproxy/ratelimit reads it as a "
                + "wildcard over its key_value text, GridLimit matches keys exactly (wildcards are served in values); "
                + "write the key out");
    }

    @Test
    void looseResolutionsLoadAsTheReferenceReadsThemWithWarnings() throws IOException {
        String f = reference("resolutions.yaml");
        RlsConfig c = read(f);
        assertThat(c.warnings()).containsExactly(
                f + ": domain 'resolutions', descriptor internal (descriptors[0]): rate_limit.requests_per_unit 25 "
                        + "beside unlimited: true is ignored, as envoyproxy/ratelimit ignores it: the descriptor is "
                        + "unlimited",
                f + ": domain 'resolutions', descriptor user (descriptors[1]): value: '~' is YAML's null, read as "
                        + "envoyproxy/ratelimit reads it: unset, so this descriptor matches every value of key 'user' "
                        + "(quote it, '~', to mean the text)",
                f + ": domain 'resolutions', descriptor route: rate_limit.replaces names 'nobody', which no "
                        + "rate_limit of the domain has: it replaces nothing (as envoyproxy/ratelimit reads it)",
                f + ": domain 'resolutions': rate_limit.replaces make a cycle (rule_a replaces rule_b replaces "
                        + "rule_a): when its rules all match one request, none of their limits applies "
                        + "(envoyproxy/ratelimit's resolution: every replaced rule is dropped)");
        assertThat(c.rules().get(0).unlimited()).isTrue();
        assertThat(match(c, "resolutions", "user", "anyone").rule().path()).isEqualTo("user");
        assertThat(match(c, "resolutions", "user", "null").rule().path()).isEqualTo("user");
        // the reference's unlimited_with_unit.yaml stays refused, as there; a unit that is none is ignored
        RlsConfigException e = org.junit.jupiter.api.Assertions.assertThrows(RlsConfigException.class, () -> read(
                write("u.yaml", "domain: d\ndescriptors:\n  - key: foo\n    rate_limit:\n      unlimited: true\n"
                        + "      unit: day\n      requests_per_unit: 25\n")));
        assertThat(e.getMessage()).contains("descriptor foo (descriptors[0]): rate_limit.unlimited: true takes no "
                + "unit");
    }

    @Test
    void anUnlimitedRuleWithAUnitThatIsNoneIsUnlimitedWithAWarning() throws IOException {
        RlsConfig c = read(write("u.yaml", "domain: d\ndescriptors:\n  - key: foo\n    rate_limit:\n"
                + "      unlimited: true\n      unit: fortnight\n"));
        assertThat(c.rules().get(0).unlimited()).isTrue();
        assertThat(c.warnings()).containsExactly(dir.resolve("u.yaml") + ": domain 'd', descriptor foo "
                + "(descriptors[0]): rate_limit.unit 'fortnight' beside unlimited: true is not a unit and is ignored, "
                + "as envoyproxy/ratelimit ignores it: the descriptor is unlimited");
    }

    @Test
    void theReferencesBasicConfigLoadsWithItsMeaningAndMetricFlagsChangeNothing() {
        RlsConfig c = read(reference("basic.yaml"));
        String d = "basic";
        assertThat(match(c, d, "key1", "something")).isNull();
        assertThat(match(c, d, "key1", "value1")).isNull();
        assertThat(match(c, d, "key2", "value2", "subkey", "subvalue")).isNull();
        assertThat(match(c, d, "key5", "value5", "subkey5", "subvalue")).isNull();
        assertThat(limit(match(c, d, "key1", "value1", "subkey1", "something"))).isEqualTo("5 per SECOND");
        assertThat(limit(match(c, d, "key1", "value1", "subkey1", "subvalue1"))).isEqualTo("10 per SECOND");
        assertThat(limit(match(c, d, "key2", "something"))).isEqualTo("20 per MINUTE");
        assertThat(limit(match(c, d, "key2", "value2"))).isEqualTo("30 per MINUTE");
        assertThat(match(c, d, "key2", "value3")).isNull();
        RlsMatch key3 = match(c, d, "key3", "foo");
        assertThat(limit(key3)).isEqualTo("1 per HOUR");
        assertThat(key3.rule().name()).isNull();
        RlsMatch key4 = match(c, d, "key4", "foo");
        assertThat(limit(key4)).isEqualTo("1 per DAY");
        assertThat(key4.rule().name()).isEqualTo("key4_rate_limit");
        assertThat(match(c, d, "key6", "foo").rule().unlimited()).isTrue();
        // detailed_metric and value_to_metric only name stats: the rule and its counters are as without them
        RlsMatch a = match(c, d, "key7", "unspecified_value");
        assertThat(limit(a)).isEqualTo("70 per MINUTE");
        assertThat(a.rule().policyName()).isEqualTo("basic.key7");
        assertThat(a.gridKey()).isEqualTo(RlsConfig.gridKey(List.of("key7"), List.of("unspecified_value")));
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void quotaModeIsReadAndMetadataMustBeAMap() throws IOException {
        RlsConfig c = read(reference("quota.yaml"));
        assertThat(c.rules()).extracting(RlsRule::quotaMode).containsExactly(true, true, false);
        assertThat(refusal("""
                domain: d
                descriptors:
                  - key: k
                    metadata: [a, b]
                    quota_mode: maybe
                    rate_limit: {unit: second, requests_per_unit: 5}
                """)).contains("descriptor k (descriptors[0]): metadata is not a map; write a map (GridLimit sends no "
                        + "dynamic metadata: it is accepted and not used)")
                .contains("descriptor k (descriptors[0]): quota_mode: 'maybe' is not true or false");
    }

    private static String limit(RlsMatch m) {
        return m.rule().requestsPerUnit() + " per " + m.rule().unit();
    }

    @Test
    void mergeDomainConfigJoinsTheTopLevelsOfOneDomainAndRefusesADescriptorInTwoFiles() throws IOException {
        String one = reference("merge_domain_key1.yaml");
        String two = reference("merge_domain_key2.yaml");
        // TestDomainMerge
        RlsConfig c = RlsConfigReader.read(List.of(one, two), true);
        assertThat(c.domains()).containsOnlyKeys("merged");
        assertThat(c.domains().get("merged").file()).isEqualTo(one + ", " + two);
        assertThat(limit(match(c, "merged", "key1", "value1"))).isEqualTo("10 per MINUTE");
        assertThat(limit(match(c, "merged", "key2", "value2"))).isEqualTo("20 per MINUTE");
        // without it, a domain lives in one file (today's refusal)
        assertThatThrownBy(() -> read(one, two)).hasMessage("Invalid GridLimit configuration: " + two
                + ": domain 'merged' is also defined in " + one + "; each domain lives in one file");
        // TestDuplicateKeyDomainMerge: one descriptor in two files is refused, as there; a file listed twice too
        String copy = write("copy.yaml", Files.readString(Path.of(one)));
        assertThatThrownBy(() -> RlsConfigReader.read(List.of(one, copy), true)).hasMessage(
                "Invalid GridLimit configuration: " + copy + ": domain 'merged', descriptor key1=value1: is also "
                        + "defined in " + one + " (merge-domain-config merges a domain's top-level descriptors, never "
                        + "one descriptor across files)");
        assertThatThrownBy(() -> RlsConfigReader.read(List.of(one, one), true)).hasMessage(
                "Invalid GridLimit configuration: " + one + ": is read twice (listed again in "
                        + "gridlimit.envoy-rls.config-files, or inside a listed directory); list each file once");
    }

    @Test
    void overridePoliciesHaveNamesNoRuleTakes() throws IOException {
        assertThat(RlsConfig.overridePolicyName("d", RlsUnit.SECOND)).isEqualTo("d.limit-second");
        assertThat(RlsConfig.overridePolicyName("my domain", RlsUnit.YEAR))
                .matches("my-domain-[0-9a-f]{8}\\.limit-year");
        RlsConfig c = read(write("o.yaml", """
                domain: d
                descriptors:
                  - key: limit-second
                    rate_limit: {unit: second, requests_per_unit: 5}
                  - key: limit
                    rate_limit: {unit: second, requests_per_unit: 5}
                """));
        // the full key d.limit-second is an override's policy: the rule's name is hashed instead
        assertThat(c.rules().get(0).policyName()).matches("d\\.limit-second-[0-9a-f]{8}");
        assertThat(c.rules().get(1).policyName()).isEqualTo("d.limit");
    }

    @Test
    void theReferencesExampleAndReloadConfigsLoadWithoutWarnings() {
        RlsConfig c = read(reference("example.yaml"), reference("reload.yaml"));
        assertThat(c.domains()).containsOnlyKeys("rl", "reload");
        assertThat(c.warnings()).isEmpty();
        RlsRule banned = match(c, "rl", "foo", "x", "bar", "banned").rule();
        assertThat(banned.blocked()).isTrue();
        assertThat(banned.name()).isEqualTo("banned_limit");
        assertThat(match(c, "rl", "service", "service_1").rule().quotaMode()).isTrue();
        assertThat(match(c, "reload", "block", "x").rule().blocked()).isTrue();
        assertThat(c.policies()).hasSize(c.rules().size() - 3); // less two block lists and one unlimited rule
    }
}
