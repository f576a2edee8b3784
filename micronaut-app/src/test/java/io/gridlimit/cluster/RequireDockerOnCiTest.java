package io.gridlimit.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.testcontainers.junit.jupiter.Testcontainers;

/** CI without Docker fails the cluster tests; elsewhere they are left to Testcontainers' clean skip. */
class RequireDockerOnCiTest {
    @Test
    void inCiAMissingEngineIsAFailure() {
        assertThatThrownBy(() -> RequireDockerOnCi.evaluate("true", () -> false))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("CI=true but no Docker engine is reachable");
        assertThat(RequireDockerOnCi.evaluate("TRUE", () -> true).isDisabled()).isFalse();
    }

    @Test
    void outsideCiDockerIsNotEvenAsked() {
        AtomicInteger asked = new AtomicInteger();
        for (String ci : new String[] {null, "", "false", "1"}) {
            assertThat(RequireDockerOnCi.evaluate(ci, () -> asked.incrementAndGet() > 0).isDisabled()).isFalse();
        }
        assertThat(asked).hasValue(0);
    }

    @Test
    void theClusterTestsAskBeforeTestcontainersMaySkip() {
        // JUnit registers declared extensions in declaration order and stops at the first condition that disables
        ExtendWith[] extendWith = ClusterReliabilityIT.class.getAnnotationsByType(ExtendWith.class);
        assertThat(extendWith).singleElement().satisfies(e -> assertThat(e.value()).containsExactly(
                RequireDockerOnCi.class));
        assertThat(ClusterReliabilityIT.class.getAnnotation(Testcontainers.class).disabledWithoutDocker()).isTrue();
        java.lang.annotation.Annotation[] declared = ClusterReliabilityIT.class.getDeclaredAnnotations();
        int ours = -1;
        int testcontainers = -1;
        for (int i = 0; i < declared.length; i++) {
            if (declared[i] instanceof ExtendWith) {
                ours = i;
            } else if (declared[i] instanceof Testcontainers) {
                testcontainers = i;
            }
        }
        assertThat(ours).isLessThan(testcontainers);
    }
}
