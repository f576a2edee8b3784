package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Configuration and the catalog (docs/SPEC.md §11) with two replicas of one cluster booting one after the other: the
 * first seeds its configured policies; once a policy is changed through the catalog (the admin API's path), a
 * replica booting with other parameters leaves the catalog's version in force and reports the disagreement (one
 * WARN, its gauge, its readiness detail), until the catalog's record agrees with it again.
 */
class SeedRuleTest {
    @Test
    void aPolicyTheApiChangedStaysTheCatalogsAndBootLogsTheDifference() {
        Map<String, String> first = Ports.ownMember("gl-seed");
        Logger logger = (Logger) LoggerFactory.getLogger(PolicyDisagreements.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (ApplicationContext a = ApplicationContext.run(new HashMap<>(first), "gl-catalog")) {
            PolicyCatalog catalogA = a.getBean(PolicyCatalog.class);
            PolicyRecord seeded = catalogA.record("gold").orElseThrow();
            assertThat(seeded.origin()).isEqualTo(PolicyRecord.Origin.CONFIGURATION);
            Policy bigger = Policy.builder("gold").fixedWindow(50, Duration.ofHours(1)).build();
            assertThat(catalogA.put(bigger, seeded.version(), "alice").status())
                    .isEqualTo(PolicyCatalog.Status.APPLIED);

            Map<String, String> second = Ports.ownMember("unused");
            second.put("gridlimit.hazelcast.cluster-name", first.get("gridlimit.hazelcast.cluster-name"));
            second.put("gridlimit.hazelcast.members", first.get("gridlimit.hazelcast.members") + ","
                    + second.get("gridlimit.hazelcast.members"));
            try (ApplicationContext b = ApplicationContext.run(new HashMap<>(second), "gl-catalog")) {
                PolicyCatalog catalogB = b.getBean(PolicyCatalog.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> catalogB.record("gold").isPresent());
                assertThat(catalogB.record("gold").orElseThrow().policy()).as("the API's version stays")
                        .isEqualTo(bigger);
                assertThat(b.getBean(PolicySource.class).current("gold")).hasValue(bigger);
                Policy configured = b.getBean(io.gridlimit.micronaut.config.GridLimitConfig.class).policy("gold")
                        .orElseThrow();
                String warning = "policy 'gold' disagrees with the catalog: the catalog's version 2 (changed "
                        + "through the admin API, by alice) applies on every replica, this one too: " + bigger
                        + "; this replica's configuration (gridlimit.catalog.generation 0): " + configured
                        + ". The admin API owns the policy, configuration no longer changes it: change it through "
                        + "the admin API";
                // A's when the API changed the policy (its copy's listener), B's at boot: one each
                assertThat(appender.list).filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage).containsExactly(warning, warning);
                assertThat(a.getBean(PolicyDisagreements.class).disagrees("gold")).isTrue();
                PolicyDisagreements disagreements = b.getBean(PolicyDisagreements.class);
                assertThat(disagreements.summary()).containsExactly(Map.entry("gold", "the catalog's version 2 "
                        + "(changed through the admin API) applies; this replica's configuration (generation 0) "
                        + "differs"));
                io.micrometer.core.instrument.MeterRegistry registry =
                        b.getBean(io.gridlimit.micronaut.metrics.GridLimitMetrics.class).registry();
                assertThat(registry.get("gridlimit.policy.disagreement").tag("policy", "gold").gauge().value())
                        .isEqualTo(1.0);
                assertThat(registry.get("gridlimit.policy.disagreement").tag("policy", "free").gauge().value())
                        .isEqualTo(0.0);

                // put back as configured (through the API: it stays the API's), and B agrees again
                assertThat(catalogA.put(configured, 2, "alice").status()).isEqualTo(PolicyCatalog.Status.APPLIED);
                await().atMost(Duration.ofSeconds(30)).until(() -> !disagreements.disagrees("gold"));
                assertThat(disagreements.summary()).isEmpty();
                assertThat(registry.get("gridlimit.policy.disagreement").tag("policy", "gold").gauge().value())
                        .isEqualTo(0.0);
                String agrees = "policy 'gold': this replica's configuration agrees with the catalog again "
                        + "(version 3)";
                await().atMost(Duration.ofSeconds(30)).until(() -> appender.list.stream()
                        .filter(e -> e.getFormattedMessage().equals(agrees)).count() == 2);
                assertThat(a.getBean(PolicyDisagreements.class).disagrees("gold")).isFalse();
            }
        } finally {
            logger.detachAppender(appender);
        }
    }
}
