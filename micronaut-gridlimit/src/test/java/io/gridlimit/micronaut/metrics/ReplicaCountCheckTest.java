package io.gridlimit.micronaut.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@link ReplicaCountCheck}: a WARN once per change of the member count above
 * {@code gridlimit.local.expected-replicas}, an INFO when it is back within, nothing otherwise.
 */
class ReplicaCountCheckTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(ReplicaCountCheck.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @BeforeEach
    void attach() {
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(appender);
    }

    @Test
    void warnsOncePerChangeAboveTheExpectedCountAndSaysWhenItIsBackWithin() {
        ReplicaCountCheck check = new ReplicaCountCheck(3, true);
        assertThat(check.observe(1)).isNull();
        assertThat(check.observe(3)).isNull();
        assertThat(check.observe(4)).isEqualTo("the cluster has 4 members but gridlimit.local.expected-replicas is 3:"
                + " while the grid does not answer, failure-mode local admits up to 4 shares of 1/3 of each quota;"
                + " set gridlimit.local.expected-replicas to at least 4");
        assertThat(check.observe(4)).as("the same count again: not logged again").isNull();
        assertThat(check.observe(4)).isNull();
        assertThat(check.observe(5)).startsWith("the cluster has 5 members");
        assertThat(check.observe(0)).as("a stopped instance says nothing of the replicas").isNull();
        assertThat(check.observe(5)).isNull();
        assertThat(check.observe(2)).isEqualTo("the cluster has 2 members, within gridlimit.local.expected-replicas=3");
        assertThat(check.observe(3)).isNull();
        assertThat(appender.list).extracting(ILoggingEvent::getLevel)
                .containsExactly(Level.WARN, Level.WARN, Level.INFO);
    }

    @Test
    void inactiveOutsideLocalModeOrOnAClient() {
        ReplicaCountCheck check = new ReplicaCountCheck(1, false);
        assertThat(check.observe(7)).isNull();
        assertThat(appender.list).isEmpty();
    }
}
