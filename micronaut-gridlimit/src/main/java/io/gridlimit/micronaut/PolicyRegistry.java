package io.gridlimit.micronaut;

import io.gridlimit.api.Policy;

import java.util.Collection;
import java.util.Optional;

/**
 * The policies configured under {@code gridlimit.policies}, validated and built at startup.
 *
 * <p>Implementations are immutable after startup and thread-safe.
 */
public interface PolicyRegistry {
    /**
     * Looks a policy up by name.
     *
     * @param name the policy name as configured, e.g. {@code "demo"}
     * @return the policy, or empty when no policy has that name
     */
    Optional<Policy> find(String name);

    /** @return every configured policy, in configuration order; never null */
    Collection<Policy> all();

    /**
     * Tells whether a policy runs in shadow mode: evaluated and reported (headers, metrics) but never denying.
     *
     * @param name the policy name
     * @return true when {@code gridlimit.policies.<name>.shadow} is true; false for unknown names
     */
    boolean isShadow(String name);
}
