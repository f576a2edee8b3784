package io.gridlimit.micronaut.testapp;

import io.gridlimit.micronaut.PolicySelector;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

/**
 * A plan selector as an application writes one (docs/SPEC.md §11): the tenant of a request, here read from the
 * {@code X-Tenant} header the test's own front end sets. Only with {@code gridlimit-test.tenant-selector=true}.
 */
@Singleton
@Requires(property = "gridlimit-test.tenant-selector", value = "true")
public class TenantSelector implements PolicySelector {
    @Override
    public @Nullable String select(String plan, HttpRequest<?> request) {
        return request.getHeaders().get("X-Tenant");
    }
}
