package io.gridlimit.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.Policy;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.app.support.SharedClock;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.micronaut.catalog.PolicyDisagreements;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A rolling update of a configured policy over real replicas of the service, one Hazelcast cluster on loopback in
 * this JVM (docs/SPEC.md §11, "Configuration and catalog"): replicas A and B run {@code demo} at 5 per 10 s under
 * {@code gridlimit.catalog.generation} 1; the update rolls out 10 per 10 s under generation 2 (C replaces A, D
 * replaces B), and mid-way the old replica B restarts on the old configuration. The cluster's limit stays 10
 * (exact admitted counts over HTTP, and the catalog's record); the restarted replica logs the disagreement, its
 * gauge is 1 and its readiness (still UP) names the policy; the new replicas' gauges are 0.
 */
class RollingUpdateTest {
    private final List<EmbeddedServer> running = new ArrayList<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(PolicyDisagreements.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @AfterEach
    void stop() {
        logger.detachAppender(appender);
        running.forEach(EmbeddedServer::close);
    }

    @Test
    void anOldReplicaRestartedMidwayNeverRollsTheClusterBack() throws Exception {
        appender.start();
        logger.addAppender(appender);
        String id = UUID.randomUUID().toString();
        String cluster = "svc-rolling-" + id;
        int[] ports = IntStream.range(0, 5).map(i -> Ports.freePort()).toArray();
        EmbeddedServer a = start(cluster, id, ports, 0, 1, 5);
        EmbeddedServer b = start(cluster, id, ports, 1, 1, 5);
        awaitMembers(2, a, b);
        PolicyRecord first = record(b);
        assertThat(first).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::origin)
                .containsExactly(1L, 1L, PolicyRecord.Origin.CONFIGURATION);
        assertThat(admitted(10, a, b)).as("generation 1: 5 per 10 s").isEqualTo(5);

        // C (generation 2, 10 per 10 s) joins: the first replica of the new generation changes the record
        EmbeddedServer c = start(cluster, id, ports, 2, 2, 10);
        Policy ten = configured(c);
        assertThat(record(c)).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(2L, 2L, ten);
        assertThat(appender.list).filteredOn(e -> e.getLevel() == Level.INFO)
                .extracting(ILoggingEvent::getFormattedMessage).contains("policy 'demo': configuration generation 2 "
                        + "changed it, catalog version 1 (generation 1) -> 2: " + ten);
        close(a);
        // B, still on generation 1, was overtaken: its copy's listener says so
        PolicyDisagreements atB = b.getApplicationContext().getBean(PolicyDisagreements.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> atB.disagrees("demo"));

        // mid-way, the old replica B restarts on generation 1 (a crash-looping pod of the old ReplicaSet)
        close(b);
        int before = appender.list.size();
        EmbeddedServer restarted = start(cluster, id, ports, 3, 1, 5);
        awaitMembers(2, c, restarted);
        Policy five = configured(restarted);
        PolicyRecord standing = record(restarted);
        assertThat(standing).as("the record stands")
                .extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(2L, 2L, ten);
        assertThat(record(c)).isEqualTo(standing);
        String warning = "policy 'demo' disagrees with the catalog: the catalog's version 2 (seeded by configuration "
                + "generation 2, by " + standing.changedBy() + ") applies on every replica, this one too: " + ten
                + "; this replica's configuration (gridlimit.catalog.generation 1): " + five + ". Raise "
                + "gridlimit.catalog.generation above 2 to apply this configuration, or change the policy through the "
                + "admin API";
        String booting = Thread.currentThread().getName();
        assertThat(new ArrayList<>(appender.list.subList(before, appender.list.size())))
                .filteredOn(e -> e.getLevel() == Level.WARN && e.getThreadName().equals(booting))
                .extracting(ILoggingEvent::getFormattedMessage).as("the restarted replica's boot").containsExactly(warning);
        SharedClock.named(id).advance(Duration.ofSeconds(11)); // the frozen clock past every earlier request's window
        assertThat(admitted(11, restarted, c)).as("the cluster's limit stays 10, on both replicas").isEqualTo(10);
        assertThat(gauge(restarted)).isEqualTo("1.0");
        assertThat(gauge(c)).isEqualTo("0.0");
        assertThat(readiness(restarted)).contains("\"policyDisagreements\":{\"demo\":\"the catalog's version 2 "
                + "(configuration generation 2) applies; this replica's configuration (generation 1) differs\"}");
        assertThat(readiness(c)).contains("\"policyDisagreements\":{}");

        // D (generation 2) replaces B: the update is complete, every replica agrees
        EmbeddedServer d = start(cluster, id, ports, 4, 2, 10);
        close(restarted);
        awaitMembers(2, c, d);
        assertThat(record(d)).isEqualTo(standing);
        assertThat(gauge(c)).isEqualTo("0.0");
        assertThat(gauge(d)).isEqualTo("0.0");
        SharedClock.named(id).advance(Duration.ofSeconds(11));
        assertThat(admitted(11, c, d)).isEqualTo(10);
    }

    /** Starts replica {@code index} of the cluster on {@code ports[index]}, with its generation and demo's limit. */
    private EmbeddedServer start(String cluster, String clock, int[] ports, int index, long generation, int limit) {
        Map<String, Object> p = ServiceProperties.member(cluster, clock, ports[index], ports);
        p.put("gridlimit.catalog.generation", Long.toString(generation));
        p.put("gridlimit.policies.demo.limit", Integer.toString(limit));
        EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p);
        running.add(server);
        return server;
    }

    private void close(EmbeddedServer server) {
        running.remove(server);
        server.close();
    }

    private static void awaitMembers(int n, EmbeddedServer... servers) {
        await().atMost(Duration.ofSeconds(60)).until(() -> java.util.Arrays.stream(servers).allMatch(s ->
                s.getApplicationContext().getBean(HazelcastInstance.class).getCluster().getMembers().size() == n));
    }

    private static PolicyRecord record(EmbeddedServer server) {
        return server.getApplicationContext().getBean(PolicyCatalog.class).record("demo").orElseThrow();
    }

    private static Policy configured(EmbeddedServer server) {
        return server.getApplicationContext().getBean(GridLimitConfig.class).policy("demo").orElseThrow();
    }

    /** Sends {@code n} requests to /demo/hello, alternating between the replicas; returns how many got 200. */
    private static int admitted(int n, EmbeddedServer... replicas) throws Exception {
        int ok = 0;
        for (int i = 0; i < n; i++) {
            try (HttpClient http = HttpClient.create(replicas[i % replicas.length].getURL())) {
                HttpResponse<String> r = Http.exchange(http.toBlocking(), HttpRequest.GET("/demo/hello"));
                assertThat(r.code()).as("request %d", i + 1).isIn(200, 429);
                ok += r.code() == 200 ? 1 : 0;
            }
        }
        return ok;
    }

    /** The replica's disagreement gauge for demo, as /prometheus on its internal port shows it. */
    private static String gauge(EmbeddedServer server) throws Exception {
        String prefix = "gridlimit_policy_disagreement{policy=\"demo\"} ";
        try (HttpClient http = HttpClient.create(ServiceProperties.internalUrl(server.getApplicationContext()))) {
            String body = Http.body(Http.exchange(http.toBlocking(), HttpRequest.GET("/prometheus")));
            return body.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()))
                    .findFirst().orElse("absent");
        }
    }

    /** The replica's /health/readiness body once it answers 200 (UP). */
    private static String readiness(EmbeddedServer server) throws Exception {
        try (HttpClient http = HttpClient.create(ServiceProperties.internalUrl(server.getApplicationContext()))) {
            String[] body = {null};
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                HttpResponse<String> r = Http.exchange(http.toBlocking(), HttpRequest.GET("/health/readiness"));
                body[0] = Http.body(r);
                return r.code() == 200;
            });
            return body[0];
        }
    }
}
