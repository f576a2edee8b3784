package io.gridlimit.micronaut.config;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every bad configuration below stops the boot with one message naming the property and the value as written.
 * Each case is a YAML file's text, written to a file and read by Micronaut's own YAML loader into a property source
 * (so keys are flattened and lists kept exactly as from {@code application.yml}, and the check reads the file's
 * scalars as written); the configuration bean fails before any grid
 * member starts, so no case opens a port. {@link #CASES} counts them.
 */
class BadConfigurationTest {
    /** A valid policy the route cases refer to. */
    private static final String DEMO = "gridlimit:\n  policies:\n    demo: {algorithm: fixed-window, limit: 5, window: 10s}\n";
    static final int CASES = 130;

    static Stream<Arguments> bad() {
        return Stream.of(
                // misspelt names: the nearest known name is offered
                bad("gridlimit.rotes", DEMO + "  rotes: [{pattern: /a, policy: demo}]",
                        "gridlimit.rotes: unknown property; did you mean gridlimit.routes?"),
                bad("rule keys: for key:", DEMO + "  routes: [{pattern: /a, policy: demo, keys: [global]}]",
                        "gridlimit.routes[0].keys: unknown property; did you mean gridlimit.routes[0].key?"),
                bad("failure-mod", "gridlimit: {failure-mod: closed}",
                        "gridlimit.failure-mod: unknown property; did you mean gridlimit.failure-mode?"),
                bad("grid-timout", "gridlimit: {grid-timout: 5s}",
                        "gridlimit.grid-timout: unknown property; did you mean gridlimit.grid-timeout?"),
                bad("polices", "gridlimit: {polices: {demo: {algorithm: fixed-window, limit: 5, window: 10s}}}",
                        "gridlimit.polices.demo.algorithm: unknown property; did you mean "
                                + "gridlimit.policies.demo.algorithm?"),
                bad("capcity", "gridlimit: {policies: {b: {algorithm: token-bucket, capcity: 5, refill-tokens: 1, "
                        + "refill-period: 1s}}}", "gridlimit.policies.b.capcity: unknown property; did you mean "
                        + "gridlimit.policies.b.capacity?"),
                bad("shadwo", "gridlimit: {policies: {demo: {algorithm: fixed-window, limit: 5, window: 10s, "
                        + "shadwo: true}}}", "gridlimit.policies.demo.shadwo: unknown property; did you mean "
                        + "gridlimit.policies.demo.shadow?"),
                bad("client-ip.trusted-proxy", "gridlimit: {client-ip: {trusted-proxy: [10.0.0.1]}}",
                        "gridlimit.client-ip.trusted-proxy: unknown property; did you mean "
                                + "gridlimit.client-ip.trusted-proxies?"),
                bad("on_missing_key", DEMO + "  routes: [{pattern: /a, policy: demo, on_missing_key: skip}]",
                        "gridlimit.routes[0].on_missing_key: unknown property; did you mean "
                                + "gridlimit.routes[0].on-missing-key?"),
                bad("onMissingKey in a list element (compared exactly)",
                        DEMO + "  routes: [{pattern: /a, policy: demo, onMissingKey: skip}]",
                        "gridlimit.routes[0].onMissingKey: unknown property"),
                bad("top-level gridlmit", "gridlmit: {routes: [{pattern: /a, policy: demo}]}",
                        "gridlmit.routes: unknown property; did you mean gridlimit.routes?"),
                bad("top-level grid-limit", "grid-limit: {failure-mode: closed}",
                        "grid-limit.failure-mode: unknown property; did you mean gridlimit.failure-mode?"),
                bad("unknown hazelcast setting", "gridlimit: {hazelcast: {prot: 5702}}",
                        "gridlimit.hazelcast.prot: unknown property; did you mean gridlimit.hazelcast.port?"),
                bad("unknown top setting", "gridlimit: {header: ietf}",
                        "gridlimit.header: unknown property; did you mean gridlimit.headers?"),
                // shapes
                bad("routes as a map", DEMO + "  routes: {orders: {pattern: /a, policy: demo}}",
                        "gridlimit.routes.orders.pattern: gridlimit.routes is written as a map"),
                bad("a route that is not a map", DEMO + "  routes: [/a]",
                        "gridlimit.routes[0]: '/a' is not a map of settings"),
                bad("limit: {a: 1}", "gridlimit: {policies: {demo: {algorithm: fixed-window, limit: {a: 1}, "
                        + "window: 10s}}}", "gridlimit.policies.demo.limit: '{a=1}' is not a whole number"),
                bad("bands as a list", "gridlimit: {policies: {t: {bands: [{algorithm: fixed-window, limit: 5, "
                        + "window: 1s}]}}}", "gridlimit.policies.t.bands: '[{algorithm=fixed-window"),
                bad("empty band list", "gridlimit: {policies: {t: {bands: []}}}",
                        "gridlimit.policies.t.bands: '[]' is not a map of settings, or is empty"),
                // names Micronaut would change, or that differ only in case
                bad("OrdersRead", "gridlimit: {policies: {OrdersRead: {algorithm: fixed-window, limit: 5, "
                        + "window: 10s}}}", "gridlimit.policies.OrdersRead: the name 'OrdersRead' would be read by "
                        + "Micronaut as 'orders-read'"),
                bad("api.v1", "gridlimit: {policies: {api.v1: {algorithm: fixed-window, limit: 5, window: 10s}}}",
                        "the name 'api.v1' contains '.'"),
                bad("Api and api", "gridlimit: {policies: {api: {algorithm: fixed-window, limit: 5, window: 10s}, "
                        + "Api: {algorithm: fixed-window, limit: 9, window: 10s}}}",
                        "gridlimit.policies.Api: the names 'api' and 'Api' differ only in case"),
                bad("Api alone", "gridlimit: {policies: {Api: {algorithm: fixed-window, limit: 5, window: 10s}}}",
                        "gridlimit.policies.Api: the name 'Api' would be read by Micronaut as 'api'"),
                bad("orders_read", "gridlimit: {policies: {orders_read: {algorithm: fixed-window, limit: 5, "
                        + "window: 10s}}}", "gridlimit.policies.orders_read: the name 'orders_read'"),
                bad("band name Burst", "gridlimit: {policies: {t: {bands: {Burst: {algorithm: fixed-window, "
                        + "limit: 5, window: 1s}}}}}", "gridlimit.policies.t.bands.Burst: the name 'Burst'"),
                // route patterns that can never match
                bad("/demo/{name}", DEMO + "  routes: [{pattern: '/demo/{name}', policy: demo}]",
                        "gridlimit.routes[0].pattern: '/demo/{name}' is URI template syntax"),
                bad("/demo/hello/", DEMO + "  routes: [{pattern: /demo/hello/, policy: demo}]",
                        "gridlimit.routes[0].pattern: '/demo/hello/' ends with /"),
                bad("empty pattern", DEMO + "  routes: [{pattern: '', policy: demo}]",
                        "gridlimit.routes[0].pattern: '' is empty"),
                bad("pattern without /", DEMO + "  routes: [{pattern: 'a/**', policy: demo}]",
                        "gridlimit.routes[0].pattern: 'a/**' does not start with /"),
                bad("pattern with //", DEMO + "  routes: [{pattern: '/a//b', policy: demo}]",
                        "gridlimit.routes[0].pattern: '/a//b' contains //"),
                bad("missing pattern", DEMO + "  routes: [{pattern: /a, policy: demo}, {policy: demo}]",
                        "gridlimit.routes[1].pattern: missing"),
                // rules
                bad("undefined policy", DEMO + "  routes: [{pattern: /a, policy: nope}]",
                        "gridlimit.routes[0].policy: 'nope' names no policy under gridlimit.policies (known: demo)"),
                bad("missing policy", DEMO + "  routes: [{pattern: /a}]", "gridlimit.routes[0].policy: missing"),
                bad("zero cost", DEMO + "  routes: [{pattern: /a, policy: demo, cost: 0}]",
                        "gridlimit.routes[0].cost: '0' is refused"),
                bad("cost above the quota", DEMO + "  routes: [{pattern: /a, policy: demo, cost: 6}]",
                        "gridlimit.routes[0].cost: '6' exceeds the quota 5"),
                bad("non-numeric cost", DEMO + "  routes: [{pattern: /a, policy: demo, cost: lots}]",
                        "gridlimit.routes[0].cost: 'lots' is not a whole number"),
                bad("bad on-missing-key", DEMO + "  routes: [{pattern: /a, policy: demo, on-missing-key: ignore}]",
                        "gridlimit.routes[0].on-missing-key: 'ignore' is not one of reject, skip"),
                bad("bad method", DEMO + "  routes: [{pattern: /a, policy: demo, methods: [GET, FETCH]}]",
                        "gridlimit.routes[0].methods[1]: 'FETCH' is not one of"),
                bad("unknown key source", DEMO + "  routes: [{pattern: /a, policy: demo, key: [cookie]}]",
                        "gridlimit.routes[0].key[0]: unknown key source 'cookie'"),
                bad("header key without a name", DEMO + "  routes: [{pattern: /a, policy: demo, key: ['header:']}]",
                        "gridlimit.routes[0].key[0]: 'header:' names no header"),
                // policies and bands: grid-core's ranges, reported with the path and the value as written
                bad("unknown algorithm", "gridlimit: {policies: {x: {algorithm: token-buckets, limit: 5}}}",
                        "gridlimit.policies.x.algorithm: unknown algorithm 'token-buckets'"),
                bad("no algorithm", "gridlimit: {policies: {x: {limit: 5, window: 1s}}}",
                        "gridlimit.policies.x.algorithm: missing"),
                bad("zero limit", window("0", "10s"), "gridlimit.policies.x.limit: '0' is refused"),
                bad("negative capacity", bucket("-5", "1", "1s"), "gridlimit.policies.x.capacity: '-5' is refused"),
                bad("zero refill tokens", bucket("10", "0", "1s"), "gridlimit.policies.x.refill-tokens: '0'"),
                bad("log limit above 100000", "gridlimit: {policies: {x: {algorithm: sliding-window-log, "
                        + "limit: 100001, window: 10s}}}", "gridlimit.policies.x.limit: '100001' is refused"),
                bad("capacity above 10^15", bucket("1000000000000001", "1", "1s"),
                        "gridlimit.policies.x.capacity: '1000000000000001' is refused"),
                bad("window above 365 days", window("5", "366d"), "gridlimit.policies.x.window: '366d' is refused"),
                bad("window below 1 ms", window("5", "999us"), "gridlimit.policies.x.window: '999us' is refused"),
                bad("non-numeric limit", window("abc", "10s"), "gridlimit.policies.x.limit: 'abc' is not a whole"),
                bad("fractional limit", window("2.5", "10s"), "gridlimit.policies.x.limit: '2.5' is not a whole"),
                bad("malformed duration", bucket("10", "1", "10x"),
                        "gridlimit.policies.x.refill-period: '10x' is not a duration"),
                bad("bare number duration", window("5", "10"), "gridlimit.policies.x.window: '10' is not a duration"),
                bad("missing parameter", "gridlimit: {policies: {x: {algorithm: gcra, capacity: 5, "
                        + "refill-period: 1s}}}", "gridlimit.policies.x.refill-tokens: missing"),
                bad("parameter of another algorithm", "gridlimit: {policies: {x: {algorithm: fixed-window, "
                        + "limit: 5, window: 1s, capacity: 9}}}", "gridlimit.policies.x.capacity: '9' does not apply"),
                bad("algorithm beside bands", "gridlimit: {policies: {t: {algorithm: gcra, bands: {b: {algorithm: "
                        + "fixed-window, limit: 5, window: 1s}}}}}", "gridlimit.policies.t.algorithm: 'gcra' is set"),
                bad("bad band value", "gridlimit: {policies: {t: {bands: {burst: {algorithm: gcra, capacity: 0, "
                        + "refill-tokens: 1, refill-period: 1s}}}}}", "gridlimit.policies.t.bands.burst.capacity: '0'"),
                // calendar bands (docs/SPEC.md §14)
                bad("unknown zone", calendar("period: month, zone: Europe/Berln"),
                        "gridlimit.policies.x.zone: 'Europe/Berln' is refused: zone must be an IANA time-zone id such "
                                + "as Europe/Berlin, or UTC, got 'Europe/Berln'"),
                bad("fixed-offset zone", calendar("period: day, zone: '+02:00'"),
                        "gridlimit.policies.x.zone: '+02:00' is refused: zone must be an IANA time-zone id such as "
                                + "Europe/Berlin, or UTC, got '+02:00' (a fixed offset ignores the zone's daylight "
                                + "saving time: name the place, e.g. Europe/Berlin, or Etc/GMT-2 for a fixed UTC+2)"),
                bad("zone in the wrong case", calendar("period: day, zone: europe/berlin"),
                        "gridlimit.policies.x.zone: 'europe/berlin' is refused: zone must be an IANA time-zone id "
                                + "such as Europe/Berlin, or UTC, got 'europe/berlin' (did you mean 'Europe/Berlin'?)"),
                bad("unknown period", calendar("period: fortnight"), "gridlimit.policies.x.period: 'fortnight' is "
                        + "refused: period must be one of hour, day, week, month, quarter, year, got 'fortnight'"),
                bad("calendar without period", "gridlimit: {policies: {x: {algorithm: calendar, limit: 5}}}",
                        "gridlimit.policies.x.period: missing: calendar takes limit, period (and optionally zone, "
                                + "week-start, anchor)"),
                bad("calendar without limit", "gridlimit: {policies: {x: {algorithm: calendar, period: month}}}",
                        "gridlimit.policies.x.limit: missing: calendar takes limit, period"),
                bad("zero calendar limit", "gridlimit: {policies: {x: {algorithm: calendar, limit: 0, period: day}}}",
                        "gridlimit.policies.x.limit: '0' is refused: limit must be in [1, 1000000000000000], got 0"),
                bad("unknown week start", calendar("period: week, week-start: mon"),
                        "gridlimit.policies.x.week-start: 'mon' is refused: week-start must be one of monday, "
                                + "tuesday, wednesday, thursday, friday, saturday, sunday, got 'mon'"),
                bad("week start of a month", calendar("period: month, week-start: sunday"),
                        "gridlimit.policies.x.week-start: 'sunday' applies to period week only, not month"),
                bad("anchor 0", calendar("period: month, anchor: 0"),
                        "gridlimit.policies.x.anchor: '0' is refused: anchor must be in [1, 31], got 0"),
                bad("anchor 32", calendar("period: month, anchor: 32"),
                        "gridlimit.policies.x.anchor: '32' is refused: anchor must be in [1, 31], got 32"),
                bad("anchor of a day", calendar("period: day, anchor: 31"),
                        "gridlimit.policies.x.anchor: '31' applies to period month only, not day"),
                bad("fractional anchor", calendar("period: month, anchor: 1.5"),
                        "gridlimit.policies.x.anchor: '1.5' is not a whole number"),
                bad("window of a calendar", calendar("period: month, window: 30d"),
                        "gridlimit.policies.x.window: '30d' does not apply to calendar, which takes limit, period "
                                + "(and optionally zone, week-start, anchor)"),
                bad("zone of a fixed window", "gridlimit: {policies: {x: {algorithm: fixed-window, limit: 5, "
                        + "window: 1d, zone: Europe/Berlin}}}", "gridlimit.policies.x.zone: 'Europe/Berlin' does not "
                        + "apply to fixed-window, which takes limit, window"),
                bad("bad zone of a calendar band", "gridlimit: {policies: {t: {bands: {per-second: {algorithm: "
                        + "token-bucket, capacity: 10, refill-tokens: 10, refill-period: 1s}, per-month: {algorithm: "
                        + "calendar, limit: 10000, period: month, zone: Berlin}}}}}",
                        "gridlimit.policies.t.bands.per-month.zone: 'Berlin' is refused: zone must be an IANA"),
                // reservations (docs/SPEC.md §10): the maximum debt of a band
                bad("negative max-debt", "gridlimit: {policies: {x: {algorithm: fixed-window, limit: 5, window: 1s, "
                        + "max-debt: -1}}}", "gridlimit.policies.x.max-debt: '-1' is refused: maxDebt must be in "
                        + "[0, 1000000000000000], got -1"),
                bad("max-debt of a log above 100 000", "gridlimit: {policies: {x: {algorithm: sliding-window-log, "
                        + "limit: 5, window: 1s, max-debt: 100001}}}", "gridlimit.policies.x.max-debt: '100001' is "
                        + "refused: maxDebt must be in [0, 100000], got 100001"),
                bad("bad band max-debt", "gridlimit: {policies: {t: {bands: {burst: {algorithm: gcra, capacity: 5, "
                        + "refill-tokens: 1, refill-period: 1s, max-debt: 1000000000000001}}}}}",
                        "gridlimit.policies.t.bands.burst.max-debt: '1000000000000001' is refused"),
                // quantities quoted as written, against SPEC §1's ranges (not Java's long range, not YAML's 1000.0)
                bad("capacity beyond a long", bucket("99999999999999999999", "1", "1s"),
                        "gridlimit.policies.x.capacity: '99999999999999999999' is out of range [1, 1000000000000000]"),
                bad("max-debt beyond a long", "gridlimit: {policies: {x: {algorithm: fixed-window, limit: 5, "
                        + "window: 1s, max-debt: -99999999999999999999}}}", "gridlimit.policies.x.max-debt: "
                        + "'-99999999999999999999' is out of range [0, 1000000000000000]"),
                bad("capacity 1e3", "gridlimit: {policies: {x: {algorithm: token-bucket, capacity: 1e3, "
                        + "refill-tokens: 1, refill-period: 1s}}}",
                        "gridlimit.policies.x.capacity: '1e3' is not a whole number"),
                bad("cost 1.5e1", DEMO + "  routes: [{pattern: /a, policy: demo, cost: 1.5e1}]",
                        "gridlimit.routes[0].cost: '1.5e1' is not a whole number"),
                bad("fractional max-debt", "gridlimit: {policies: {x: {algorithm: fixed-window, limit: 5, window: 1s,"
                        + " max-debt: 1.5}}}", "gridlimit.policies.x.max-debt: '1.5' is not a whole"),
                bad("bad shadow flag", "gridlimit: {policies: {x: {algorithm: fixed-window, limit: 5, window: 1s, "
                        + "shadow: maybe}}}", "gridlimit.policies.x.shadow: 'maybe' is not true or false"),
                // exempt and trusted proxies that switch the limiter off
                bad("exempt /**", "gridlimit: {exempt: ['/**']}", "gridlimit.exempt[0]: '/**' exempts every path"),
                bad("exempt **", "gridlimit: {exempt: ['/health', '**']}", "gridlimit.exempt[1]: '**' does not start with /"),
                bad("exempt /**/*", "gridlimit: {exempt: ['/**/*']}", "gridlimit.exempt[0]: '/**/*' exempts every"),
                bad("exempt without /", "gridlimit: {exempt: [health]}", "gridlimit.exempt[0]: 'health' does not"),
                bad("exempt template", "gridlimit: {exempt: ['/a/{b}']}", "gridlimit.exempt[0]: '/a/{b}' is URI"),
                bad("exempt-all-acknowledged: maybe", "gridlimit: {exempt-all-acknowledged: maybe}",
                        "gridlimit.exempt-all-acknowledged: 'maybe' is not true or false"),
                bad("trusted 0.0.0.0/0", "gridlimit: {client-ip: {trusted-proxies: [0.0.0.0/0, '::/0']}}",
                        "gridlimit.client-ip.trusted-proxies[0]: '0.0.0.0/0' trusts every address"),
                bad("trusted ::/0", "gridlimit: {client-ip: {trusted-proxies: [10.0.0.0/8, '::/0']}}",
                        "gridlimit.client-ip.trusted-proxies[1]: '::/0' trusts every address"),
                bad("interfaces wildcard", "gridlimit: {hazelcast: {interfaces: [0.0.0.0]}}",
                        "gridlimit.hazelcast.interfaces[0]: '0.0.0.0' is the wildcard address"),
                bad("trusted halves of IPv4", "gridlimit: {client-ip: {trusted-proxies: [0.0.0.0/1, 128.0.0.0/1]}}",
                        "gridlimit.client-ip.trusted-proxies: [0.0.0.0/1, 128.0.0.0/1] together trust every IPv4"),
                bad("trusted quarters of IPv4", "gridlimit: {client-ip: {trusted-proxies: [0.0.0.0/2, 64.0.0.0/2, "
                                + "10.0.0.0/8, 128.0.0.0/1]}}",
                        "together trust every IPv4 address"),
                bad("trusted halves of IPv6", "gridlimit: {client-ip: {trusted-proxies: ['::/1', '8000::/1']}}",
                        "gridlimit.client-ip.trusted-proxies: [::/1, 8000::/1] together trust every IPv6"),
                bad("trusted CIDR with host bits", "gridlimit: {client-ip: {trusted-proxies: [127.9.9.9/8]}}",
                        "gridlimit.client-ip.trusted-proxies[0]: '127.9.9.9/8' has address bits set beyond its /8 "
                                + "prefix; write 127.0.0.0/8"),
                bad("trusted IPv6 CIDR with host bits", "gridlimit: {client-ip: {trusted-proxies: ['2001:db8::1/64']}}",
                        "gridlimit.client-ip.trusted-proxies[0]: '2001:db8::1/64' has address bits set beyond its /64"),
                bad("malformed CIDR", "gridlimit: {client-ip: {trusted-proxies: [10.0.0.0/8, 10.0.0.0/33]}}",
                        "gridlimit.client-ip.trusted-proxies[1]: '10.0.0.0/33' is not an IP address or CIDR"),
                bad("host name as proxy", "gridlimit: {client-ip: {trusted-proxies: [proxy.example]}}",
                        "gridlimit.client-ip.trusted-proxies[0]: 'proxy.example' is not an IP address"),
                bad("ipv6-prefix 129", "gridlimit: {client-ip: {ipv6-prefix: 129}}",
                        "gridlimit.client-ip.ipv6-prefix: '129' is out of range [1, 128]"),
                bad("ipv6-prefix 0", "gridlimit: {client-ip: {ipv6-prefix: 0}}",
                        "gridlimit.client-ip.ipv6-prefix: '0' is out of range [1, 128]"),
                bad("unknown forwarding header", "gridlimit: {client-ip: {header: x-real-ip}}",
                        "gridlimit.client-ip.header: 'x-real-ip' is not one of x-forwarded-for, forwarded"),
                bad("trust-any-address: yes please", "gridlimit: {client-ip: {trust-any-address: 'yes please'}}",
                        "gridlimit.client-ip.trust-any-address: 'yes please' is not true or false"),
                // top-level values
                bad("bad headers mode", "gridlimit: {headers: fancy}", "gridlimit.headers: 'fancy' is not one of"),
                bad("bad failure mode", "gridlimit: {failure-mode: maybe}",
                        "gridlimit.failure-mode: 'maybe' is not one of open, closed, local"),
                bad("zero grid timeout", "gridlimit: {grid-timeout: 0ms}", "gridlimit.grid-timeout: '0ms' is out"),
                bad("grid timeout above 1 h", "gridlimit: {grid-timeout: 2h}", "gridlimit.grid-timeout: '2h' is out"),
                bad("zero local max-keys", "gridlimit: {local: {max-keys: 0}}", "gridlimit.local.max-keys: '0' is out"),
                bad("too many replicas", "gridlimit: {local: {expected-replicas: 10001}}",
                        "gridlimit.local.expected-replicas: '10001' is out of range [1, 10000]"),
                // the grid
                bad("bad hazelcast mode", "gridlimit: {hazelcast: {mode: cloud}}",
                        "gridlimit.hazelcast.mode: 'cloud' is not one of embedded, client"),
                bad("port above 65535", "gridlimit: {hazelcast: {port: 70000}}",
                        "gridlimit.hazelcast.port: '70000' is out of range [1, 65535]"),
                bad("max-keys-per-member 999", "gridlimit: {hazelcast: {max-keys-per-member: 999}}",
                        "gridlimit.hazelcast.max-keys-per-member: '999' is out of range [1000, 100000000]"),
                bad("missing config file", "gridlimit: {hazelcast: {config-file: /nonexistent/hazelcast.yaml}}",
                        "gridlimit.hazelcast.config-file: '/nonexistent/hazelcast.yaml' is not a readable file"),
                bad("non-loopback members without interfaces", "gridlimit: {hazelcast: {members: [127.0.0.1, "
                        + "'10.0.0.5:5701']}}", "gridlimit.hazelcast.members[1]: '10.0.0.5:5701' is not on this host, "
                        + "but the member binds only to gridlimit.hazelcast.interfaces"),
                bad("interface that is a device name", "gridlimit: {hazelcast: {interfaces: [eth0]}}",
                        "gridlimit.hazelcast.interfaces[0]: 'eth0' is not an IP address"),
                bad("member with a space", "gridlimit: {hazelcast: {members: ['a b']}}",
                        "gridlimit.hazelcast.members[0]: 'a b' is not a host or host:port"),
                bad("client without a cluster name", "gridlimit: {hazelcast: {mode: client}}",
                        "gridlimit.hazelcast.cluster-name: missing: a client must name the cluster it joins"),
                bad("member without a cluster name or application name", "micronaut: {application: {name: ''}}",
                        "gridlimit.hazelcast.cluster-name: missing: set it, or micronaut.application.name"),
                // plans (docs/SPEC.md §11)
                bad("plan with header and selector", DEMO + "  plans: {tiers: {header: X-Plan, selector: true, "
                        + "policies: {gold: demo}}}", "gridlimit.plans.tiers: set exactly one of header (a header a "
                        + "trusted proxy writes) and selector: true (the application's PolicySelector bean), got both"),
                bad("plan without a source", DEMO + "  plans: {tiers: {policies: {gold: demo}}}",
                        "gridlimit.plans.tiers: set exactly one of header"),
                bad("plan selector without a bean", DEMO + "  plans: {tiers: {selector: true, policies: {gold: demo}}}",
                        "gridlimit.plans.tiers.selector: 'true' needs a bean implementing "
                                + "io.gridlimit.micronaut.PolicySelector, and the application has none"),
                bad("plan naming an unknown policy", DEMO + "  plans: {tiers: {header: X-Plan, policies: "
                        + "{gold: platinum}}}", "gridlimit.plans.tiers.policies.gold: 'platinum' names no policy "
                        + "under gridlimit.policies (known: demo)"),
                bad("plan without policies", DEMO + "  plans: {tiers: {header: X-Plan}}",
                        "gridlimit.plans.tiers.policies: missing: map each plan value to a policy"),
                bad("plan header that is no header name", DEMO + "  plans: {tiers: {header: 'X Plan', policies: "
                        + "{gold: demo}}}", "gridlimit.plans.tiers.header: 'X Plan' is not a header name"),
                bad("route naming an unknown plan", DEMO + "  routes: [{pattern: /a, policy: demo, plan: tires}]",
                        "gridlimit.routes[0].plan: 'tires' names no plan under gridlimit.plans (known: none)"),
                bad("misspelt plan header", DEMO + "  plans: {tiers: {headr: X-Plan, policies: {gold: demo}}}",
                        "gridlimit.plans.tiers.headr: unknown property; did you mean gridlimit.plans.tiers.header?"),
                // quota leases (docs/SPEC.md §13)
                bad("misspelt lease switch", "gridlimit: {leases: {enabeld: true}}",
                        "gridlimit.leases.enabeld: unknown property; did you mean gridlimit.leases.enabled?"),
                bad("lease life too long", "gridlimit: {leases: {enabled: true, max-life: 20s}}",
                        "gridlimit.leases.max-life: '20s' is out of range [1ms, 10s]"),
                bad("lease window of zero", "gridlimit: {leases: {window: 0ms}}",
                        "gridlimit.leases.window: '0ms' is out of range [1ms, 1s]"),
                bad("lease share of one", "gridlimit: {leases: {capacity-share: 1}}",
                        "gridlimit.leases.capacity-share: '1' is out of range [2, 1000000]"),
                bad("lease switch that is no boolean", "gridlimit: {leases: {enabled: maybe}}",
                        "gridlimit.leases.enabled: 'maybe' is not true or false"));
    }

    private static Arguments bad(String name, String yaml, String message) {
        return arguments(name, yaml, message);
    }

    private static String window(String limit, String window) {
        return "gridlimit: {policies: {x: {algorithm: fixed-window, limit: '" + limit + "', window: '" + window
                + "'}}}";
    }

    private static String calendar(String settings) {
        return "gridlimit: {policies: {x: {algorithm: calendar, limit: 5, " + settings + "}}}";
    }

    private static String bucket(String capacity, String refillTokens, String period) {
        return "gridlimit: {policies: {x: {algorithm: token-bucket, capacity: '" + capacity + "', refill-tokens: '"
                + refillTokens + "', refill-period: '" + period + "'}}}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bad")
    void aBadConfigurationStopsTheBootNamingThePropertyAndTheValue(String name, String yaml, String message) {
        assertThatThrownBy(() -> start(yaml).close())
                .hasMessageContaining("Invalid GridLimit configuration: ")
                .hasMessageContaining(message);
    }

    @Test
    void theCasesAreDistinctAndAtLeastSixty() {
        List<Arguments> all = bad().toList();
        assertThat(all).hasSize(CASES);
        assertThat(all.stream().map(a -> a.get()[1]).distinct()).hasSize(CASES);
    }

    @Test
    void aPolicyWrittenTwiceInOneYamlFileStopsTheBoot() {
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("micronaut.application.name", "gl-bad"),
                "gl-duplicate-policy").close())
                .hasMessageContaining("Invalid GridLimit configuration: ")
                .hasMessageContaining("gridlimit.policies.demo: written twice in application-gl-duplicate-policy.yml"
                        + " (again at line 5)");
    }

    @Test
    void environmentVariablesAreKnownByAnyDottedFormMicronautDerives() {
        Map<String, Object> env = Map.of("GRIDLIMIT_HAZELCAST_PORT", "5999", "GRIDLIMIT_CLIENT_IP_IPV6_PREFIX", "48",
                "GRIDLIMIT_FAILURE_MODE", "closed", "GRIDLIMIT_DECISION_API_PORT", "8089",
                "GRIDLIMIT_POLICIES_DEMO_LIMIT", "7", "GRIDLIMIT_BASE_IMAGE", "local/jre17:latest");
        try (ApplicationContext ctx = ApplicationContext.builder()
                .propertySources(PropertySource.of("env", env, PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE),
                        yaml(DEMO + "  hazelcast: {cluster-name: gl-env}", -100))
                .properties(Map.of("gridlimit-test.limiter", "never")).start()) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.hazelcast().port()).isEqualTo(5999);
            assertThat(c.clientIp().ipv6Prefix()).isEqualTo(48);
            assertThat(c.failureMode()).isEqualTo(FailureMode.CLOSED);
            assertThat(c.policies().get("demo").bands().get(0).limit()).isEqualTo(7);
            assertThat(c.hazelcast().clusterName()).isEqualTo("gl-env");
        }
    }

    /**
     * Stands for a service's own settings (micronaut-app declares the real ones): a bean that is never enabled,
     * whose {@code @Property} and {@code @Requires} still make {@code gridlimit.decision-api.port} and
     * {@code gridlimit.warmup.enabled} known names (known names come from every bean definition on the classpath,
     * enabled or not). The filter tests set {@code gridlimit.warmup.enabled: false}, written for the service.
     */
    @jakarta.inject.Singleton
    @io.micronaut.context.annotation.Requires(property = "gridlimit-test.never-enabled")
    @io.micronaut.context.annotation.Requires(property = "gridlimit.warmup.enabled", value = "never")
    static class ServiceSettings {
        ServiceSettings(@io.micronaut.context.annotation.Property(name = "gridlimit.decision-api.port") int port) {
        }
    }

    @Test
    void aServiceSettingOfADisabledBeanIsKnownAndTyped() {
        assertThatThrownBy(() -> start("gridlimit: {decision-api: {port: eighty}}").close())
                .hasMessageContaining("gridlimit.decision-api.port: 'eighty' is not a whole number");
        assertThatThrownBy(() -> ApplicationContext.builder()
                .propertySources(PropertySource.of("env", Map.of("GRIDLIMIT_DECISION_API_PORT", "eighty"),
                        PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE))
                .properties(Map.of("micronaut.application.name", "gl-bad")).start().close())
                .hasMessageContaining("GRIDLIMIT_DECISION_API_PORT (gridlimit.decision-api.port): 'eighty' is not "
                        + "a whole number");
    }

    @Test
    void aMisspeltEnvironmentVariableInAKnownSectionStopsTheBoot() {
        assertThatThrownBy(() -> ApplicationContext.builder()
                .propertySources(PropertySource.of("env", Map.of("GRIDLIMIT_HAZELCAST_PROT", "5702"),
                        PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE))
                .properties(Map.of("micronaut.application.name", "gl-bad")).start().close())
                .hasMessageContaining("GRIDLIMIT_HAZELCAST_PROT: unknown property; did you mean "
                        + "gridlimit.hazelcast.port?");
    }

    @Test
    void theNewSettingsAreBoundWithTheirDefaultsAndValues() {
        try (ApplicationContext ctx = start(DEMO + "  exempt: ['/**']\n  exempt-all-acknowledged: true\n"
                + "  client-ip: {header: forwarded, trust-any-address: true, trusted-proxies: ['0.0.0.0/0']}\n"
                + "  hazelcast: {members: [10.0.0.5], interfaces: ['10.0.0.*']}")) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.exempt()).containsExactly("/**");
            assertThat(c.clientIp().header()).isEqualTo(ForwardingHeader.FORWARDED);
            assertThat(c.clientIp().trustedProxies()).hasSize(1);
            assertThat(c.hazelcast().interfaces()).containsExactly("10.0.0.*");
            assertThat(c.hazelcast().clusterName()).isEqualTo("gl-bad");
        }
        try (ApplicationContext ctx = start(DEMO)) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.clientIp().header()).isEqualTo(ForwardingHeader.X_FORWARDED_FOR);
            assertThat(c.hazelcast().interfaces()).containsExactly("127.0.0.1");
            assertThat(c.hazelcast().members()).containsExactly("127.0.0.1");
            assertThat(c.failureMode()).isEqualTo(FailureMode.LOCAL);
        }
    }

    /** Starts a context on the YAML text; the grid is never asked for (fake limiter), so no member starts. */
    private static ApplicationContext start(String yaml) {
        Map<String, Object> base = new HashMap<>(Map.of("gridlimit-test.limiter", "never"));
        return ApplicationContext.builder().propertySources(yaml(yaml, 100))
                .properties(Map.of("micronaut.application.name", "gl-bad")).properties(base).start();
    }

    /** The text as a YAML file: read by Micronaut's loader, its origin the file (which the check reads again). */
    private static PropertySource yaml(String text, int priority) {
        try {
            Path file = Files.createTempFile("gl-bad", ".yml");
            file.toFile().deleteOnExit();
            Files.writeString(file, text);
            Map<String, Object> map = new YamlPropertySourceLoader().read("bad",
                    new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            return PropertySource.of("bad", map, PropertySource.Origin.of(file.toString()), priority);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
