package io.gridlimit.micronaut.config;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.BeanInstantiationException;
import io.micronaut.context.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@link BootFailure} finds the one refusal sentence in what a failed start-up throws. */
class BootFailureTest {
    @Test
    void aRealStartWithAMisspelledKeyGivesTheRefusalOnce() {
        Throwable failure = catchThrowable(() -> ApplicationContext.run(Map.of("gridlimit.rotes", "x")).close());
        assertThat(failure).isInstanceOf(BeanInstantiationException.class);
        assertThat(BootFailure.reason(failure)).contains(
                "Invalid GridLimit configuration: gridlimit.rotes: unknown property; did you mean gridlimit.routes?");
    }

    @Test
    void theFirstRefusalInTheChainIsTaken() {
        ConfigurationException refusal = new ConfigurationException("Invalid GridLimit configuration: a: 'b' is bad");
        RuntimeException wrapped = new RuntimeException("outer: " + refusal.getMessage(),
                new IllegalStateException("middle", refusal));
        assertThat(BootFailure.reason(wrapped)).contains("Invalid GridLimit configuration: a: 'b' is bad");
    }

    @Test
    void otherFailuresHaveNoReason() {
        assertThat(BootFailure.reason(null)).isEmpty();
        assertThat(BootFailure.reason(new ConfigurationException("micronaut.server.port: not a number"))).isEmpty();
        assertThat(BootFailure.reason(new RuntimeException("Invalid GridLimit configuration: not a refusal type")))
                .isEmpty();
    }

    @Test
    void aCauseCycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(BootFailure.reason(b)).isEmpty();
    }
}
