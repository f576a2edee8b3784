package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddressString;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.ForwardingHeader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC §6 as a property: for generated forwarding headers, well-formed and hostile (unterminated quotes, quotes
 * that would swallow the next line, duplicate parameters, two {@code for=}, non-addresses, garbage, empty
 * elements and lines, many lines), the resolver's answer is exactly what the right-to-left walk over a reference
 * model of the generated elements gives: the client's key, absent for an {@code unknown} or obfuscated client, or
 * malformed (rejected). The model knows what each element is because it generated it; it never parses.
 */
class ForwardingWalkPropertyTest {
    /** Trusted: 10.0.0.0/8 and 2001:db8:ffff::/48. */
    private static final List<String> TRUSTED = List.of("10.0.0.0/8", "2001:db8:ffff::/48");
    private static final String TRUSTED_PEER = "10.0.0.1";
    private static final String UNTRUSTED_PEER = "192.0.2.1";

    /** What a generated element is. */
    enum Kind {
        /** An IP literal in some spelling. */
        ADDRESS,
        /** {@code unknown} or obfuscated. */
        HIDDEN,
        /** Malformed, but its end is clear: later elements of the line still parse. */
        BAD,
        /** A syntax error: it and everything after it on its line are one malformed element. */
        SWALLOW,
        /** An empty list element: ignored. */
        EMPTY,
        /** Random garbage, only ever generated as the last element of a line. */
        GARBAGE
    }

    /** A generated element: its kind, its text and, for an address, the address it spells. */
    record Elem(Kind kind, String text, String address) {
    }

    /** A generated request: which header, from which peer, with which lines. */
    record Scenario(boolean forwarded, boolean peerTrusted, List<List<Elem>> lines, List<String> ows) {
        List<String> rendered() {
            List<String> out = new ArrayList<>();
            int o = 0;
            for (List<Elem> line : lines) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < line.size(); i++) {
                    if (i > 0) {
                        b.append(ows.get(o++ % ows.size())).append(',');
                    }
                    b.append(ows.get(o++ % ows.size())).append(line.get(i).text());
                }
                out.add(b.toString());
            }
            return out;
        }

        @Override
        public String toString() {
            return (forwarded ? "Forwarded" : "X-Forwarded-For") + " from " + (peerTrusted ? "trusted" : "untrusted")
                    + " peer: " + rendered();
        }
    }

    @Property(tries = 3000)
    void theKeyIsExactlyWhatTheWalkOverTheModelFinds(@ForAll("scenarios") Scenario s) throws Exception {
        ClientIpResolver resolver = new ClientIpResolver(new ClientIpSettings(TRUSTED.stream()
                .map(ClientIpResolverTest::block).toList(), 64,
                s.forwarded() ? ForwardingHeader.FORWARDED : ForwardingHeader.X_FORWARDED_FOR));
        InetSocketAddress peer = new InetSocketAddress(InetAddress.getByName(s.peerTrusted() ? TRUSTED_PEER
                : UNTRUSTED_PEER), 40_000);
        KeyPart actual = resolver.clientKey(peer, s.rendered());
        KeyPart expected = model(s);
        Statistics.collect(s.forwarded(), expected.status());
        // every outcome, for both headers, is reached often enough to matter
        Statistics.coverage(coverage -> {
            for (boolean forwarded : new boolean[] {true, false}) {
                for (KeyPart.Status status : KeyPart.Status.values()) {
                    coverage.check(forwarded, status).percentage(p -> p >= 0.2);
                }
            }
        });
        assertThat(actual.status()).as(s.toString()).isEqualTo(expected.status());
        assertThat(actual.value()).as(s.toString()).isEqualTo(expected.value());
    }

    /** The reference walk over the generated elements. */
    private static KeyPart model(Scenario s) {
        if (!s.peerTrusted()) {
            return KeyPart.present(key(UNTRUSTED_PEER));
        }
        String leftmost = TRUSTED_PEER;
        for (int l = s.lines().size() - 1; l >= 0; l--) {
            List<Elem> elements = new ArrayList<>();
            for (Elem e : s.lines().get(l)) {
                if (e.kind() == Kind.EMPTY) {
                    continue;
                }
                elements.add(e);
                if (e.kind() == Kind.SWALLOW) {
                    break; // the rest of the line belongs to it
                }
            }
            for (int i = elements.size() - 1; i >= 0; i--) {
                Elem e = elements.get(i);
                switch (e.kind()) {
                    case ADDRESS:
                        if (!trusted(e.address())) {
                            return KeyPart.present(key(e.address()));
                        }
                        leftmost = e.address();
                        break;
                    case HIDDEN:
                        return KeyPart.absent("-");
                    default:
                        return KeyPart.malformed("-");
                }
            }
        }
        return KeyPart.present(key(leftmost));
    }

    private static boolean trusted(String address) {
        var a = ClientAddressKey.forTrust(new IPAddressString(address).getAddress());
        return TRUSTED.stream().anyMatch(t -> ClientIpResolverTest.block(t).contains(a));
    }

    private static String key(String address) {
        return ClientAddressKey.key(new IPAddressString(address).getAddress(), 64);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        return Arbitraries.of(true, false).flatMap(forwarded -> Combinators.combine(
                Arbitraries.frequency(tuple(9, true), tuple(1, false)),
                line(forwarded).list().ofMaxSize(8),
                Arbitraries.of("", "", " ", "\t", "  ").list().ofMinSize(1).ofMaxSize(6))
                .as((trusted, lines, ows) -> new Scenario(forwarded, trusted, lines, ows)));
    }

    private static <T> net.jqwik.api.Tuple.Tuple2<Integer, T> tuple(int weight, T value) {
        return net.jqwik.api.Tuple.of(weight, value);
    }

    private static Arbitrary<List<Elem>> line(boolean forwarded) {
        Arbitrary<Elem> element = forwarded ? forwardedElement() : xffElement();
        Arbitrary<Elem> garbage = garbage(forwarded);
        return Combinators.combine(element.list().ofMaxSize(5), Arbitraries.integers().between(0, 4))
                .flatAs((elements, g) -> g > 0 ? Arbitraries.just(elements)
                        : garbage.map(tail -> {
                            List<Elem> withTail = new ArrayList<>(elements);
                            withTail.add(tail);
                            return withTail;
                        }));
    }

    private static Arbitrary<String> ipv4() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(0, 255).map(n -> "10.0.0." + n),
                Arbitraries.integers().between(0, 255).map(n -> "198.18.0." + n),
                Arbitraries.integers().between(0, 255).map(n -> "203.0.113." + n));
    }

    private static Arbitrary<String> ipv6() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(1, 0xffff).map(n -> "2001:db8:ffff::" + Integer.toHexString(n)),
                Arbitraries.integers().between(1, 0xffff).map(n -> "2001:db8:" + Integer.toHexString(n) + "::1"),
                Arbitraries.integers().between(0, 255).map(n -> "::ffff:10.0.0." + n),
                Arbitraries.integers().between(0, 255).map(n -> "64:ff9b::198.51.100." + n));
    }

    private static Arbitrary<Elem> forwardedElement() {
        Arbitrary<Elem> v4 = Combinators.combine(ipv4(), Arbitraries.integers().between(0, 7),
                Arbitraries.integers().between(0, 65_535)).as((a, form, port) -> new Elem(Kind.ADDRESS,
                switch (form) {
                    case 0 -> "for=" + a;
                    case 1 -> "for=\"" + a + "\"";
                    case 2 -> "for=\"" + a + ":" + port + "\"";
                    case 3 -> "for=\"" + a + ":_p" + port + "\"";
                    case 4 -> "FoR=" + a;
                    case 5 -> "proto=http;for=" + a + ";by=_lb";
                    case 6 -> "for=" + a + ";host=\"x,y;z \\\"q\\\"\";;";
                    default -> "for=\"" + a.replace(".", "\\.") + "\"";
                }, a));
        Arbitrary<Elem> v6 = Combinators.combine(ipv6(), Arbitraries.integers().between(0, 2))
                .as((a, form) -> new Elem(Kind.ADDRESS, switch (form) {
                    case 0 -> "for=\"[" + a + "]\"";
                    case 1 -> "for=\"[" + a + "]:443\"";
                    default -> "by=\"[2001:db8::1]\";for=\"[" + a + "]\"";
                }, a));
        Arbitrary<Elem> hidden = Arbitraries.of("for=unknown", "for=_hid-den", "for=\"_o:_p\"", "for=\"unknown:80\"",
                "for=UNKNOWN;proto=https").map(t -> new Elem(Kind.HIDDEN, t, null));
        Arbitrary<Elem> bad = ipv4().flatMap(a -> Arbitraries.of("for=" + a + ";for=" + a,
                "for=" + a + ";proto=a;proto=b", "proto=http", "for=garbage", "for=\"1.2.3\"",
                "for=\"" + a + ":99999\"", "for=\"2001:db8::1\"", "for=\"\"", "for=\"[" + a + "]\"",
                "for=" + a + ";FOR=198.18.9.9", ";", "for=01.2.3.4")).map(t -> new Elem(Kind.BAD, t, null));
        Arbitrary<Elem> swallow = ipv4().flatMap(a -> Arbitraries.of("for=\"" + a, "for=" + a + " x",
                "for=[2001:db8::1]", "for=" + a + "\"b\"", "=" + a, "for", "for=" + a + " ;by=x", "for=\"" + a + "\\",
                "for=" + a + ":80", "for=" + a + "; proto=http")).map(t -> new Elem(Kind.SWALLOW, t, null));
        Arbitrary<Elem> empty = Arbitraries.just(new Elem(Kind.EMPTY, "", null));
        return Arbitraries.frequencyOf(tuple(6, v4), tuple(2, v6), tuple(1, hidden), tuple(1, bad),
                tuple(1, swallow), tuple(1, empty));
    }

    private static Arbitrary<Elem> xffElement() {
        Arbitrary<Elem> v4 = Combinators.combine(ipv4(), Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(0, 65_535)).as((a, form, port) -> new Elem(Kind.ADDRESS,
                form == 0 ? a : a + ":" + port, a));
        Arbitrary<Elem> v6 = Combinators.combine(ipv6(), Arbitraries.integers().between(0, 2))
                .as((a, form) -> new Elem(Kind.ADDRESS, switch (form) {
                    case 0 -> a;
                    case 1 -> "[" + a + "]";
                    default -> "[" + a + "]:443";
                }, a));
        Arbitrary<Elem> hidden = Arbitraries.of("unknown", "Unknown").map(t -> new Elem(Kind.HIDDEN, t, null));
        Arbitrary<Elem> bad = ipv4().flatMap(a -> Arbitraries.of("garbage", "1.2.3", "\"" + a + "\"",
                a + ":99999", "[2001:db8::1", "for=" + a, a + "/24", "01.2.3.4", a + " " + a, a + ":",
                "[" + a + "]", "_hidden")).map(t -> new Elem(Kind.BAD, t, null));
        Arbitrary<Elem> empty = Arbitraries.just(new Elem(Kind.EMPTY, "", null));
        return Arbitraries.frequencyOf(tuple(6, v4), tuple(2, v6), tuple(1, hidden), tuple(1, bad),
                tuple(1, empty));
    }

    /** Text without a comma, never blank, that can never spell a for= parameter or an address. */
    private static Arbitrary<Elem> garbage(boolean forwarded) {
        return Arbitraries.strings().withChars("\"\\;=[]_xyzq \t\u00e9\u0001").ofMinLength(1).ofMaxLength(12)
                .filter(t -> !t.isBlank() && !t.strip().isEmpty() && t.chars().anyMatch(c -> c != ' ' && c != '\t'))
                .map(t -> new Elem(Kind.GARBAGE, t, null));
    }
}
