package io.gridlimit.micronaut.catalog;

import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.PolicyRegistry;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.GridLimitConfigFactory;
import io.micronaut.context.BeanProvider;
import jakarta.inject.Singleton;

import java.util.Collection;
import java.util.Optional;

/**
 * The {@link PolicyRegistry} of the policies under {@code gridlimit.policies}, as checked at startup by
 * {@link GridLimitConfigFactory}; {@link #find} answers with the grid's policy catalog's current version, which
 * includes policies created through the admin API (docs/SPEC.md §11). Thread-safe.
 */
@Singleton
public class ConfiguredPolicyRegistry implements PolicyRegistry {
    private final GridLimitConfig config;
    private final BeanProvider<PolicySource> catalog;

    /**
     * @param config the checked configuration
     * @param catalog the catalog's view of the policies, resolved on first use
     */
    public ConfiguredPolicyRegistry(GridLimitConfig config, BeanProvider<PolicySource> catalog) {
        this.config = config;
        this.catalog = catalog;
    }

    /**
     * Looks a policy up: the catalog's current version, else configuration's.
     *
     * @param name the policy name
     * @return the policy, or empty when neither knows it (or the admin API deleted it)
     */
    @Override
    public Optional<Policy> find(String name) {
        return name == null ? Optional.empty() : catalog.get().current(name);
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
