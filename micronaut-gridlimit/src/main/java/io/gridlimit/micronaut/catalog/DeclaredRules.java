package io.gridlimit.micronaut.catalog;

import io.gridlimit.micronaut.config.RouteRule;

import java.util.Collection;

/**
 * Rules a door declares outside {@code gridlimit.routes}, such as the HTTP door's {@code @RateLimited} methods:
 * {@link PolicySource} registers the policies they name as references, so that the admin API refuses to delete
 * them (docs/SPEC.md §11). The catalog depends on this type, never on a door's package.
 */
public interface DeclaredRules {
    /**
     * @return the declared rules, checked, in no particular order; never null, empty when there are none
     */
    Collection<RouteRule> rules();
}
