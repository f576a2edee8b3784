package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * The raw settings of one route rule, {@code gridlimit.routes[<index>]}: an Ant-style {@code pattern}, the HTTP
 * {@code methods} (empty: all), the {@code policy}, the {@code key} sources, the {@code cost} and
 * {@code on-missing-key}. Bound as text; {@link GridLimitConfigFactory} converts and checks.
 */
@EachProperty(value = RouteProperties.PREFIX, list = true)
public class RouteProperties {
    /** The root of the route list. */
    public static final String PREFIX = GridLimitProperties.PREFIX + ".routes";

    private final int index;
    private String pattern;
    private List<String> methods;
    private String policy;
    private List<String> key;
    private String cost;
    private String onMissingKey;

    /** @param index the position in {@code gridlimit.routes}, from 0 */
    public RouteProperties(@Parameter Integer index) {
        this.index = index;
    }

    /** @return the position in {@code gridlimit.routes}, from 0 */
    public int getIndex() {
        return index;
    }

    /** @return {@code pattern} as written, or null */
    public @Nullable String getPattern() {
        return pattern;
    }

    /** @param pattern an Ant-style path pattern such as {@code /api/**} */
    public void setPattern(@Nullable String pattern) {
        this.pattern = pattern;
    }

    /** @return {@code methods} as written, or null */
    public @Nullable List<String> getMethods() {
        return methods;
    }

    /** @param methods HTTP method names; empty or unset means all */
    public void setMethods(@Nullable List<String> methods) {
        this.methods = methods;
    }

    /** @return {@code policy} as written, or null */
    public @Nullable String getPolicy() {
        return policy;
    }

    /** @param policy the name of a policy under {@code gridlimit.policies} */
    public void setPolicy(@Nullable String policy) {
        this.policy = policy;
    }

    /** @return {@code key} as written, or null */
    public @Nullable List<String> getKey() {
        return key;
    }

    /** @param key key sources: client-ip, header:&lt;Name&gt;, principal, global, route */
    public void setKey(@Nullable List<String> key) {
        this.key = key;
    }

    /** @return {@code cost} as written, or null */
    public @Nullable String getCost() {
        return cost;
    }

    /** @param cost what one request takes, in [1, 10^15]; default 1 */
    public void setCost(@Nullable String cost) {
        this.cost = cost;
    }

    /** @return {@code on-missing-key} as written, or null */
    public @Nullable String getOnMissingKey() {
        return onMissingKey;
    }

    /** @param onMissingKey {@code reject} (default) or {@code skip} */
    public void setOnMissingKey(@Nullable String onMissingKey) {
        this.onMissingKey = onMissingKey;
    }
}
