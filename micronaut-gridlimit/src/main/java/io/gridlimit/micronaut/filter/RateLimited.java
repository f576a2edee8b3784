package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.OnMissingKey;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Rate limits a controller method (or every method of a controller) with a configured policy, as an alternative
 * to a {@code gridlimit.routes} rule. It is checked after the route rules that match the request (SPEC §4: all
 * must admit). The policy and key sources are checked at startup: a bad value stops the boot.
 *
 * <pre>{@code
 * @Get("/orders/{id}")
 * @RateLimited(policy = "api", key = {"route", "client-ip"})
 * Order order(String id) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RateLimited {
    /** @return the name of a policy under {@code gridlimit.policies} */
    String policy();

    /**
     * @return the key sources, joined with {@code |} in order: {@code client-ip}, {@code header:<Name>},
     *     {@code principal}, {@code global}, {@code route} (the route's URI template)
     */
    String[] key() default {"client-ip"};

    /** @return what one request takes, in [1, 10^15] and at most the quota of each band */
    long cost() default 1;

    /** @return what happens when a key source has no value for a request */
    OnMissingKey onMissingKey() default OnMissingKey.REJECT;
}
