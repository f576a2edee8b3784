package io.gridlimit.micronaut;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;

/**
 * Chooses a request's plan: an application bean a plan with {@code selector: true} asks (docs/SPEC.md §11), for
 * plans read from what only the application knows (an authenticated principal's claims, a tenant looked up by API
 * key). The value it returns is mapped through the plan's {@code policies}; null, or a value the plan does not map,
 * takes the route's default policy (counted, never an error).
 *
 * <p>Called on the request's event loop for every request the plan's routes match: it must not block (read what
 * the request carries or an in-memory map, never a database) and must be thread-safe.
 */
@FunctionalInterface
public interface PolicySelector {
    /**
     * Chooses the plan value of a request.
     *
     * @param plan the plan's name under {@code gridlimit.plans}
     * @param request the request being limited
     * @return the plan value (a key of the plan's {@code policies}), or null for the route's default policy
     */
    @Nullable
    String select(String plan, HttpRequest<?> request);
}
