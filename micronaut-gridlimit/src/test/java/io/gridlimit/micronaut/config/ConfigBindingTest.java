package io.gridlimit.micronaut.config;

import inet.ipaddr.IPAddressString;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A valid configuration (application-gl-config.yml) read back through the checked beans. */
class ConfigBindingTest {
    @Test
    void everyValueIsBoundCheckedAndKeptInDeclaredOrder() {
        try (ApplicationContext ctx = ApplicationContext.run("gl-config")) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.headers()).isEqualTo(HeaderMode.IETF);
            assertThat(c.failureMode()).isEqualTo(FailureMode.CLOSED);
            assertThat(c.gridTimeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(c.local()).as("gridlimit.local.* unset: defaults")
                    .isEqualTo(new LocalFallbackSettings(100_000, 3));
            assertThat(c.exempt()).containsExactly("/health/**", "/metrics/*");
            assertThat(c.isExempt("/health/readiness")).isTrue();
            assertThat(c.isExempt("/metrics/x")).isTrue();
            assertThat(c.isExempt("/metrics/x/y")).isFalse();

            assertThat(c.clientIp().ipv6Prefix()).isEqualTo(56);
            assertThat(c.clientIp().isTrusted(new IPAddressString("10.200.3.4").getAddress())).isTrue();
            assertThat(c.clientIp().isTrusted(new IPAddressString("2001:db8:ffff::1").getAddress())).isTrue();
            assertThat(c.clientIp().isTrusted(new IPAddressString("192.0.2.7").getAddress())).isTrue();
            assertThat(c.clientIp().isTrusted(new IPAddressString("192.0.2.8").getAddress())).isFalse();
            assertThat(c.clientIp().isTrusted(new IPAddressString("198.51.100.99").getAddress())).isTrue();
            assertThat(c.clientIp().isTrusted(new IPAddressString("11.0.0.1").getAddress())).isFalse();

            assertThat(c.hazelcast().mode()).isEqualTo(HazelcastMode.CLIENT);
            assertThat(c.hazelcast().clusterName()).isEqualTo("shop");
            assertThat(c.hazelcast().port()).isEqualTo(5801);
            assertThat(c.hazelcast().members()).containsExactly("10.1.0.1", "10.1.0.2:5900");

            assertThat(c.policies().keySet()).containsSubsequence("zzz-first", "tiered", "aaa-last");
            Policy gcra = c.policies().get("zzz-first");
            assertThat(gcra.bands()).containsExactly(Band.gcra("zzz-first", 10, 2, Duration.ofSeconds(1)));
            Policy tiered = c.policies().get("tiered");
            assertThat(tiered.isComposite()).isTrue();
            assertThat(tiered.bands()).extracting(Band::name).containsExactly("zeta", "alpha", "mid");
            assertThat(tiered.bands()).extracting(Band::algorithm).containsExactly(Algorithm.TOKEN_BUCKET,
                    Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER);
            assertThat(tiered.bands().get(2).windowNanos()).isEqualTo(Duration.ofMinutes(1).toNanos());
            assertThat(c.isShadow("aaa-last")).isTrue();
            assertThat(c.isShadow("tiered")).isFalse();

            List<RouteRule> routes = c.routes();
            assertThat(routes).hasSize(2);
            RouteRule api = routes.get(0);
            assertThat(api.origin()).isEqualTo("gridlimit.routes[0]");
            assertThat(api.pattern()).isEqualTo("/api/**");
            assertThat(api.methods()).isEqualTo(Set.of("GET", "POST"));
            assertThat(api.policy()).isSameAs(tiered);
            assertThat(api.keys()).containsExactly(new KeySource(KeySource.Kind.ROUTE, null),
                    new KeySource(KeySource.Kind.HEADER, "X-Api-Key"), new KeySource(KeySource.Kind.CLIENT_IP, null));
            assertThat(api.cost()).isEqualTo(3);
            assertThat(api.onMissingKey()).isEqualTo(OnMissingKey.SKIP);
            assertThat(api.matches("GET", "/api/orders/1")).isTrue();
            assertThat(api.matches("HEAD", "/api/orders/1")).isTrue();
            assertThat(api.matches("DELETE", "/api/orders/1")).isFalse();

            RouteRule other = routes.get(1);
            assertThat(other.methods()).isEmpty();
            assertThat(other.keys()).containsExactly(new KeySource(KeySource.Kind.CLIENT_IP, null));
            assertThat(other.cost()).isEqualTo(1);
            assertThat(other.onMissingKey()).isEqualTo(OnMissingKey.REJECT);
            assertThat(other.shadow()).isTrue();
            assertThat(other.matches("DELETE", "/other")).isTrue();

            PolicyRegistry registry = ctx.getBean(PolicyRegistry.class);
            assertThat(registry.find("tiered")).containsSame(tiered);
            assertThat(registry.find("nope")).isEmpty();
            assertThat(registry.all()).containsSubsequence(gcra, tiered);
            assertThat(registry.isShadow("aaa-last")).isTrue();
            assertThat(registry.isShadow("nope")).isFalse();
        }
    }
}
