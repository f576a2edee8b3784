package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.PolicyCatalog;
import io.gridlimit.grid.PolicyRecord;
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
 * replica booting with other parameters leaves the catalog's version in force and logs the difference.
 */
class SeedRuleTest {
    @Test
    void aPolicyTheApiChangedStaysTheCatalogsAndBootLogsTheDifference() {
        Map<String, String> first = Ports.ownMember("gl-seed");
        Logger logger = (Logger) LoggerFactory.getLogger(PolicySource.class);
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
                assertThat(appender.list).filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage).anySatisfy(m -> assertThat(m)
                                .startsWith("policy 'gold': the catalog's version 2 (changed through the admin API "
                                        + "by alice) differs from configuration and applies")
                                .contains("limit=50").contains("limit=5"));
            }
        } finally {
            logger.detachAppender(appender);
        }
    }
}
