package io.gridlimit.micronaut.catalog;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * Creates the application's {@link PolicyCatalog} on its Hazelcast instance (docs/SPEC.md §11); closed before the
 * instance shuts down. Only asked for by {@link PolicySource} when the limiter is the Hazelcast one, so a replaced
 * limiter starts no grid.
 */
@Factory
public class CatalogFactory {
    /**
     * @param instance the running Hazelcast instance
     * @param properties {@code gridlimit.catalog.*}
     * @return the started catalog
     */
    @Singleton
    @Bean(preDestroy = "close")
    @Requires(property = "gridlimit.catalog.enabled", notEquals = "false")
    public PolicyCatalog policyCatalog(HazelcastInstance instance, CatalogProperties properties) {
        return PolicyCatalog.start(instance, properties.maxOverrides());
    }
}
