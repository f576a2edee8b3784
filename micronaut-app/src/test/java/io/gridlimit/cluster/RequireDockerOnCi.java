package io.gridlimit.cluster;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Makes a missing container engine a failure in CI ({@code CI=true}) instead of the clean skip
 * {@code @Testcontainers(disabledWithoutDocker = true)} gives elsewhere: {@code .ci/run} installs and starts Docker,
 * so a CI run without it must not pass silently. Declare it before {@code @Testcontainers} so it is evaluated first.
 */
public final class RequireDockerOnCi implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return evaluate(System.getenv("CI"), () -> {
            try {
                return DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    /**
     * The decision, apart from the environment.
     *
     * @param ciVariable the value of {@code CI}, or null
     * @param docker tells whether a Docker engine answers (asked only in CI)
     * @return enabled (outside CI, Testcontainers' own condition then skips without Docker)
     * @throws ExtensionConfigurationException in CI without Docker: the test class fails
     */
    static ConditionEvaluationResult evaluate(String ciVariable, java.util.function.BooleanSupplier docker) {
        boolean ci = "true".equalsIgnoreCase(ciVariable);
        if (!ci) {
            return ConditionEvaluationResult.enabled("not CI: Testcontainers decides (skips without Docker)");
        }
        if (!docker.getAsBoolean()) {
            throw new ExtensionConfigurationException("CI=true but no Docker engine is reachable: the cluster "
                    + "tests must run in CI (.ci/run starts dockerd); failing instead of skipping");
        }
        return ConditionEvaluationResult.enabled("CI with Docker");
    }
}
