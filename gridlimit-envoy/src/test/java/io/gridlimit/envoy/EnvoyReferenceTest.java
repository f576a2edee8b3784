package io.gridlimit.envoy;

import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.override;
import static io.gridlimit.envoy.Rls.headers;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The envoyproxy/ratelimit features GridLimit loads as the reference does (docs/SPEC.md §12), over gRPC to Envoy's
 * own generated stubs with exact answers: block lists, wildcards and {@code share_threshold}, and the rest of issue
 * 23's items. The configurations are in src/test/resources/reference, written after the reference's own test
 * material (test/config/*.yaml, examples/ratelimit/config). One embedded member on a manual clock; every test starts
 * at a fresh UTC midnight.
 */
class EnvoyReferenceTest {
    static Rls rls;
    static ManualTimeSource clock;

    static String reference(String name) {
        return Path.of("src/test/resources/reference", name).toAbsolutePath().toString();
    }

    @BeforeAll
    static void start() {
        rls = Rls.start(Rls.properties("envoy-reference", reference("blocklist.yaml"),
                reference("wildcard.yaml"), reference("share_threshold.yaml"), reference("resolutions.yaml"),
                reference("basic.yaml"), reference("quota.yaml"), reference("example.yaml"),
                reference("reload.yaml")));
        clock = rls.context.getBean(ManualTimeSource.class);
    }

    @AfterAll
    static void stop() {
        rls.close();
    }

    @BeforeEach
    void nextMidnight() {
        Rls.nextMidnight(clock);
    }


    private double decisions(String policy, String outcome) {
        var c = rls.context.getBean(MeterRegistry.class).find("gridlimit.decisions").tag("policy", policy)
                .tag("outcome", outcome).tag("source", "envoy").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aBlockListIsOverLimitWithoutTheGridAndResetsWithItsUnit() {
        clock.advance(Duration.ofMillis(250));
        RateLimitDescriptor blocked = d("remote_address", "50.0.0.5");
        RateLimitResponse r = rls.call("blocklist", blocked);
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
        assertThat(statuses(r)).containsExactly("OVER_LIMIT 0/0 per SECOND");
        // the reference's reset: what is left of the unit's window aligned to epoch 0 (here to the nanosecond)
        assertThat(r.getStatuses(0).getDurationUntilReset().getSeconds()).isZero();
        assertThat(r.getStatuses(0).getDurationUntilReset().getNanos()).isEqualTo(750_000_000);
        // no policy: no RateLimit fields, no Retry-After (it never passes), the problem names the rule
        assertThat(headers(r)).containsExactly(java.util.Map.entry("content-type", "application/problem+json"));
        assertThat(r.getRawBody().toStringUtf8()).isEqualTo("{\"type\":"
                + "\"https://iana.org/assignments/http-problem-types#quota-exceeded\",\"title\":\"Request cannot be "
                + "satisfied as assigned quota has been exceeded\",\"status\":429,\"detail\":\"Rule "
                + "'blocklist.remote_address_50.0.0.5' (requests_per_unit: 0) refuses every request.\","
                + "\"violated-policies\":[\"blocklist.remote_address_50.0.0.5\"]}");
        // whatever the cost: a peek and a large cost too
        assertThat(rls.sequence(1, "blocklist", d(0, "remote_address", "50.0.0.5"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/0 per SECOND]");
        assertThat(statuses(rls.call("blocklist", 7, blocked))).containsExactly("OVER_LIMIT 0/0 per SECOND");
        // other addresses take the 10 per second; with a blocked descriptor the request is OVER_LIMIT whole
        assertThat(rls.sequence(1, "blocklist", d("remote_address", "1.2.3.4"))).containsExactly(
                "OK [OK 9/10 per SECOND]");
        assertThat(rls.sequence(1, "blocklist", blocked, d("remote_address", "1.2.3.5"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/0 per SECOND, OK 9/10 per SECOND]");
        clock.advance(Duration.ofSeconds(3));
        assertThat(rls.sequence(1, "blocklist", blocked)).containsExactly("OVER_LIMIT [OVER_LIMIT 0/0 per SECOND]");
        // counted under the name its policy would have; the peek is not counted
        assertThat(decisions("blocklist.remote_address_50.0.0.5", "denied")).isEqualTo(4.0);
        // nothing was stored for it: its map was never created
        HazelcastInstance hz = rls.context.getBean(HazelcastInstance.class);
        assertThat(hz.getDistributedObjects()).extracting(DistributedObject::getName)
                .doesNotContain("gridlimit.blocklist.remote_address_50.0.0.5");
    }

    @Test
    void aBlockListInShadowModeIsAnsweredOkAndCountedShadowDenied() {
        clock.advance(Duration.ofMinutes(59));
        RateLimitResponse r = rls.call("blocklist", d("remote_address", "50.0.0.6"));
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(r)).containsExactly("OK 0/0 per HOUR");
        assertThat(r.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(60);
        assertThat(r.getResponseHeadersToAddList()).isEmpty();
        assertThat(decisions("blocklist.remote_address_50.0.0.6", "shadow_denied")).isEqualTo(1.0);
    }

    @Test
    void eachValueAWildcardMatchesHasItsOwnCounterUnlessShared() {
        // no share_threshold: foo1 and foo2 under foo* count on their own keys (20 per minute each)
        assertThat(rls.sequence(2, "wildcard", d("wild", "foo1"))).containsExactly("OK [OK 19/20 per MINUTE]",
                "OK [OK 18/20 per MINUTE]");
        assertThat(rls.sequence(1, "wildcard", d("wild", "foo2"))).containsExactly("OK [OK 19/20 per MINUTE]");
        assertThat(rls.sequence(1, "wildcard", d("wild", "bar"))).containsExactly("OK [OK 0]");
        assertThat(rls.sequence(1, "wildcard", d("nestedWild", "val1", "wild", "goo7")))
                .containsExactly("OK [OK 19/20 per MINUTE]");
        // share_threshold: every value files/* matches takes the one quota of 3 per minute
        assertThat(rls.sequence(1, "share_threshold", d("files", "files/a.pdf"))).containsExactly(
                "OK [OK 2/3 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("files", "files/b.csv"))).containsExactly(
                "OK [OK 1/3 per MINUTE]");
        assertThat(rls.sequence(2, "share_threshold", d("files", "files/c.txt"))).containsExactly(
                "OK [OK 0/3 per MINUTE]", "OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        clock.advance(Duration.ofMinutes(1));
        assertThat(rls.sequence(1, "share_threshold", d("files", "files/d"))).containsExactly("OK [OK 2/3 per MINUTE]");
    }

    @Test
    void sharedLevelsShareAndTheExactValueWinsOnItsOwnCounter() {
        // both levels shared: 2 per minute across every (top/*, nested/*) pair
        assertThat(rls.sequence(1, "share_threshold", d("files", "top/a", "files", "nested/x"))).containsExactly(
                "OK [OK 1/2 per MINUTE]");
        assertThat(rls.sequence(2, "share_threshold", d("files", "top/b", "files", "nested/y"))).containsExactly(
                "OK [OK 0/2 per MINUTE]", "OVER_LIMIT [OVER_LIMIT 0/2 per MINUTE]");
        // the parent shares, the child counts each value
        assertThat(rls.sequence(1, "share_threshold", d("path", "path/a", "file", "file/1", "type", "pdf")))
                .containsExactly("OK [OK 1/2 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("path", "path/b", "file", "file/1", "type", "pdf")))
                .containsExactly("OK [OK 0/2 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("path", "path/c", "file", "file/2", "type", "pdf")))
                .containsExactly("OK [OK 1/2 per MINUTE]");
        // test1 is exact (50, its own); test2 and test3 share test* (100)
        assertThat(rls.sequence(1, "share_threshold", d("file", "test1"))).containsExactly("OK [OK 49/50 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("file", "test2"))).containsExactly("OK [OK 99/100 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("file", "test3"))).containsExactly("OK [OK 98/100 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", d("file", "test1"))).containsExactly("OK [OK 48/50 per MINUTE]");
    }

    @Test
    void looseResolutionsAreAnsweredAsTheReferenceAnswersThem() {
        // unlimited beside a rate: unlimited
        assertThat(statuses(rls.call("resolutions", d("internal", "x")))).containsExactly("OK 4294967295");
        // value: ~ matches every value of the key, each on its own counter
        assertThat(rls.sequence(3, "resolutions", d("user", "u1"))).containsExactly("OK [OK 1/2 per MINUTE]",
                "OK [OK 0/2 per MINUTE]", "OVER_LIMIT [OVER_LIMIT 0/2 per MINUTE]");
        assertThat(rls.sequence(1, "resolutions", d("user", "u2"))).containsExactly("OK [OK 1/2 per MINUTE]");
        // replaces naming no rule replaces nothing
        assertThat(rls.sequence(1, "resolutions", d("route", "r"))).containsExactly("OK [OK 0/1 per MINUTE]");
        // a cycle: when both match, neither applies; each alone applies
        assertThat(rls.sequence(2, "resolutions", d("a", "1"), d("b", "1"))).containsExactly("OK [OK 0, OK 0]",
                "OK [OK 0, OK 0]");
        assertThat(rls.sequence(1, "resolutions", d("a", "1"))).containsExactly("OK [OK 0/1 per MINUTE]");
        // an unlimited rule stays unlimited when replaced
        assertThat(rls.sequence(1, "resolutions", d("c", "1"), d("d", "1"))).containsExactly(
                "OK [OK 4294967295, OK 0/1 per MINUTE]");
    }

    @Test
    void quotaModeDescriptorsMakeTheRequestOverLimitOnlyWhenAllOfThemAre() {
        assertThat(rls.sequence(2, "quota", d("q1", "a"))).containsExactly("OK [OK 0/1 per MINUTE]",
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE]");
        // q1 over, q2 not: OK, q1's status still OVER_LIMIT, q2's admission stands
        assertThat(rls.sequence(1, "quota", d("q1", "a"), d("q2", "b"))).containsExactly(
                "OK [OVER_LIMIT 0/1 per MINUTE, OK 0/1 per MINUTE]");
        assertThat(rls.sequence(1, "quota", d("q1", "a"), d("q2", "b"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE, OVER_LIMIT 0/1 per MINUTE]");
        // a descriptor not in quota mode does not count towards "all of them"
        assertThat(rls.sequence(1, "quota", d("q1", "a"), d("k", "x"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE, OK 4/5 per MINUTE]");
    }

    @Test
    void theReferencesBasicConfigIsAnsweredWithItsLimits() {
        assertThat(rls.sequence(1, "basic", d("key1", "value1", "subkey1", "something"), d("key2", "value3"),
                d("key6", "x"), d("key7", "v"))).containsExactly("OK [OK 4/5 per SECOND, OK 0, OK 4294967295, "
                + "OK 69/70 per MINUTE]");
        assertThat(rls.sequence(2, "basic", d("key4", "foo"))).containsExactly("OK [OK 0/1 per DAY]",
                "OVER_LIMIT [OVER_LIMIT 0/1 per DAY]");
        assertThat(rls.call("basic", d("key4", "foo")).getStatuses(0).getCurrentLimit().getName())
                .isEqualTo("key4_rate_limit");
    }

    @Test
    void aLimitOverrideReplacesTheRuleAndOverridesOfOneUnitShareTheDescriptorsCounter() {
        // TestConfigLimitOverride, answered: the override replaces the rule the descriptor matches (5 per second)
        RateLimitDescriptor something = d("key1", "value1", "subkey1", "something");
        RateLimitResponse r = rls.call("basic", override(something, 10, RateLimitUnit.DAY));
        assertThat(statuses(r)).containsExactly("OK 9/10 per DAY");
        assertThat(r.getStatuses(0).getCurrentLimit().getName()).isEmpty();
        assertThat(headers(r)).containsEntry("RateLimit-Policy", "\"basic.limit-day\";q=10;w=86400");
        // another unit: another counter
        assertThat(statuses(rls.call("basic", override(something, 42, RateLimitUnit.HOUR))))
                .containsExactly("OK 41/42 per HOUR");
        // the same unit, another limit: the same counter (2 used of the day so far, then 3)
        assertThat(statuses(rls.call("basic", override(something, 10, RateLimitUnit.DAY))))
                .containsExactly("OK 8/10 per DAY");
        assertThat(statuses(rls.call("basic", override(something, 20, RateLimitUnit.DAY))))
                .containsExactly("OK 17/20 per DAY");
        // another value: its own counter; the configured rule's counter was never touched
        assertThat(statuses(rls.call("basic", override(d("key1", "value1", "subkey1", "something_else"), 42,
                RateLimitUnit.HOUR)))).containsExactly("OK 41/42 per HOUR");
        assertThat(statuses(rls.call("basic", something))).containsExactly("OK 4/5 per SECOND");
        // it applies even where no rule, or an unlimited one, would
        assertThat(rls.sequence(2, "basic", override(d("key6", "x"), 1, RateLimitUnit.MINUTE))).containsExactly(
                "OK [OK 0/1 per MINUTE]", "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE]");
        // WEEK (7) is no RateLimitUnit of this proto yet, but a newer Envoy sends it: read by its number
        RateLimitDescriptor week = d("nothing", "x").toBuilder().setLimit(RateLimitDescriptor.RateLimitOverride
                .newBuilder().setRequestsPerUnit(3).setUnitValue(7)).build();
        assertThat(rls.sequence(1, "basic", week)).containsExactly("OK [OK 2/3 per WEEK]");
        // 0 is a block list; in an unknown domain nothing applies
        assertThat(rls.sequence(1, "basic", override(d("key2", "x"), 0, RateLimitUnit.SECOND))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/0 per SECOND]");
        assertThat(rls.sequence(1, "nobody", override(d("key2", "x"), 1, RateLimitUnit.SECOND))).containsExactly(
                "OK [OK 0]");
        assertThat(decisions("basic.limit-day", "allowed")).isEqualTo(3.0);
    }

    @Test
    void anOverrideOfTheRulesUnitCountsOnTheRulesCounter() {
        // the reference's cache key is domain, entries and window start: key3's rule (1 per hour) and an override of
        // hours on the same entries are one counter, so the override never lifts a rule the hour has used up
        RateLimitDescriptor lift = d("key3", "lift");
        double allowedBefore = decisions("basic.limit-hour", "allowed");
        assertThat(rls.sequence(2, "basic", lift)).containsExactly("OK [OK 0/1 per HOUR]",
                "OVER_LIMIT [OVER_LIMIT 0/1 per HOUR]");
        // gridlimit counting: the denied hit consumed nothing, so 1 of the override's 3 is used
        assertThat(rls.sequence(3, "basic", override(lift, 3, RateLimitUnit.HOUR))).containsExactly(
                "OK [OK 1/3 per HOUR]", "OK [OK 0/3 per HOUR]", "OVER_LIMIT [OVER_LIMIT 0/3 per HOUR]");
        assertThat(rls.sequence(1, "basic", lift)).containsExactly("OVER_LIMIT [OVER_LIMIT 0/1 per HOUR]");
        // another unit: the override's own counter, as there (another window start)
        assertThat(rls.sequence(1, "basic", override(lift, 3, RateLimitUnit.MINUTE))).containsExactly(
                "OK [OK 2/3 per MINUTE]");
        // the override is still metered under its own name
        assertThat(decisions("basic.limit-hour", "allowed") - allowedBefore).isEqualTo(2.0);
        // a share_threshold rule counts on its pattern, the override on the raw value: two counters, as there
        assertThat(rls.sequence(3, "share_threshold", d("files", "files/lift"))).containsExactly(
                "OK [OK 2/3 per MINUTE]", "OK [OK 1/3 per MINUTE]", "OK [OK 0/3 per MINUTE]");
        assertThat(rls.sequence(1, "share_threshold", override(d("files", "files/lift"), 3, RateLimitUnit.MINUTE)))
                .containsExactly("OK [OK 2/3 per MINUTE]");
    }

    @Test
    void theReferencesExampleConfigIsAnsweredAsThere() {
        // the block list banned_limit...
        assertThat(rls.sequence(1, "rl", d("foo", "x", "bar", "banned"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/0 per MINUTE]");
        // ...is replaced where the override rule matches the same request
        assertThat(rls.sequence(1, "rl", d("foo", "x", "bar", "banned"), d("source_cluster", "proxy",
                "destination_cluster", "override"))).containsExactly("OK [OK 0, OK 1/2 per MINUTE]");
        // category=account replaces bkthomps (and fake_name, which no descriptor here matches)
        assertThat(rls.sequence(1, "rl", d("category", "account"), d("foo", "x", "bar", "bkthomps"))).containsExactly(
                "OK [OK 3/4 per MINUTE, OK 0]");
        assertThat(rls.sequence(2, "rl", d("foo", "x", "bar", "bkthomps"))).containsExactly("OK [OK 0/1 per MINUTE]",
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE]");
        // foo's own rule, bar's key alone, unlimited bay, shadowed baz, detailed_metric unspec, quota-mode service
        assertThat(rls.sequence(1, "rl", d("foo", "x"), d("foo", "x", "bar", "other"), d("foo", "x", "bay", "y"),
                d("unspec", "v"), d("service", "service_1"))).containsExactly("OK [OK 1/2 per MINUTE, "
                + "OK 2/3 per MINUTE, OK 4294967295, OK 1/2 per MINUTE, OK 0/1 per MINUTE]");
        assertThat(rls.sequence(4, "rl", d("foo", "x", "baz", "shady"))).containsExactly("OK [OK 2/3 per MINUTE]",
                "OK [OK 1/3 per MINUTE]", "OK [OK 0/3 per MINUTE]", "OK [OK 0/3 per MINUTE]");
        // the quota-mode descriptor alone is all of the request's quota-mode descriptors: OVER_LIMIT
        assertThat(rls.sequence(1, "rl", d("service", "service_1"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE]");
    }

    @Test
    void theReferencesReloadConfigBlocksAndLimits() {
        assertThat(rls.sequence(1, "reload", d("key1", "a"), d("one_per_minute", "b"))).containsExactly(
                "OK [OK 49/50 per SECOND, OK 0/1 per MINUTE]");
        assertThat(rls.sequence(1, "reload", d("block", "c"))).containsExactly("OVER_LIMIT [OVER_LIMIT 0/0 per SECOND]");
        assertThat(rls.sequence(1, "reload", d("one_per_minute", "b"))).containsExactly(
                "OVER_LIMIT [OVER_LIMIT 0/1 per MINUTE]");
    }
}
