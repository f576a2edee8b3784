package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

import java.util.List;

/**
 * One route rule, {@code gridlimit.routes[<index>]} (a list, never a map). The list is the one of the property source
 * of highest precedence that writes any of it, replacing the lower ones' whole (so a rule never inherits a setting
 * from another source's rule at its index; {@link io.gridlimit.micronaut.config.sources.ConfigurationSources}), in any
 * form Micronaut reads ({@code routes: [{…}]}, {@code gridlimit.routes[0].key[0]=…}, {@code …key=a,b}).
 *
 * @param index the position in {@code gridlimit.routes}, from 0
 * @param pattern an Ant-style path pattern such as {@code /api/**}
 * @param methods HTTP method names; null or empty means all
 * @param policy the name of a policy under {@code gridlimit.policies}
 * @param key key sources (client-ip, header:&lt;Name&gt;, principal, global, route), or null for client-ip
 * @param cost what one request takes, in [1, 10^15]
 * @param onMissingKey what happens when a key source has no value
 * @param plan the name of a plan under {@code gridlimit.plans} choosing the policy per request ({@code policy} is
 *     then the default), or null (docs/SPEC.md §11)
 */
@EachProperty(value = "gridlimit.routes", list = true)
public record RouteProperties(@Parameter Integer index, @Nullable String pattern, @Nullable List<String> methods,
                              @Nullable String policy, @Nullable List<String> key,
                              @Bindable(defaultValue = "1") long cost,
                              @Bindable(defaultValue = "reject") OnMissingKey onMissingKey,
                              @Nullable String plan) {
}
