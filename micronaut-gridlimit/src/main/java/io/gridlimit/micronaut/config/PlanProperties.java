package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.util.Map;

/**
 * One plan, {@code gridlimit.plans.<name>} (docs/SPEC.md §11): where a route that names it ({@code plan: <name>})
 * reads the request's plan value, and which policy each value selects; the route's own {@code policy} is the
 * default (no value, or a value not mapped). Exactly one source: {@code header} (read only when the peer is a
 * trusted proxy, SPEC §6, since a client must not choose its own plan) or {@code selector: true} (the application's
 * {@link io.gridlimit.micronaut.PolicySelector} bean).
 *
 * @param name the map key, exactly as written
 * @param header the request header a trusted proxy sets to the plan value, or null
 * @param selector true to ask the application's {@code PolicySelector} bean
 * @param policies plan value to policy name, as written; values are compared exactly
 */
@EachProperty("gridlimit.plans")
public record PlanProperties(@Parameter String name, @Nullable String header,
                             @Bindable(defaultValue = "false") boolean selector,
                             @Nullable Map<String, String> policies) {
}
