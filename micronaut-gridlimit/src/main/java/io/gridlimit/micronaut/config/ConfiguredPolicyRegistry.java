package io.gridlimit.micronaut.config;

import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.PolicyRegistry;
import jakarta.inject.Singleton;

import java.util.Collection;
import java.util.Optional;

/**
 * The {@link PolicyRegistry} of the policies under {@code gridlimit.policies}, as checked at startup by
 * {@link GridLimitConfigFactory}. Immutable and thread-safe.
 */
@Singleton
public class ConfiguredPolicyRegistry implements PolicyRegistry {
    private final GridLimitConfig config;

    /** @param config the checked configuration */
    public ConfiguredPolicyRegistry(GridLimitConfig config) {
        this.config = config;
    }

    @Override
    public Optional<Policy> find(String name) {
        return config.policy(name);
    }

    @Override
    public Collection<Policy> all() {
        return config.policies().values();
    }

    @Override
    public boolean isShadow(String name) {
        return config.isShadow(name);
    }
}
