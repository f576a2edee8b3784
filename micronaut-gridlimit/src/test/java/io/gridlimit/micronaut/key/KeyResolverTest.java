package io.gridlimit.micronaut.key;

import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.KeySource;
import io.gridlimit.micronaut.config.OnMissingKey;
import io.gridlimit.micronaut.config.RouteRule;
import io.micronaut.http.HttpAttributes;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpRequest;
import org.junit.jupiter.api.Test;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §6 key parts and their combination. */
class KeyResolverTest {
    private final KeyResolver resolver = new KeyResolver(new ClientIpResolver(new ClientIpSettings(List.of(), 64)));
    private final Policy policy = Policy.builder("p").fixedWindow(10, Duration.ofSeconds(1)).build();

    private RouteRule rule(String... sources) {
        return new RouteRule("test", "/api/**", Set.of(), policy, false,
                java.util.Arrays.stream(sources).map(KeySource::parse).toList(), 1, OnMissingKey.REJECT);
    }

    @Test
    void partsAreJoinedInDeclaredOrder() {
        MutableHttpRequest<?> request = HttpRequest.GET("/api/x").header("X-Api-Key", "k1");
        request.setAttribute(HttpAttributes.PRINCIPAL, (Principal) () -> "alice");
        KeyResolver.Resolved r = resolver.resolve(rule("route", "header:X-Api-Key", "principal", "global"), request);
        assertThat(r.key()).isEqualTo("route:/api/**|hdr:" + KeyResolver.sha256Hex("k1") + "|user:alice|global");
    }

    @Test
    void headerValuesAreHashedExactly() {
        // sha256("abc") from FIPS 180-2, appendix B.1
        assertThat(KeyResolver.sha256Hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void missingPartsAreNamedWithoutValues() {
        assertThat(resolver.resolve(rule("principal"), HttpRequest.GET("/api/x")).missing())
                .isEqualTo("an authenticated principal");
        assertThat(resolver.resolve(rule("global", "header:X-Api-Key"), HttpRequest.GET("/api/x")
                .header("X-Api-Key", "")).missing()).isEqualTo("the request header 'X-Api-Key'");
        MutableHttpRequest<?> blankUser = HttpRequest.GET("/api/x");
        blankUser.setAttribute(HttpAttributes.PRINCIPAL, (Principal) () -> "  ");
        assertThat(resolver.resolve(rule("principal"), blankUser).present()).isFalse();
    }

    @Test
    void aHeaderValueThatIsNotUtf8IsMalformedNotAbsent() {
        KeyResolver.Resolved r = resolver.resolve(rule("global", "header:X-Api-Key"), HttpRequest.GET("/api/x")
                .header("X-Api-Key", "sur\u00ed\u00a0\u0080")); // received bytes 73 75 72 ed a0 80: an encoded U+D800
        assertThat(r.present()).isFalse();
        assertThat(r.malformed()).isTrue();
        assertThat(r.missing()).isEqualTo("a well-formed request header 'X-Api-Key' (its value is not valid UTF-8)");
        assertThat(resolver.resolve(rule("header:X-Api-Key"), HttpRequest.GET("/api/x")).malformed()).isFalse();
        // the UTF-8 bytes of "café" as Netty hands them over (one ISO-8859-1 character per byte)
        assertThat(resolver.resolve(rule("header:X-Api-Key"), HttpRequest.GET("/api/x")
                .header("X-Api-Key", "caf\u00c3\u00a9")).key()).isEqualTo("hdr:" + KeyResolver.sha256Hex("café"));
    }

    @Test
    void keysLongerThan1024BytesAreRefused() {
        MutableHttpRequest<?> request = HttpRequest.GET("/api/x");
        request.setAttribute(HttpAttributes.PRINCIPAL, (Principal) () -> "u".repeat(1020));
        assertThat(resolver.resolve(rule("principal"), request).present()).isFalse();
        request.setAttribute(HttpAttributes.PRINCIPAL, (Principal) () -> "u".repeat(1019));
        assertThat(resolver.resolve(rule("principal"), request).key()).hasSize(1024);
    }
}
